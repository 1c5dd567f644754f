package gfm

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
)

// pairs are converters with this package and with goldmark's
// extension.GFM, under the HTML renderer options that change what the
// extensions write (XHTML: check boxes and cell alignment).
var pairs = func() (p [][2]goldmark.Markdown) {
	for _, opts := range [][]renderer.Option{nil, {html.WithXHTML()}, {html.WithUnsafe(), html.WithHardWraps()}} {
		var ro []goldmark.Option
		for _, o := range opts {
			ro = append(ro, goldmark.WithRendererOptions(o))
		}
		p = append(p, [2]goldmark.Markdown{
			goldmark.New(append([]goldmark.Option{goldmark.WithExtensions(GFM)}, ro...)...),
			goldmark.New(append([]goldmark.Option{goldmark.WithExtensions(extension.GFM)}, ro...)...),
		})
	}
	return p
}()

// checkRender fails t when a rendering of src with this package differs
// from goldmark's with extension.GFM.
func checkRender(t testing.TB, src []byte) {
	t.Helper()
	for i, p := range pairs {
		var got, want bytes.Buffer
		if err := p[0].Convert(src, &got); err != nil {
			t.Fatal(err)
		}
		if err := p[1].Convert(src, &want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("options %d: rendering of %q differs:\n%s\n--- extension.GFM:\n%s", i, src, got.Bytes(), want.Bytes())
		}
	}
}

// fixtureInputs returns the inputs of goldmark's extension fixtures.
func fixtureInputs(t testing.TB) []string {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) != 4 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range strings.Split(string(b), "//= = = = = = = = = = = = = = = = = = = = = = = =//") {
			parts := strings.Split(c, "//- - - - - - - - -//\n")
			if len(parts) < 3 {
				continue
			}
			out = append(out, parts[1])
		}
	}
	if len(out) < 40 { // 44 cases in v1.8.7
		t.Fatalf("only %d fixture cases", len(out))
	}
	return out
}

// TestRenderEqualsGoldmark: goldmark's own extension fixtures, the matcher
// cases as documents and in list items and tables, render as with
// extension.GFM.
func TestRenderEqualsGoldmark(t *testing.T) {
	docs := fixtureInputs(t)
	for _, c := range matcherCases {
		docs = append(docs, c, "x "+c+" y", "- "+c+"\n- [x] "+c, "| "+c+" | b |\n|"+c+"|---|\n| 1 | "+c+" |",
			"a *"+c+"* _("+c+")_ ~"+c+"~ ~~"+c+"~~")
	}
	// Where the linkify parser's Rejects skips a space, the text is not
	// split there; upstream trims a line's trailing whitespace after the
	// last split only, so whitespace before a line's end must stay as it
	// does upstream.
	docs = append(docs, "foo \t \nbar", "foo\t \t\nbar", "a b  \nc", "a\tb \t\n", "x www.a.b \t \ny",
		"\tfoo bar \t\n", "a @ b c@d.e \t\n", "| a \t b \t | c |\n|---|---|\n| x \t | y \t |",
		"*a b \t*\n", "a b\\ \t\nc", "a \t\r\nb \t\rc")
	for _, src := range docs {
		checkRender(t, []byte(src))
	}
}

func FuzzRenderEqualsGoldmark(f *testing.F) {
	for _, src := range fixtureInputs(f) {
		f.Add(src)
	}
	f.Add("foo \t \nbar www.x.y \t\n")
	f.Fuzz(func(t *testing.T, src string) {
		checkRender(t, []byte(src))
	})
}
