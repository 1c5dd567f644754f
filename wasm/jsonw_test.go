package main

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
)

// sameJSON reports whether two JSON texts decode to equal values.
func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	if !json.Valid(got) {
		t.Fatalf("invalid JSON: %s", got)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("mismatch\n got: %s\nwant: %s", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

var stringCases = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnewline\nreturn\r", "\x00\x01\x1f\x7f",
	"ünïcödé façade", "emoji 😀 outside the BMP", "\u2028\u2029 separators", "invalid \xff\xfe bytes",
	"truncated \xe2\x82", "</script><!-- html -->", "\ufffd",
	// Long enough for the eight-byte fast path, with specials at odd offsets.
	"docs://team/platform/onboarding/welcome.md and a \"quote\" at 53, a tab\there, then ü",
	"0123456789abcdef0123456789abcdef\x1f0123456789abcdef\\0123456789abcdef\xff01234567",
}

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range stringCases {
		t.Run(fmt.Sprintf("%q", s), func(t *testing.T) {
			want, _ := json.Marshal(s)
			sameJSON(t, appendString(nil, s), want)
		})
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		want, _ := json.Marshal(s)
		sameJSON(t, got, want)
	})
}

func resourceCases() []attach.Resource {
	return []attach.Resource{
		{URI: "docs://a", Name: "a"},
		{URI: "docs://team/x/ünï.md", Name: "ünï.md", Title: "😀 Title \"q\"", Description: "line\nbreak",
			MIMEType: "text/markdown", Size: ptr(int64(0)),
			Icons:       []attach.Icon{{Src: "https://x/i.png", MIMEType: "image/png", Sizes: []string{"48x48", "any"}, Theme: "dark"}, {Src: "data:,"}},
			Annotations: &attach.Annotations{Audience: []string{"user"}, Priority: ptr(0.5), LastModified: "2026-01-01T00:00:00Z"},
			Meta:        json.RawMessage(`{"k":[1,2,{"z":null}]}`)},
		{URI: "u", Name: "n", Size: ptr(int64(1 << 40)), Annotations: &attach.Annotations{Priority: ptr(0.0)}},
		{URI: "u", Name: "n", Annotations: &attach.Annotations{}},
	}
}

func TestAppendResource(t *testing.T) {
	t.Parallel()
	for i, r := range resourceCases() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			want, _ := json.Marshal(r)
			sameJSON(t, appendResource(nil, &r), want)
		})
	}
}

func TestAppendResourcesFromBridge(t *testing.T) {
	t.Parallel()
	in := []bridge.Resource{
		{URI: "docs://a", Name: "a", Icons: []bridge.Icon{{Src: "https://i"}}, Annotations: &bridge.Annotations{Priority: ptr(1.0)}},
		{URI: "docs://b", Name: "b", Size: ptr(int64(7)), Meta: json.RawMessage(`{"x":1}`)},
	}
	want, _ := json.Marshal(in)
	sameJSON(t, appendResources(nil, in), want)
	sameJSON(t, appendResources(nil, nil), []byte(`[]`))

	ts := []bridge.ResourceTemplate{{URITemplate: "docs://team/{team}/policy/{name}", Name: "team-policy", Title: "Policy",
		Icons: []bridge.Icon{{Src: "data:,", Sizes: []string{"any"}}}, Annotations: &bridge.Annotations{Audience: []string{"assistant"}}}}
	want, _ = json.Marshal(ts)
	sameJSON(t, appendTemplates(nil, ts), want)
}

