package attach

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzDecodeContents: any bytes either fail as a whole with CodeBadContents
// or give one attachment per element, in order, each either an error with
// its index or a well-formed attachment.
func FuzzDecodeContents(f *testing.F) {
	for _, tc := range readResultCases {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte(`{"contents":[{"uri":"m","mimeType":"image/png","blob":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}]}`))
	f.Add([]byte(`{"contents":[{"uri":"m","mimeType":"text/markdown","text":"[x](javascript:alert(1))"}]}`))
	f.Add([]byte(`{"contents":[{"uri":"m","mimeType":"application/json","text":"{"}]}`))
	f.Add([]byte(`{"contents":[{"uri":"m","mimeType":"image/png","blob":"iVBORw0KGgo8aHRtbD48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+"}]}`))
	f.Add([]byte(`{"contents":[{"uri":"m","mimeType":"text/markdown","text":"` + strings.Repeat("- ", 120) + `a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := &Options{MaxPartBytes: 1 << 16, MaxReadBytes: 1 << 17}
		atts, err := FromReadResult(data, opts)
		cs, derr := DecodeContents(data)
		if err != nil {
			if !errors.Is(err, ErrBadContents) || atts != nil || derr == nil {
				t.Fatalf("whole-result error %v with %d attachments, DecodeContents err %v", err, len(atts), derr)
			}
			return
		}
		if derr == nil && len(cs) != len(atts) {
			t.Fatalf("DecodeContents gave %d parts, FromReadResult %d", len(cs), len(atts))
		}
		var total int64
		for i, a := range atts {
			if a.Part != i || a.Warnings == nil {
				t.Fatalf("part %d: Part %d, Warnings %v", i, a.Part, a.Warnings)
			}
			switch a.Kind {
			case KindError:
				if a.Error == nil || a.Error.Index != i || a.Error.Code == "" {
					t.Fatalf("part %d: error attachment %+v", i, a.Error)
				}
			case KindText, KindBinary:
				if a.Error != nil || a.Size > opts.MaxPartBytes {
					t.Fatalf("part %d: %+v", i, a)
				}
				if a.Kind == KindBinary && (int64(len(a.Bytes)) != a.Size || a.WireSize != EncodedLen(a.Size)) {
					t.Fatalf("part %d: %d bytes, size %d, wire %d", i, len(a.Bytes), a.Size, a.WireSize)
				}
				if a.ForwardAsImage && (a.MIMEType != a.SniffedMIMEType || a.MIMEType == svgType) {
					t.Fatalf("part %d forwards %q sniffed %q", i, a.MIMEType, a.SniffedMIMEType)
				}
				if a.ForwardAsImage {
					if err := checkImage(a.MIMEType, a.Bytes); err != nil {
						t.Fatalf("part %d forwards an invalid %s: %v", i, a.MIMEType, err)
					}
				}
				if a.HTML != "" {
					if err := checkSafeHTML(a.HTML); err != nil {
						t.Fatalf("part %d html: %v", i, err)
					}
				}
				total += a.Size
			default:
				t.Fatalf("part %d: kind %q", i, a.Kind)
			}
		}
		if total > opts.MaxReadBytes {
			t.Fatalf("read total %d over limit", total)
		}
		if _, err := json.Marshal(atts); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzRenderMarkdown: whatever the input, the output satisfies the
// parsed-HTML safety property and rendering is deterministic.
func FuzzRenderMarkdown(f *testing.F) {
	for _, src := range xssCorpus(f) {
		f.Add(string(src), "https://docs.example/a/b.md", false)
		f.Add(string(src), "", true)
	}
	f.Add("# t\n\n[x](y) ![i](https://i.example/p.png) <https://a.example>", "docs://x", false)
	f.Add("| a |\n|---|\n| [l](mailto:a@b.example) |", "https://h.example/", true)
	f.Fuzz(func(t *testing.T, src, base string, remote bool) {
		out, err := RenderMarkdown([]byte(src), base, remote)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSafeHTML(out); err != nil {
			t.Fatalf("%v\ninput: %q base %q\noutput: %s", err, src, base, out)
		}
		if again, _ := RenderMarkdown([]byte(src), base, remote); again != out {
			t.Fatal("non-deterministic output")
		}
	})
}

// FuzzExpand: templates never panic; a simple {var} value always
// round-trips through percent-decoding and never adds "/", "?" or "#";
// "." and ".." are refused.
func FuzzExpand(f *testing.F) {
	for _, v := range rfcVars {
		f.Add("{var}{+hello}{/who}{?x,y}", v)
	}
	for _, s := range []string{"../../secrets", "a/b?x", ".", "..", "", "%zz", "Ünï😀", "a,b", "{x}"} {
		f.Add("docs://team/{team}/policy/{name}", s)
	}
	f.Add("{", "x")
	f.Add("{var:3}{#var}{;var}{&var}{.var}", "value")
	f.Fuzz(func(t *testing.T, tmpl, val string) {
		vars := map[string]string{"var": val, "team": val, "name": val, "x": val, "hello": val, "who": val}
		out, err := Expand(tmpl, vars)
		syntaxOK := parseTemplate(tmpl, func(string) {}, func(expression) error { return nil }) == nil
		var ee *ExpandError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("error of type %T", err)
		}
		if syntaxOK != (err == nil || ee.Var != "") {
			t.Fatalf("Expand(%q) = %q, %v but syntax ok = %v", tmpl, out, err, syntaxOK)
		}
		if !syntaxOK && TemplateVars(tmpl) != nil {
			t.Fatalf("TemplateVars of a malformed template = %q", TemplateVars(tmpl))
		}
		simple, err := Expand("p/{var}/q", map[string]string{"var": val})
		if val == "." || val == ".." {
			if err == nil {
				t.Fatalf("%q accepted: %q", val, simple)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		seg := strings.TrimSuffix(strings.TrimPrefix(simple, "p/"), "/q")
		if strings.ContainsAny(seg, "/?#") {
			t.Fatalf("%q expanded to a segment with a delimiter: %q", val, seg)
		}
		if back, err := url.PathUnescape(seg); err != nil || back != val {
			t.Fatalf("%q -> %q -> %q, %v", val, seg, back, err)
		}
	})
}
