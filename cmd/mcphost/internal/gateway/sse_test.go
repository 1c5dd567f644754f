//go:build !js

package gateway

import (
	"strings"
	"testing"
	"time"
)

func TestReadSSE(t *testing.T) {
	t.Parallel()
	in := ": keep-alive\n\nid: 1\nevent: message\ndata: {\"a\":1}\n\n" +
		"id: 2\r\ndata: line1\r\ndata: line2\r\n\r\n" +
		"retry: 250\n\n" +
		"event: other\ndata: x\n\n" +
		"id: bad\x00id\ndata:nospace\n\n" +
		"data: unterminated"
	type ev struct {
		id, name, data string
		retry          time.Duration
	}
	var got []ev
	err := readSSE(strings.NewReader(in), "0", 1<<20, func(e sseEvent) error {
		got = append(got, ev{e.id, e.name, string(e.data), e.retry})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ev{
		{"1", "message", `{"a":1}`, 0},
		{"2", "", "line1\nline2", 0},
		{"2", "", "", 250 * time.Millisecond},
		{"2", "other", "x", 0},
		{"2", "", "nospace", 0},
	}
	if len(got) != len(want) {
		t.Fatalf("events = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := readSSE(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), "", 50, func(sseEvent) error { return nil }); err == nil {
		t.Error("an event over the limit was accepted")
	}
}

func FuzzReadSSE(f *testing.F) {
	f.Add("id: 1\ndata: {}\n\n")
	f.Add("data: a\r\ndata: b\r\n\r\nretry: 5\n\n")
	f.Add(":\n\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		readSSE(strings.NewReader(s), "", 1<<16, func(e sseEvent) error {
			if int64(len(e.data)) > 1<<16 {
				t.Fatalf("event of %d bytes over the limit", len(e.data))
			}
			return nil
		})
	})
}
