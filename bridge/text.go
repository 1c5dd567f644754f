package bridge

import "unicode/utf8"

// truncateBytes cuts s to at most n bytes on a rune boundary, marking the
// cut with "…" (counted in n).
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	i := n - len(ell)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + ell
}
