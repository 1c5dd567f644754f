package text

import (
	"io"
	"regexp"
	"testing"
)

// TestMatchReader: Match runs its matcher on the reader's runes and
// advances past the match, as the regexp-taking Match it replaced did
// (here with a regexp as the matcher).
func TestMatchReader(t *testing.T) {
	s := ":微笑:"
	r := NewReader([]byte(s + "x"))
	reg := regexp.MustCompile(`:(\p{L}+):`)
	re := func(rr io.RuneReader) int {
		if m := reg.FindReaderSubmatchIndex(rr); m != nil {
			return m[1]
		}
		return -1
	}
	if !r.Match(re) {
		t.Fatal("no match cjk")
	}
	if line, _ := r.PeekLine(); string(line) != "x" {
		t.Fatalf("advanced to %q", line)
	}
	if r.Match(re) {
		t.Fatal("matched x")
	}
	if line, _ := r.PeekLine(); string(line) != "x" {
		t.Fatalf("moved to %q without a match", line)
	}
}
