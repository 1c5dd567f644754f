package attach

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func ptr(s string) *string { return &s }

func b64(b []byte) *string { s := base64.StdEncoding.EncodeToString(b); return &s }

func hasWarning(a Attachment, parts ...string) bool {
	for _, w := range a.Warnings {
		ok := true
		for _, p := range parts {
			if !strings.Contains(w, p) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestFromContentsTable covers issue 3 §2–§6 part by part: each case is
// one part, and its expectations are the attachment's fields.
func TestFromContentsTable(t *testing.T) {
	png := readFixture(t, "image.png")
	jpg := readFixture(t, "photo.jpg")
	jpgAsPNG := readFixture(t, "jpeg-declared-png.png")
	gifb := readFixture(t, "anim.gif")
	webp := readFixture(t, "lossless.webp")
	pdf := readFixture(t, "doc.pdf")
	svg := readFixture(t, "drawing.svg")
	csv := readFixture(t, "table.csv")
	noise := []byte{0x00, 0xff, 0x13, 0x37, 0x80, 0x81, 0xfe, 0x01, 0x02, 0x9c}

	type want struct {
		kind           string
		mime           string
		sniffed        string
		forward        bool
		presentable    bool
		text           *string
		code           string
		warnings       [][]string // each inner list: substrings of one warning
		noWarnings     bool
		htmlContains   string
		size, wireSize int64
	}
	cases := []struct {
		name string
		in   Contents
		opts *Options
		want want
	}{
		{"png", Contents{URI: "mem://a.png", MIMEType: "image/png", Blob: b64(png)},
			nil, want{kind: KindBinary, mime: "image/png", sniffed: "image/png", forward: true, presentable: true, noWarnings: true,
				size: int64(len(png)), wireSize: EncodedLen(int64(len(png)))}},
		{"jpeg", Contents{URI: "mem://a.jpg", MIMEType: "image/jpeg", Blob: b64(jpg)},
			nil, want{kind: KindBinary, mime: "image/jpeg", sniffed: "image/jpeg", forward: true, presentable: true, noWarnings: true}},
		{"jpeg declared image/jpg alias", Contents{URI: "mem://a.jpg", MIMEType: "image/jpg", Blob: b64(jpg)},
			nil, want{kind: KindBinary, mime: "image/jpeg", sniffed: "image/jpeg", forward: true, presentable: true, noWarnings: true}},
		{"gif", Contents{URI: "mem://a.gif", MIMEType: "image/gif", Blob: b64(gifb)},
			nil, want{kind: KindBinary, mime: "image/gif", sniffed: "image/gif", forward: true, presentable: true, noWarnings: true}},
		{"webp", Contents{URI: "mem://a.webp", MIMEType: "image/webp", Blob: b64(webp)},
			nil, want{kind: KindBinary, mime: "image/webp", sniffed: "image/webp", forward: true, presentable: true, noWarnings: true}},
		{"jpeg declared png goes out as jpeg", Contents{URI: "file:///shots/a.png", MIMEType: "image/png", Blob: b64(jpgAsPNG)},
			nil, want{kind: KindBinary, mime: "image/jpeg", sniffed: "image/jpeg", forward: true, presentable: true,
				warnings: [][]string{{"declared image/png", "image/jpeg"}}}},
		{"csv declared png is not an image", Contents{URI: "mem://t.png", MIMEType: "image/png", Blob: b64(csv)},
			nil, want{kind: KindBinary, mime: "text/csv", sniffed: "text/csv", presentable: true, text: ptr(csvFixture),
				warnings: [][]string{{"declared image/png", "text/csv", "not forwarded as an image"}}}},
		{"png signature then html is not an image (issue 14 §5)", Contents{URI: "mem://p.png", MIMEType: "image/png",
			Blob: b64([]byte("\x89PNG\r\n\x1a\n<!DOCTYPE html><html><script>alert(1)</script></html>"))},
			nil, want{kind: KindBinary, mime: "application/octet-stream", sniffed: "image/png",
				warnings: [][]string{{"not a valid image/png", "PNG signature but no valid IHDR chunk", "not forwarded as an image"},
					{"cannot be presented"}}}},
		{"markdown nested past the bound is plain text (issue 14 §2)", Contents{URI: "mem://m.md", MIMEType: "text/markdown",
			Text: ptr(strings.Repeat("- ", 10000) + "a")},
			nil, want{kind: KindText, mime: "text/markdown", presentable: true, htmlContains: "<pre>- - - ",
				warnings: [][]string{{"nests lists and block quotes", "100-level bound", "shown as escaped plain text"}}}},
		{"noise declared png is not an image", Contents{URI: "mem://n.png", MIMEType: "image/png", Blob: b64(noise)},
			nil, want{kind: KindBinary, mime: "application/octet-stream", sniffed: "application/octet-stream",
				warnings: [][]string{{"declared image/png", "not an image"}, {"cannot be presented"}}}},
		{"svg is never forwarded", Contents{URI: "mem://d.svg", MIMEType: "image/svg+xml", Blob: b64(svg)},
			nil, want{kind: KindBinary, mime: "image/svg+xml", sniffed: "image/svg+xml", presentable: true, text: ptr(hostileSVG),
				warnings: [][]string{{"SVG is never forwarded"}}}},
		{"svg declared png is never forwarded", Contents{URI: "mem://d.png", MIMEType: "image/png", Blob: b64(svg)},
			nil, want{kind: KindBinary, mime: "image/svg+xml", sniffed: "image/svg+xml", presentable: true,
				warnings: [][]string{{"declared image/png", "image/svg+xml"}, {"SVG is never forwarded"}}}},
		{"svg even when accepted", Contents{URI: "mem://d.svg", MIMEType: "image/svg+xml", Blob: b64(svg)},
			&Options{AcceptImages: []string{"image/svg+xml", "image/png"}},
			want{kind: KindBinary, mime: "image/svg+xml", sniffed: "image/svg+xml", presentable: true,
				warnings: [][]string{{"SVG is never forwarded"}}}},
		{"pdf", Contents{URI: "mem://d.pdf", MIMEType: "application/pdf", Blob: b64(pdf)},
			nil, want{kind: KindBinary, mime: "application/pdf", sniffed: "application/pdf",
				warnings: [][]string{{"application/pdf cannot be presented"}}}},
		{"pdf declared text/plain is flagged", Contents{URI: "mem://d.txt", MIMEType: "text/plain", Blob: b64(pdf)},
			nil, want{kind: KindBinary, mime: "application/pdf", sniffed: "application/pdf",
				warnings: [][]string{{"declared text/plain", "application/pdf"}}}},
		{"binary declared text is flagged", Contents{URI: "mem://d.txt", MIMEType: "text/plain", Blob: b64(noise)},
			nil, want{kind: KindBinary, mime: "application/octet-stream", sniffed: "application/octet-stream",
				warnings: [][]string{{"declared text/plain", "not text"}}}},
		{"png declared none", Contents{URI: "mem://x", Blob: b64(png)},
			nil, want{kind: KindBinary, mime: "image/png", sniffed: "image/png", forward: true, presentable: true,
				warnings: [][]string{{"declared: none", "image/png"}}}},
		{"png with .jpg uri and no type: no guess from extension", Contents{URI: "file:///a.jpg", Blob: b64(png)},
			nil, want{kind: KindBinary, mime: "image/png", sniffed: "image/png", forward: true, presentable: true,
				warnings: [][]string{{"declared: none"}}}},
		{"unsupported type preserved", Contents{URI: "mem://x.bin", MIMEType: "application/x-custom", Blob: b64(noise)},
			nil, want{kind: KindBinary, mime: "application/x-custom", sniffed: "application/octet-stream",
				warnings: [][]string{{"application/x-custom cannot be presented", "kept"}}}},
		{"gif not in accept list", Contents{URI: "mem://a.gif", MIMEType: "image/gif", Blob: b64(gifb)},
			&Options{AcceptImages: []string{"image/png"}},
			want{kind: KindBinary, mime: "image/gif", sniffed: "image/gif",
				warnings: [][]string{{"image/gif is not an accepted image type", "image/png"}}}},
		{"text blob declared markdown", Contents{URI: "https://ex.com/d/r.md", MIMEType: "text/markdown", Blob: b64([]byte("# T\n\n[rel](x.html)"))},
			nil, want{kind: KindBinary, mime: "text/markdown", sniffed: "text/plain", presentable: true, text: ptr("# T\n\n[rel](x.html)"),
				noWarnings: true, htmlContains: `href="https://ex.com/d/x.html"`}},

		{"text plain", Contents{URI: "mem://t", MIMEType: "text/plain", Text: ptr("hello world")},
			nil, want{kind: KindText, mime: "text/plain", sniffed: "text/plain", presentable: true, text: ptr("hello world"),
				noWarnings: true, size: 11, wireSize: 11}},
		{"empty text is a valid document", Contents{URI: "mem://e", MIMEType: "text/plain", Text: ptr("")},
			nil, want{kind: KindText, mime: "text/plain", presentable: true, text: ptr(""), noWarnings: true}},
		{"text declared none", Contents{URI: "file:///notes.md", Text: ptr("# not guessed")},
			nil, want{kind: KindText, mime: "text/plain", presentable: true, text: ptr("# not guessed"),
				warnings: [][]string{{"declared: none", "text/plain"}}}},
		{"text declared image", Contents{URI: "mem://t", MIMEType: "image/png", Text: ptr("iVBOR")},
			nil, want{kind: KindText, mime: "text/plain", presentable: true, text: ptr("iVBOR"),
				warnings: [][]string{{"declared image/png", "not forwarded as an image"}}}},
		{"markdown", Contents{URI: "mem://m", MIMEType: "text/markdown; charset=utf-8", Text: ptr("# Hi\n\n*x*")},
			nil, want{kind: KindText, mime: "text/markdown", presentable: true, noWarnings: true, htmlContains: "<h1>Hi</h1>"}},
		{"x-markdown", Contents{URI: "mem://m", MIMEType: "text/x-markdown", Text: ptr("~~gone~~")},
			nil, want{kind: KindText, mime: "text/x-markdown", presentable: true, noWarnings: true, htmlContains: "<del>gone</del>"}},
		{"markdown that is JSON", Contents{URI: "mem://m", MIMEType: "text/markdown", Text: ptr(`{"a": [1, 2]}`)},
			nil, want{kind: KindText, mime: "text/markdown", presentable: true,
				warnings: [][]string{{"declared text/markdown", "JSON"}}}},
		{"json that parses", Contents{URI: "mem://j", MIMEType: "application/json", Text: ptr(`{"a":1}`)},
			nil, want{kind: KindText, mime: "application/json", sniffed: "application/json", presentable: true, noWarnings: true}},
		{"json that does not parse", Contents{URI: "mem://j", MIMEType: "application/json", Text: ptr(`{"a":`)},
			nil, want{kind: KindText, mime: "application/json", presentable: true,
				warnings: [][]string{{"declared application/json", "does not parse"}}}},
		{"+json that does not parse", Contents{URI: "mem://j", MIMEType: "application/ld+json", Text: ptr(`nope`)},
			nil, want{kind: KindText, mime: "application/ld+json", presentable: true,
				warnings: [][]string{{"does not parse"}}}},
		{"malformed mime type", Contents{URI: "mem://t", MIMEType: "not a type", Text: ptr("x")},
			nil, want{kind: KindText, mime: "text/plain", presentable: true,
				warnings: [][]string{{`"not a type" is not a valid media type`}}}},

		{"neither payload", Contents{URI: "mem://empty", MIMEType: "text/plain"},
			nil, want{kind: KindError, code: CodeNeitherPayload}},
		{"both payloads", Contents{URI: "mem://both", Text: ptr("a"), Blob: ptr("YQ==")},
			nil, want{kind: KindError, code: CodeBothPayloads}},
		{"missing uri", Contents{Text: ptr("a")},
			nil, want{kind: KindError, code: CodeMissingURI}},
		{"bad base64", Contents{URI: "mem://b", Blob: ptr("AAA*")},
			nil, want{kind: KindError, code: CodeBadBase64}},
		{"unpadded base64", Contents{URI: "mem://b", Blob: ptr("YQ")},
			nil, want{kind: KindError, code: CodeBadBase64}},
		{"url-safe base64", Contents{URI: "mem://b", Blob: ptr("__8=")},
			nil, want{kind: KindError, code: CodeBadBase64}},
		{"text over part limit", Contents{URI: "mem://big", Text: ptr(strings.Repeat("x", 11))},
			&Options{MaxPartBytes: 10}, want{kind: KindError, code: CodeTooLarge}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := FromContents([]Contents{tc.in}, tc.opts)
			if len(got) != 1 {
				t.Fatalf("got %d attachments, want 1", len(got))
			}
			a, w := got[0], tc.want
			if a.Kind != w.kind {
				t.Fatalf("kind = %q, want %q (error %v, warnings %q)", a.Kind, w.kind, a.Error, a.Warnings)
			}
			if a.URI != tc.in.URI || a.Part != 0 || a.DeclaredMIMEType != tc.in.MIMEType {
				t.Errorf("identity = (%q, %d, %q), want (%q, 0, %q)", a.URI, a.Part, a.DeclaredMIMEType, tc.in.URI, tc.in.MIMEType)
			}
			if a.Warnings == nil {
				t.Error("Warnings is nil, want a non-nil slice")
			}
			if w.kind == KindError {
				if a.Error == nil || a.Error.Code != w.code || a.Error.Index != 0 || a.Error.URI != tc.in.URI {
					t.Fatalf("error = %+v, want code %q index 0 uri %q", a.Error, w.code, tc.in.URI)
				}
				if tc.in.URI != "" && !strings.Contains(a.Error.Message, tc.in.URI) {
					t.Errorf("message %q does not name the URI", a.Error.Message)
				}
				return
			}
			if a.Error != nil {
				t.Fatalf("unexpected error %v", a.Error)
			}
			if a.MIMEType != w.mime {
				t.Errorf("mimeType = %q, want %q (warnings %q)", a.MIMEType, w.mime, a.Warnings)
			}
			if w.sniffed != "" && a.SniffedMIMEType != w.sniffed {
				t.Errorf("sniffedMimeType = %q, want %q", a.SniffedMIMEType, w.sniffed)
			}
			if a.ForwardAsImage != w.forward {
				t.Errorf("forwardAsImage = %v, want %v (warnings %q)", a.ForwardAsImage, w.forward, a.Warnings)
			}
			if a.Presentable != w.presentable {
				t.Errorf("presentable = %v, want %v (warnings %q)", a.Presentable, w.presentable, a.Warnings)
			}
			if w.text != nil && (!a.HasText() || a.Text != *w.text) {
				t.Errorf("text = %q (has %v), want %q", a.Text, a.HasText(), *w.text)
			}
			if w.noWarnings && len(a.Warnings) != 0 {
				t.Errorf("warnings = %q, want none", a.Warnings)
			}
			for _, ws := range w.warnings {
				if !hasWarning(a, ws...) {
					t.Errorf("no warning containing %q in %q", ws, a.Warnings)
				}
			}
			if w.htmlContains != "" && !strings.Contains(a.HTML, w.htmlContains) {
				t.Errorf("html = %q, want it to contain %q", a.HTML, w.htmlContains)
			}
			if w.size != 0 && (a.Size != w.size || a.WireSize != w.wireSize) {
				t.Errorf("size, wireSize = %d, %d; want %d, %d", a.Size, a.WireSize, w.size, w.wireSize)
			}
			if a.HasText() && a.Tokens != (int64(len(a.Text))+3)/4 {
				t.Errorf("tokens = %d for %d bytes", a.Tokens, len(a.Text))
			}
			if a.Kind == KindBinary && int64(len(a.Bytes)) != a.Size {
				t.Errorf("len(Bytes) = %d, Size = %d", len(a.Bytes), a.Size)
			}
		})
	}
}

func TestNeitherMessageNamesGoSDK(t *testing.T) {
	a := FromContents([]Contents{{URI: "docs://empty.md", MIMEType: "text/markdown"}}, nil)[0]
	for _, s := range []string{"docs://empty.md", "neither", "go-sdk", "omitempty", "part 0"} {
		if !strings.Contains(a.Error.Message, s) {
			t.Errorf("message %q lacks %q", a.Error.Message, s)
		}
	}
	if !errors.Is(a.Error, ErrNeitherPayload) || errors.Is(a.Error, ErrBothPayloads) {
		t.Errorf("errors.Is does not follow the code: %v", a.Error)
	}
	if a.Error.Kind != "protocol" {
		t.Errorf("kind = %q, want protocol", a.Error.Kind)
	}
}

func TestBadBase64Offset(t *testing.T) {
	cases := []struct {
		blob string
		off  int64
	}{
		{"AAA*", 3},
		{"QUJD*EVG", 4},
		{"QUJD\nREVG", 4}, // Go's decoder would skip the newline; the wire format has none
		{"QUJDREVG\r\n", 8},
		{"QUJ=REVG", 3},
		{"QUJ=", 3}, // non-zero padding bits: strict mode
	}
	for _, tc := range cases {
		a := FromContents([]Contents{{URI: "mem://b", Blob: ptr(tc.blob)}}, nil)[0]
		if a.Error == nil || a.Error.Code != CodeBadBase64 {
			t.Fatalf("%q: got %+v, want bad_base64", tc.blob, a.Error)
		}
		if a.Error.Offset != tc.off {
			t.Errorf("%q: offset %d, want %d", tc.blob, a.Error.Offset, tc.off)
		}
		if !strings.Contains(a.Error.Message, "mem://b") || !strings.Contains(a.Error.Message, "offset") {
			t.Errorf("%q: message %q lacks URI or offset", tc.blob, a.Error.Message)
		}
	}
}

// TestOrderAndIsolation: one bad part is reported in its place and never
// hides the good ones.
func TestOrderAndIsolation(t *testing.T) {
	png := readFixture(t, "image.png")
	in := []Contents{
		{URI: "mem://0", MIMEType: "text/plain", Text: ptr("zero")},
		{URI: "mem://1"},
		{URI: "mem://2", MIMEType: "image/png", Blob: b64(png)},
		{URI: "mem://3", Blob: ptr("!!!!")},
		{URI: "mem://4", Text: ptr("a"), Blob: ptr("YQ==")},
		{URI: "mem://5", MIMEType: "text/markdown", Text: ptr("# five")},
	}
	got := FromContents(in, nil)
	wantKinds := []string{KindText, KindError, KindBinary, KindError, KindError, KindText}
	if len(got) != len(in) {
		t.Fatalf("got %d attachments, want %d", len(got), len(in))
	}
	for i, a := range got {
		if a.Part != i || a.URI != in[i].URI || a.Kind != wantKinds[i] {
			t.Errorf("part %d = (%d, %q, %q), want (%d, %q, %q)", i, a.Part, a.URI, a.Kind, i, in[i].URI, wantKinds[i])
		}
		if a.Error != nil && a.Error.Index != i {
			t.Errorf("part %d: error index %d", i, a.Error.Index)
		}
	}
}

// TestWireSizeArithmetic reproduces the figure: a 1,834,208-byte
// PNG travels as 2,445,612 base64 characters.
func TestWireSizeArithmetic(t *testing.T) {
	if got := EncodedLen(1834208); got != 2445612 {
		t.Fatalf("EncodedLen(1834208) = %d, want 2445612", got)
	}
	data := bigPNG(t, 1834208)
	a := FromContents([]Contents{{URI: "mem://shot.png", MIMEType: "image/png", Blob: b64(data)}}, nil)[0]
	if a.Error != nil {
		t.Fatal(a.Error)
	}
	if a.Size != 1834208 || a.WireSize != 2445612 || !a.ForwardAsImage || a.MIMEType != "image/png" {
		t.Errorf("got size %d wire %d forward %v type %q; want 1834208 2445612 true image/png",
			a.Size, a.WireSize, a.ForwardAsImage, a.MIMEType)
	}
	for n := range int64(10) {
		s := base64.StdEncoding.EncodeToString(make([]byte, n))
		if EncodedLen(n) != int64(len(s)) || decodedLen(s) != n {
			t.Errorf("n=%d: EncodedLen %d, decodedLen %d, real %d", n, EncodedLen(n), decodedLen(s), len(s))
		}
	}
}

// TestLimitsBeforeDecoding: a 25 MiB blob is rejected from its length.
// The blob is not even valid base64, so a too_large (not bad_base64)
// result proves nothing was decoded.
func TestLimitsBeforeDecoding(t *testing.T) {
	n := 25 << 20
	blob := strings.Repeat("*", int(EncodedLen(int64(n))))
	a := FromContents([]Contents{{URI: "mem://huge.bin", MIMEType: "application/octet-stream", Blob: &blob}}, nil)[0]
	if a.Error == nil || a.Error.Code != CodeTooLarge {
		t.Fatalf("got %+v, want too_large", a.Error)
	}
	if !errors.Is(a.Error, ErrTooLarge) || a.Error.Kind != "limit" {
		t.Errorf("errors.Is/Kind: %v %q", a.Error, a.Error.Kind)
	}
	for _, s := range []string{"mem://huge.bin", "resource_link", "per-part", "20971520"} {
		if !strings.Contains(a.Error.Message, s) {
			t.Errorf("message %q lacks %q", a.Error.Message, s)
		}
	}
	// A real, valid 25 MiB blob too.
	valid := base64.StdEncoding.EncodeToString(make([]byte, n))
	a = FromContents([]Contents{{URI: "mem://huge.bin", Blob: &valid}}, nil)[0]
	if a.Error == nil || a.Error.Code != CodeTooLarge || a.Bytes != nil || !strings.Contains(a.Error.Message, "26214400 bytes") {
		t.Fatalf("valid 25 MiB blob: got %+v", a.Error)
	}
}

func TestPerReadLimit(t *testing.T) {
	opts := &Options{MaxPartBytes: 100, MaxReadBytes: 150}
	in := []Contents{
		{URI: "mem://a", Text: ptr(strings.Repeat("a", 100))},
		{URI: "mem://b", Blob: b64(make([]byte, 60))},        // 160 > 150
		{URI: "mem://d", Blob: ptr("!!!!")},                  // bad base64 holds no budget
		{URI: "mem://c", Text: ptr(strings.Repeat("c", 50))}, // 150, fits
		{URI: "mem://e", Text: ptr("")},                      // empty still fits
		{URI: "mem://f", Text: ptr("f")},                     // 151 > 150
	}
	got := FromContents(in, opts)
	want := []string{"", CodeTooLarge, CodeBadBase64, "", "", CodeTooLarge}
	for i, a := range got {
		code := ""
		if a.Error != nil {
			code = a.Error.Code
		}
		if code != want[i] {
			t.Errorf("part %d: code %q, want %q", i, code, want[i])
		}
	}
	if !strings.Contains(got[1].Error.Message, "per-read") {
		t.Errorf("message %q does not say per-read", got[1].Error.Message)
	}
}

func TestAttachmentJSON(t *testing.T) {
	atts := FromContents([]Contents{
		{URI: "mem://e", MIMEType: "text/plain", Text: ptr("")},
		{URI: "mem://p", MIMEType: "image/png", Blob: b64(readFixture(t, "image.png"))},
		{URI: "mem://x"},
	}, nil)
	var got []map[string]any
	b, err := json.Marshal(atts)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if v, ok := got[0]["text"]; !ok || v != "" {
		t.Errorf(`empty text document: "text" = %v (present %v), want ""`, v, ok)
	}
	for _, k := range []string{"uri", "part", "kind", "mimeType", "declaredMimeType", "sniffedMimeType",
		"forwardAsImage", "warnings", "size", "wireSize", "tokens"} {
		if _, ok := got[1][k]; !ok {
			t.Errorf("binary attachment JSON lacks %q: %s", k, b)
		}
	}
	if _, ok := got[1]["text"]; ok {
		t.Errorf("binary image has a text field: %v", got[1])
	}
	if _, ok := got[1]["bytes"]; ok {
		t.Errorf("bytes must not be marshalled")
	}
	e, _ := got[2]["error"].(map[string]any)
	if got[2]["kind"] != "error" || e["code"] != CodeNeitherPayload || e["uri"] != "mem://x" || e["index"] != 2.0 {
		t.Errorf("error part JSON = %v", got[2])
	}
}
