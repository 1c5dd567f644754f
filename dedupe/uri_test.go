package dedupe

import "testing"

func TestNormalizeURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTP://Example.COM/a", "http://example.com/a"},
		{"http://example.com:80/a", "http://example.com/a"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"ws://h:80/mcp", "ws://h/mcp"},
		{"wss://h:443/mcp", "wss://h/mcp"},
		{"https://example.com:80/a", "https://example.com:80/a"}, // not the default for https
		{"http://example.com:/a", "http://example.com/a"},        // empty port
		{"http://example.com", "http://example.com/"},            // empty path, §6.2.3
		{"http://example.com?q", "http://example.com/?q"},
		{"demo://host", "demo://host"}, // no scheme-based rules for unknown schemes
		{"demo://host:80/x", "demo://host:80/x"},
		{"file:///A/%7euser", "file:///A/~user"},           // unreserved decoded, path case kept
		{"file:///a%2fb", "file:///a%2Fb"},                 // reserved stays encoded, hex uppercased
		{"file:///a%2Fb", "file:///a%2Fb"},                 // and is not decoded into a '/'
		{"mem://x/%41%62", "mem://x/Ab"},                   // ALPHA is unreserved
		{"mem://%41B.example/", "mem://ab.example/"},       // decoded host letters are lowercased
		{"mem://h%c3%a9/", "mem://h%C3%A9/"},               // escapes in host keep uppercase hex
		{"mem://User:Pass@Host/", "mem://User:Pass@host/"}, // userinfo is case-sensitive
		{"http://[::1]:80/", "http://[::1]/"},
		{"http://[FE80::1]/", "http://[fe80::1]/"},
		{"file:///a/./b/../c", "file:///a/./b/../c"}, // never removes dot-segments
		{"file:///a/%2E%2E/c", "file:///a/../c"},     // decoding '.' is allowed; no resolution follows
		{"demo://h:port/x", "demo://h:port/x"},       // not a port: left alone
		{"DEMO://H:port/x", "demo://H:port/x"},
		{"no scheme/%7e", "no scheme/%7e"}, // not absolute: left alone
		{"%70A0:", "%70A0:"},
		{"A://A:%30", "a://A:%30"},
		{"bad%zzescape", "bad%zzescape"},
		{"mem://h/%%61%7e", "mem://h/%%61%7e"}, // a stray '%': the component is left as is
		{"trailing%4", "trailing%4"},
		{"mailto:Joe@Example.COM", "mailto:Joe@Example.COM"}, // no authority, nothing to lowercase
		{"", ""},
		{"A://::", "a://::"},                   // a colon in the host: left alone
		{"HTTP://[::1:80/", "http://[::1:80/"}, // unterminated IP literal
	}
	for _, tt := range tests {
		if got := normalizeURI(tt.in); got != tt.want {
			t.Errorf("normalizeURI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLedgerURIComparison(t *testing.T) {
	for _, normalize := range []bool{false, true} {
		l := New(Options{NormalizeURIs: normalize})
		mustAttach(t, l, "s", "HTTP://Example.com:80/Doc%7e", textPart("HTTP://Example.com:80/Doc%7e", "x"))
		_, ok := l.Lookup("s", "http://example.com/Doc~")
		if ok != normalize {
			t.Errorf("NormalizeURIs=%v: equivalent URI found = %v", normalize, ok)
		}
		if _, ok := l.Lookup("s", "http://example.com/doc~"); ok {
			t.Errorf("NormalizeURIs=%v: path case must matter", normalize)
		}
		if _, ok := l.Lookup("s", "HTTP://Example.com:80/Doc%7e"); !ok {
			t.Errorf("NormalizeURIs=%v: the exact URI must be found", normalize)
		}
	}
}

func FuzzNormalizeURI(f *testing.F) {
	for _, s := range []string{"HTTP://Example.COM:80", "file:///a%2fb/%7e", "mem://%41B/", "http://[::1]:80/",
		"demo://h:port/x", "x%", "%%41", "http://a@b@C:443?#", "wss://H:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := normalizeURI(s)
		if again := normalizeURI(n); again != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, n, again)
		}
	})
}
