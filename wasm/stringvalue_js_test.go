package main

import (
	"strings"
	"syscall/js"
	"testing"
)

// TestStringValue: a string that crosses in pieces is the string one
// TextDecoder call makes of the same bytes, wherever the cuts fall:
// between multi-byte sequences, beside invalid ones, at the edges.
func TestStringValue(t *testing.T) {
	ascii := strings.Repeat("abcdefghij", 30_000) // 300,000 bytes
	tests := []struct {
		name string
		s    string
	}{
		{"empty", ""},
		{"short", "héllo — 日本"},
		{"two pieces exactly", strings.Repeat("x", 2*stringPiece)},
		{"one byte over two pieces", strings.Repeat("x", 2*stringPiece+1)},
		{"ascii", ascii},
		{"three-byte runes across every cut", strings.Repeat("日本語", 50_000)},
		{"four-byte runes across every cut", strings.Repeat("😀", 60_000)},
		{"a rune straddling the first cut", strings.Repeat("x", stringPiece-1) + "😀" + ascii},
		{"a rune at the last byte", ascii + "—"},
		{"mostly ASCII, rare dashes", strings.Repeat("## 5.40.0 — 2026-11-28\n\n- Fixed: `POST /v5/refunds`.\n", 8_000)},
		{"lone continuation bytes at a cut", strings.Repeat("x", stringPiece-2) + strings.Repeat("\x80", 8) + ascii},
		{"a truncated sequence before a cut", strings.Repeat("x", stringPiece-2) + "\xe2\x80" + ascii},
		{"a truncated sequence at the end", ascii + "\xf0\x9f\x98"},
		{"continuation bytes only", strings.Repeat("\xbf", 3*stringPiece+5)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := js.ValueOf(tc.s)
			got := stringValue(tc.s)
			if got.Type() != js.TypeString {
				t.Fatalf("type %v, want string", got.Type())
			}
			if !got.Equal(want) {
				t.Fatalf("pieces give %d UTF-16 units, one decode %d: not the same string", got.Get("length").Int(), want.Get("length").Int())
			}
			if tc.s != "" && strings.ToValidUTF8(tc.s, "\uFFFD") == tc.s && got.String() != tc.s {
				t.Fatal("the string does not come back as its bytes")
			}
		})
	}
}

// TestParseJSONLarge: JSON text over two pieces parses as JSON.parse parses
// it whole (strings with escapes and multi-byte runes cut anywhere).
func TestParseJSONLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; i < 20_000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"résumé — \u00e9\"q\" 日本 😀","n":12345}`)
	}
	b.WriteString(`]}`)
	src := b.String()
	if len(src) <= 2*stringPiece {
		t.Fatalf("the document is %d bytes: not over two pieces", len(src))
	}
	got := js.Global().Get("JSON").Call("stringify", parseJSON([]byte(src))).String()
	want := js.Global().Get("JSON").Call("stringify", jsParse.Invoke(src)).String()
	if got != want {
		t.Fatal("JSON parsed from pieces differs from JSON parsed whole")
	}
}
