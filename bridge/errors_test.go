package bridge

import (
	"strings"
	"testing"
)

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

// TestErrorQuotesLongURIShort: a message quotes at most 200 bytes of a URI
// (cut at a rune boundary, its length named); the URI field keeps it whole.
func TestErrorQuotesLongURIShort(t *testing.T) {
	for _, c := range []struct {
		uri  string
		want string
	}{
		{"docs://a/b", `resources/read: gone (uri "docs://a/b")`},
		{strings.Repeat("a", 200), `resources/read: gone (uri "` + strings.Repeat("a", 200) + `")`},
		{strings.Repeat("a", 201), `resources/read: gone (uri "` + strings.Repeat("a", 200) + `"… (201 bytes))`},
		// é is 2 bytes: byte 200 is its second, so the cut falls before it.
		{strings.Repeat("a", 199) + "é" + strings.Repeat("b", 5<<20), `resources/read: gone (uri "` + strings.Repeat("a", 199) + `"… (5243081 bytes))`},
	} {
		e := &Error{Kind: KindNotFound, Method: "resources/read", URI: c.uri, Message: "gone"}
		if got := e.Error(); got != c.want {
			t.Errorf("uri of %d bytes: %q, want %q", len(c.uri), got[:min(len(got), 300)], c.want)
		}
		if e.URI != c.uri {
			t.Errorf("uri field changed")
		}
	}
}

// TestPeerMessage: an error the peer answered with keeps its message as
// sent; a local one has none.
func TestPeerMessage(t *testing.T) {
	e := fromWire("resources/read", "docs://a", &wireError{Code: -32602, Message: "no such doc: docs://a"})
	if m, ok := e.PeerMessage(); !ok || m != "no such doc: docs://a" {
		t.Errorf("wire error: %q %v", m, ok)
	}
	if m, ok := newError(KindTimeout, ErrTimeout, "resources/read", "", "no response").PeerMessage(); ok || m != "" {
		t.Errorf("local error: %q %v", m, ok)
	}
}