// TestResourcesCap: the buffer resources() sizes holds the whole list
// when nothing is escaped (every field set, the longest size and
// priority), so appendResources never grows it.
func TestResourcesCap(t *testing.T) {
	t.Parallel()
	big := int64(math.MinInt64)
	prio := -1.2345678901234567e-300
	full := bridge.Resource{URI: "docs://team/x/doc.md", Name: "doc.md", Title: "Title", Description: "About it.",
		MIMEType: "text/markdown", Size: &big, Meta: json.RawMessage(`{"k":1}`),
		Icons:       []bridge.Icon{{Src: "https://x/i.png", MIMEType: "image/png", Sizes: []string{"48x48", "any"}, Theme: "dark"}, {}},
		Annotations: &bridge.Annotations{Audience: []string{"user", "assistant"}, Priority: &prio, LastModified: "2026-01-01T00:00:00Z"}}
	for _, rs := range [][]bridge.Resource{nil, {{}}, {full}, {full, {URI: "u", Name: "n", Annotations: &bridge.Annotations{}}}} {
		if n, c := len(appendResources(nil, rs)), resourcesCap(rs); n > c {
			t.Errorf("%d descriptors: appendResources wrote %d bytes, resourcesCap allows %d", len(rs), n, c)
		}
	}
}

func TestAppendMatches(t *testing.T) {
	t.Parallel()
	rs := resourceCases()
	ms := []attach.Match{
		{Resource: &rs[1], Score: 136, Highlights: attach.Highlights{Name: []attach.Range{{0, 1}, {2, 4}}, Title: []attach.Range{{3, 9}}}},
		{Template: &attach.ResourceTemplate{URITemplate: "t/{x}", Name: "t", Description: "d"}, Score: -1,
			Highlights: attach.Highlights{URI: []attach.Range{{0, 1}}, Description: []attach.Range{{0, 1}}}},
		{Resource: &rs[0]},
	}
	want, _ := json.Marshal(ms)
	sameJSON(t, appendMatches(nil, ms, nil), want)
	sameJSON(t, appendMatches(nil, nil, nil), []byte(`[]`))

	// With the host's hint: tokens when the size is known, withheld and
	// mcpApp when the entry would be kept from the model.
	size := int64(400_001)
	app := attach.Resource{URI: "ui://v", Name: "v"}
	big := attach.Resource{URI: "docs://big", Name: "big", Size: &size}
	hint := func(uri, mime string, size *int64) (int64, string) {
		switch {
		case uri == "ui://v":
			return -1, "mcp_app"
		case size != nil:
			return (*size + 3) / 4, "too_large"
		}
		return -1, ""
	}
	got := appendMatches(nil, []attach.Match{{Resource: &app}, {Resource: &big}, {Template: &attach.ResourceTemplate{URITemplate: "t/{x}", Name: "t"}}}, hint)
	sameJSON(t, got, []byte(`[{"resource":{"uri":"ui://v","name":"v"},"score":0,"highlights":{},"withheld":"mcp_app","mcpApp":true},`+
		`{"resource":{"uri":"docs://big","name":"big","size":400001},"score":0,"highlights":{},"tokens":100001,"withheld":"too_large"},`+
		`{"template":{"uriTemplate":"t/{x}","name":"t"},"score":0,"highlights":{}}]`))
}

// TestAppendAttachmentMeta compares with the attachment's own MarshalJSON
// (the contract shape) minus the payloads, which cross separately.
func TestAppendAttachmentMeta(t *testing.T) {
	t.Parallel()
	text := "# Title\n\nbody"
	atts := attach.FromContents([]attach.Contents{
		{URI: "docs://a.md", MIMEType: "text/markdown", Text: &text, Meta: json.RawMessage(`{"m":true}`)},
		{URI: "docs://b.png", MIMEType: "image/png", Blob: ptr("iVBORw0KGgo=")},
		{URI: "docs://c", Blob: ptr("@@@@")},
		{URI: "docs://d"},
		{URI: "ui://app/v.html", MIMEType: "Text/HTML; charset=utf-8; Profile=mcp-app", Text: ptr("<!doctype html><p>x"),
			Meta: json.RawMessage(`{"ui":{"csp":{"connectDomains":["https://a.example"]},"permissions":{"camera":{}}}}`)},
	}, nil)
	atts[0].State = "stale"
	atts[4].Withheld = "mcp_app"
	for i := range atts {
		a := &atts[i]
		t.Run(a.URI, func(t *testing.T) {
			full, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal(full, &want); err != nil {
				t.Fatal(err)
			}
			delete(want, "text")
			delete(want, "html")
			want["forModel"] = i == 0
			if want["state"] == nil {
				want["state"] = "fresh"
			}
			if e, ok := want["error"].(map[string]any); ok {
				// The error crosses as {message, kind, code, uri, index, data}.
				off := e["offset"].(float64)
				delete(e, "offset")
				if off >= 0 {
					e["data"] = fmt.Sprintf(`{"offset":%d}`, int64(off))
				}
				if e["uri"] == "" {
					delete(e, "uri")
				}
			}
			w, _ := json.Marshal(want)
			sameJSON(t, appendAttachmentMeta(nil, a, i == 0), w)
		})
	}
	if atts[2].Kind != attach.KindError || atts[3].Kind != attach.KindError {
		t.Fatalf("fixture: want error parts, got %q and %q", atts[2].Kind, atts[3].Kind)
	}
}

