package attach

import (
	"bytes"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The rendering attach/internal/gfm replaced: goldmark with its own
// extension.GFM, the same link renderer, through goldmark's renderer.
var (
	refOnce [2]sync.Once
	refMD   [2]goldmark.Markdown
)

func refMarkdown(remote bool) goldmark.Markdown {
	k := 0
	if remote {
		k = 1
	}
	refOnce[k].Do(func() {
		refMD[k] = goldmark.New(
			goldmark.WithExtensions(extension.GFM),
			goldmark.WithRendererOptions(renderer.WithNodeRenderers(
				util.Prioritized(&linkRenderer{remoteImages: remote}, 100),
			)),
		)
	})
	return refMD[k]
}

// refRender is RenderMarkdown as it was with extension.GFM.
func refRender(t testing.TB, src []byte, baseURI string, remote bool) string {
	if mdGuard(src) != "" {
		return plainTextHTML(src)
	}
	md := refMarkdown(remote)
	doc := md.Parser().Parse(text.NewReader(src))
	if u, err := url.Parse(baseURI); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		doc.SetAttribute(baseAttr, u)
	}
	var b bytes.Buffer
	if err := md.Renderer().Render(&b, src, doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkGFMPort fails t when RenderMarkdown differs from the rendering with
// extension.GFM.
func checkGFMPort(t testing.TB, src []byte, base string, remote bool) {
	t.Helper()
	got, err := RenderMarkdown(src, base, remote)
	if err != nil {
		t.Fatal(err)
	}
	if want := refRender(t, src, base, remote); got != want {
		t.Fatalf("rendering of %.80q (base %q, remote %v) differs from extension.GFM's:\n%s\n---\n%s", src, base, remote, got, want)
	}
}

// gfmCorpus is every Markdown document the attach tests use, the sample
// documents and the repository's testdata READMEs.
func gfmCorpus(t testing.TB) map[string][]byte {
	docs := map[string][]byte{
		"markdownDoc":    markdownDoc(200 << 10),
		"changelog":      []byte(changelog(200 << 10)),
		"empty":          nil,
		"seed-1":         []byte("# t\n\n[x](y) ![i](https://i.example/p.png) <https://a.example>"),
		"seed-2":         []byte("| a |\n|---|\n| [l](mailto:a@b.example) |"),
		"gfm":            []byte("*a **b** ~~c~~*\n\n- [x] t\n- [ ] u\n\n| a | b | c | d |\n|:--|--:|:-:|---|\n| `x\\|y` | 1 | 2 | 3 |\n\nwww.example.com/a?b https://x.example:8080/p#f ftp://f.example user@mail.example\n"),
		"every-readme":   mustRead(t, "../testdata/everything/README.md"),
		"fixture-readme": mustRead(t, "../testdata/fixtures/README.md"),
	}
	for name, src := range xssCorpus(t) {
		docs["xss/"+name] = src
	}
	for _, tc := range normalMarkdown {
		docs["normal/"+tc.name] = []byte(tc.src())
	}
	n := 0
	err := filepath.WalkDir("../cmd/mcphost/internal/sampledocs", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".go") {
			return err
		}
		n++
		docs["sampledocs/"+path] = mustRead(t, path)
		return nil
	})
	if err != nil || n < 20 {
		t.Fatalf("sample documents: %d, %v", n, err)
	}
	return docs
}

func mustRead(t testing.TB, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGFMPortRendersAsGoldmark: with attach/internal/gfm in place of
// goldmark's extension package, every document of the corpus renders to
// the same bytes, for both image modes and with and without an http
// base; and the parse with either, through goldmark's renderer, is the
// same even for documents the guard shows as plain text.
func TestGFMPortRendersAsGoldmark(t *testing.T) {
	nativeOnly(t)
	for name, src := range gfmCorpus(t) {
		for _, base := range []string{"https://docs.example/a/b.md", ""} {
			for _, remote := range []bool{false, true} {
				checkGFMPort(t, src, base, remote)
				if len(src) > 64<<10 {
					continue // the guard's plain text is compared above; skip goldmark's superlinear cases
				}
				got, err := goldmarkRender(src, base, remote)
				if err != nil {
					t.Fatal(err)
				}
				md := refMarkdown(remote)
				doc := md.Parser().Parse(text.NewReader(src))
				if u, err := url.Parse(base); err == nil && u.Host != "" {
					doc.SetAttribute(baseAttr, u)
				}
				var want bytes.Buffer
				if err := md.Renderer().Render(&want, src, doc); err != nil {
					t.Fatal(err)
				}
				if got != want.String() {
					t.Fatalf("%s: parse differs from extension.GFM's", name)
				}
			}
		}
	}
}

// FuzzGFMPort: RenderMarkdown equals the rendering with extension.GFM on
// any input, seeded with the corpus above and FuzzRenderMarkdown's seeds.
func FuzzGFMPort(f *testing.F) {
	for _, src := range gfmCorpus(f) {
		if len(src) <= 16<<10 {
			f.Add(string(src), "https://docs.example/a/b.md", false)
			f.Add(string(src), "", true)
		}
	}
	f.Fuzz(func(t *testing.T, src, base string, remote bool) {
		checkGFMPort(t, []byte(src), base, remote)
	})
}
