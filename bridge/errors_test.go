package bridge

import "testing"

func TestSaysNotFound(t *testing.T) {
	for msg, want := range map[string]bool{
		"Resource not found": true, "NOT_FOUND": true, "notfound": true, "Not-Found: x": true,
		"not  found": false, "nothing found": false, "found not": false, "": false, "no": false,
		"resource x is NoT fOuNd": true, "not_": false, "knot found": true, // as the expression matched
	} {
		if got := saysNotFound(msg); got != want {
			t.Errorf("saysNotFound(%q) = %v, want %v", msg, got, want)
		}
	}
}