func benchMatches(n int) []attach.Match {
	ms := make([]attach.Match, n)
	for i := range ms {
		r := attach.Resource{URI: fmt.Sprintf("docs://team/platform/runbook/doc-%d.md", i), Name: fmt.Sprintf("doc-%d.md", i),
			Title: "Deploy rollback runbook", Description: "How to roll back a failed deploy within five minutes, step by step.",
			MIMEType: "text/markdown", Size: ptr(int64(1234)), Annotations: &attach.Annotations{LastModified: "2026-11-30T10:57:34Z"}}
		ms[i] = attach.Match{Resource: &r, Score: 100 + i,
			Highlights: attach.Highlights{Name: []attach.Range{{0, 2}}, Title: []attach.Range{{0, 1}, {7, 9}}, URI: []attach.Range{{12, 14}}}}
	}
	return ms
}

// BenchmarkMatches is the per-keystroke cost of crossing 50 picker matches.
func BenchmarkMatches(b *testing.B) {
	ms := benchMatches(50)
	b.Run("appendMatches", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 64<<10)
		for b.Loop() {
			buf = appendMatches(buf[:0], ms, nil)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			out, _ := json.Marshal(ms)
			n = len(out)
		}
		b.SetBytes(int64(n))
	})
}

// BenchmarkResources is resources() over 10,000 descriptors.
func BenchmarkResources(b *testing.B) {
	ms := benchMatches(10000)
	rs := make([]bridge.Resource, len(ms))
	for i, m := range ms {
		rs[i] = bridge.Resource{URI: m.Resource.URI, Name: m.Resource.Name, Title: m.Resource.Title,
			Description: m.Resource.Description, MIMEType: m.Resource.MIMEType, Size: m.Resource.Size,
			Annotations: (*bridge.Annotations)(m.Resource.Annotations)}
	}
	b.Run("appendResources", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			n = len(appendResources(make([]byte, 0, resourcesCap(rs)), rs))
		}
		b.SetBytes(int64(n))
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			out, _ := json.Marshal(rs)
			n = len(out)
		}
		b.SetBytes(int64(n))
	})
}

// TestAppendInfo: info()'s JSON parses to what json.Marshal writes for the
// handshake's outcome ({} for absent capabilities).
func TestAppendInfo(t *testing.T) {
	for _, ir := range []bridge.InitializeResult{
		{},
		{ProtocolVersion: "2025-11-25", RawCapabilities: json.RawMessage(`{ "resources" : {"subscribe":true}, "x":"<&>" }`),
			ServerInfo: bridge.Implementation{Name: "docs", Version: "1.0"}},
		{ProtocolVersion: "2026-07-28", RawCapabilities: json.RawMessage(`null`), Instructions: "Use </script> \u2028 ü",
			ServerInfo: bridge.Implementation{Name: "n\"q", Version: "v", Title: "T", Description: "d", WebsiteURL: "https://x/?a=1&b=2",
				Icons: []bridge.Icon{{Src: "https://x/i.png", MIMEType: "image/png", Sizes: []string{"48x48", "any"}, Theme: "dark"}, {Src: "data:,"}}}},
	} {
		for _, name := range stringCases {
			ir := ir
			ir.ServerInfo.Name = name
			want := ir
			if len(want.RawCapabilities) == 0 {
				want.RawCapabilities = json.RawMessage(`{}`)
			}
			w, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, appendInfo(nil, &ir), w)
		}
	}
}
