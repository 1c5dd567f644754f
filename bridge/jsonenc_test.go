package bridge

import (
	"bytes"
	stdjson "encoding/json"
	"strings"
	"testing"
)

var jsonStringCases = []string{
	"", "mcphost", "0.1.0", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "héllo wörld", "emoji 😀", "\u2028line\u2029para", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
	"100", "cursor/with?query=1&x=<2>",
}

// TestAppendJSONString: byte-identical to json.Marshal for every case.
func TestAppendJSONString(t *testing.T) {
	for _, s := range jsonStringCases {
		want, _ := stdjson.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := stdjson.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// TestHandWrittenFrames: the implementation, initialize's params and a list
// cursor's params are what encoding/json writes.
func TestReadParams(t *testing.T) {
	for _, uri := range []string{"", "bench://image.png", "docs://team/a b/<c>&d", "file:///ü/\u2028\"", "x\xffy", "\u2028\u2029", strings.Repeat("é", 300)} {
		want, _ := stdjson.Marshal(map[string]string{"uri": uri})
		if got := readParams(uri); !bytes.Equal(got, want) {
			t.Errorf("readParams(%q) = %s, want %s", uri, got, want)
		}
	}
}

func TestHandWrittenFrames(t *testing.T) {
	impls := []Implementation{
		{Name: "mcphost", Version: "0.1.0"},
		{},
		{Name: "a<b>", Version: "", Title: "T & co", Description: "d\n", WebsiteURL: "https://x.test/?a=1&b=2"},
		{Name: "icons", Version: "1", Icons: []Icon{{Src: "https://x.test/i.png", MIMEType: "image/png"}}},
	}
	for _, impl := range impls {
		want, _ := stdjson.Marshal(impl)
		if got := appendImplementation(nil, impl); !bytes.Equal(got, want) {
			t.Errorf("implementation %+v: got %s, want %s", impl, got, want)
		}
		for _, caps := range []string{`{}`, `{ "roots": {} }`} {
			s := &Session{o: Options{ClientInfo: impl, Capabilities: stdjson.RawMessage(caps)}}
			want, _ := stdjson.Marshal(map[string]any{"protocolVersion": "2025-11-25", "capabilities": stdjson.RawMessage(caps), "clientInfo": impl})
			got, err := s.initializeParams("2025-11-25")
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("initialize params (%s): got %s %v, want %s", caps, got, err, want)
			}
		}
	}
	s := &Session{o: Options{ClientInfo: impls[0], Capabilities: stdjson.RawMessage(`{"bad"`)}}
	if _, err := s.initializeParams("2025-11-25"); err == nil {
		t.Error("invalid capabilities encoded without an error")
	}
	for _, c := range jsonStringCases {
		want, _ := stdjson.Marshal(map[string]string{"cursor": c})
		if got := append(appendJSONString([]byte(`{"cursor":`), c), '}'); !bytes.Equal(got, want) {
			t.Errorf("cursor %q: got %s, want %s", c, got, want)
		}
	}
}
