package main

import (
	"strings"
	"testing"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/internal/blob"
)

// TestCrossingSize: what decides whether an attachment's value gets a task
// of its own counts the text, HTML and bytes copied into JavaScript, not the
// bytes held in the page (a fresh image read yielded for nothing, and the
// browser's collection ran inside the read's promise).
func TestCrossingSize(t *testing.T) {
	big := strings.Repeat("x", crossingLarge)
	tests := []struct {
		name  string
		atts  []attach.Attachment
		size  int
		large bool
	}{
		{"none", nil, 0, false},
		{"small text and HTML", []attach.Attachment{{Text: "# hi", HTML: "<h1>hi</h1>"}}, 15, false},
		{"a large text", []attach.Attachment{{Text: big}}, crossingLarge, true},
		{"text and HTML large together", []attach.Attachment{{Text: big[:crossingLarge/2], HTML: big[:crossingLarge/2]}}, crossingLarge, true},
		{"large across attachments", []attach.Attachment{{Text: big[:crossingLarge-1]}, {HTML: "x"}}, crossingLarge, true},
		{"copied bytes", []attach.Attachment{{Bytes: make([]byte, crossingLarge)}}, crossingLarge, true},
		{"held bytes stay in the page", []attach.Attachment{{Bytes: make([]byte, 4*crossingLarge), Held: &blob.Ref{}}}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := crossingSize(tt.atts)
			if n != tt.size || (n >= crossingLarge) != tt.large {
				t.Fatalf("crossingSize = %d (large %v), want %d (large %v)", n, n >= crossingLarge, tt.size, tt.large)
			}
		})
	}
}
