package util

import "testing"

// TestCaseFoldingLazy: the folding map, now built on first use, folds as
// the table says (the CommonMark spec's link-label examples need it too).
func TestCaseFoldingLazy(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ABC", "abc"},
		{"ẞ", "ss"},    // U+1E9E, one rune to two
		{"ΑΒΓ", "αβγ"}, // Greek
		{"ǅ", "ǆ"},     // titlecase digraph
		{"plain", "plain"},
		{"Straße", "strasse"},
	} {
		if got := string(DoFullUnicodeCaseFolding([]byte(tc.in))); got != tc.want {
			t.Errorf("fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if n := len(unicodeCaseFoldings()); n != _unicodeCaseFoldingLength {
		t.Errorf("the map holds %d foldings, want %d", n, _unicodeCaseFoldingLength)
	}
}
