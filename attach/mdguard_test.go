package attach

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

type mdCase struct {
	name string
	src  func() string
	want string // a substring of the guard's reason; "" = renders
}

func repeatLines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(f(i))
	}
	return b.String()
}

// hostileMarkdown: the inputs of issue 14 §1–2 and their variants, which
// must come back as plain text with a warning naming what was wrong. Each
// also seeds FuzzMarkdownGuard at a small size.
var hostileMarkdown = []mdCase{
	{"link openers", func() string { return strings.Repeat("[a](", 20000) }, "unclosed link destinations"},
	{"unclosed destinations", func() string { return strings.Repeat("[a](b", 20000) }, "unclosed link destinations"},
	{"unclosed angle destinations", func() string { return strings.Repeat("[a](<b", 20000) }, "unclosed link destinations"},
	{"mismatched emphasis", func() string { return strings.Repeat("*a_ ", 20000) }, "unmatched emphasis delimiters"},
	{"emphasis rule of 3", func() string { return "a**b" + strings.Repeat("c* ", 20000) }, "unmatched emphasis delimiters"},
	{"strikethrough and emphasis", func() string { return strings.Repeat("~a* ", 20000) }, "unmatched emphasis delimiters"},
	{"closers over intraword underscores", func() string {
		return strings.Repeat("a_b ", 20000) + strings.Repeat("c_ ", 5000)
	}, "unmatched emphasis delimiters"},
	{"40,000 unused reference definitions", func() string {
		return repeatLines(40000, func(i int) string { return fmt.Sprintf("[r%d]: https://ex.example/%d\n", i, i) })
	}, "link reference definitions"},
	{"nested lists", func() string { return strings.Repeat("- ", 10000) + "a" }, "nests lists and block quotes at least 10000 levels"},
	{"nested quotes", func() string { return strings.Repeat(">", 40000) + "a" }, "nests lists and block quotes at least 40000 levels"},
	{"lists nested by indentation", func() string {
		return repeatLines(1000, func(i int) string { return strings.Repeat("  ", i) + "* a\n" })
	}, "nests lists and block quotes at least 101 levels"},
	{"lists at the bound plus one", func() string { return strings.Repeat("- ", maxMarkdownNesting+1) + "a" }, "101 levels"},
	{"quotes and lists", func() string { return strings.Repeat("> - ", 60) + "a" }, "120 levels"},
	{"nested emphasis", func() string {
		return strings.Repeat("*a **a ", 2500) + "b" + strings.Repeat(" a** a*", 2500)
	}, "nests emphasis"},
	{"nested images", func() string { return strings.Repeat("![", 5000) + "a" + strings.Repeat("](x)", 5000) }, "nests links, images or brackets"},
	{"nested brackets", func() string { return strings.Repeat("[", 5000) + "a" + strings.Repeat("]", 5000) }, "nests links, images or brackets"},
	{"nested images across lines", func() string {
		return repeatLines(5000, func(int) string { return "![\n" }) + "a" + strings.Repeat("](x)", 5000)
	}, "nests links, images or brackets"},
	{"items four spaces after their marker", func() string {
		return repeatLines(200, func(i int) string { return strings.Repeat(" ", 5*i) + "-    a\n" })
	}, "nests lists and block quotes"},
	{"a tab-indented fence is not a fence", func() string { return "\t```\n" + strings.Repeat("[a](", 20000) }, "unclosed link destinations"},
	{"a fence inside an HTML block is text", func() string {
		return "<pre>\n```\n</pre>\n\n" + strings.Repeat("- ", 10000) + "a"
	}, "nests lists and block quotes"},
}

// changelog builds a keep-a-changelog document of about size bytes: many
// versions, bullets with code, emphasis, issue links, snake_case names and
// a reference definition per version at the end.
func changelog(size int) string {
	var b, refs strings.Builder
	for v := 0; b.Len()+refs.Len() < size; v++ {
		fmt.Fprintf(&b, "## [1.%d.0] - 2026-%02d-%02d\n\n### Added\n\n", v, v%12+1, v%28+1)
		for k := range 6 {
			fmt.Fprintf(&b, "- Support for `snake_case_%d` options in **config_%d** (#%d, by @user_%d)\n", k, v, 1000+v*6+k, k)
		}
		fmt.Fprintf(&b, "\n### Fixed\n\n- A crash when `max_size * 2` overflowed; see [the issue](https://github.com/o/r/issues/%d) and *notes*\n"+
			"- Footnote markers like value* are now kept literally, as are 2 * 3 and a_b_c\n\n", v)
		fmt.Fprintf(&refs, "[1.%d.0]: https://github.com/o/r/compare/v1.%d.0...v1.%d.0\n", v, v, v+1)
	}
	return b.String() + "\n" + refs.String()
}

// normalMarkdown: ordinary documents, including large and nested ones,
// that must still render as HTML.
var normalMarkdown = []mdCase{
	{"nested lists 5 deep", func() string {
		return "- a\n  - b\n    - c\n      1. d\n         - e *emph* and [link](https://ex.example/)\n- f\n"
	}, ""},
	{"quotes and lists 5 deep", func() string { return "> - a\n>   > 1. b\n>   >    - c\n>   >      > d **strong**\n" }, ""},
	{"lists at the bound", func() string { return strings.Repeat("- ", maxMarkdownNesting) + "a" }, ""},
	{"emphasis at the bound", func() string {
		return strings.Repeat("*a ", maxMarkdownNesting) + "b" + strings.Repeat(" a*", maxMarkdownNesting)
	}, ""},
	{"changelog 1.3 MB", func() string { return changelog(1300 << 10) }, ""},
	{"generated 1 MB document", func() string { return string(markdownDoc(1 << 20)) }, ""},
	{"2,000 reference definitions in one block", func() string {
		return "See [the first][r0].\n\n" +
			repeatLines(2000, func(i int) string { return fmt.Sprintf("[r%d]: https://ex.example/%d\n", i, i) })
	}, ""},
	{"table of 5,000 rows with emphasis", func() string {
		return "| name | value |\n|---|---:|\n" + repeatLines(5000, func(i int) string {
			return fmt.Sprintf("| *row_%d* | **%d** ~~old~~ |\n", i, i)
		})
	}, ""},
	{"prose with stray delimiters", func() string {
		return repeatLines(3000, func(i int) string {
			s := fmt.Sprintf("Call f(**kwargs) with a_b and 2 * %d or value_ %d* then [x](https://e.example/(%d)) ok.\n", i, i, i)
			if i%4 == 3 {
				s += "\n"
			}
			return s
		})
	}, ""},
	{"deeply indented code in a fence", func() string {
		return "```json\n" + repeatLines(150, func(i int) string { return strings.Repeat("  ", i) + "- [\n" }) + "```\n\nafter *it*\n"
	}, ""},
	{"one long line of links", func() string {
		return repeatLines(5000, func(i int) string { return fmt.Sprintf("[l%d](https://ex.example/%d)", i, i) })
	}, ""},
	{"base64 image", func() string {
		return "![dot](data:image/png;base64," + strings.Repeat("iVBORw0KGgo", 20000) + ")\n"
	}, ""},
}

func TestMarkdownGuardHostile(t *testing.T) {
	for _, tc := range hostileMarkdown {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.src()
			why := mdGuard([]byte(src))
			if !strings.Contains(why, tc.want) {
				t.Fatalf("guard = %q, want it to contain %q", why, tc.want)
			}
			out, err := RenderMarkdown([]byte(src), "", false)
			if err != nil || out != plainTextHTML([]byte(src)) {
				t.Fatalf("RenderMarkdown did not fall back to plain text: %.80q, %v", out, err)
			}
			a := FromContents([]Contents{{URI: "mem://h.md", MIMEType: "text/markdown", Text: &src}}, nil)[0]
			if a.HTML != out || !hasWarning(a, tc.want, "shown as escaped plain text") || a.Text != src {
				t.Errorf("attachment html %.40q, warnings %q", a.HTML, a.Warnings)
			}
		})
	}
}

func TestMarkdownGuardNormal(t *testing.T) {
	for _, tc := range normalMarkdown {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := []byte(tc.src())
			s := mdScan{src: src, budget: mdWorkBase + mdWorkPerByte*int64(len(src)), blockStart: -1}
			s.run()
			var ns int64
			for k, w := range s.work {
				ns += w * workCost[k]
			}
			t.Logf("%d bytes: %.2f ns of simulated work per byte; nesting %d/%d/%d", len(src),
				float64(ns)/float64(len(src)), s.maxBlock, s.maxEmph, s.maxBrack)
			if why := mdGuard(src); why != "" {
				t.Fatalf("refused: %s", why)
			}
			out, err := RenderMarkdown(src, "https://docs.example/", false)
			if err != nil || out == plainTextHTML(src) {
				t.Fatalf("not rendered: %.80q, %v", out, err)
			}
		})
	}
}

// TestMarkdownFallbackEscapes: the fallback is the source, escaped, and
// satisfies the same safety property as rendered Markdown.
func TestMarkdownFallbackEscapes(t *testing.T) {
	src := strings.Repeat("- ", 200) + "<script>alert(1)</script> & \"q\" <img src=x onerror=alert(1)>"
	out, err := RenderMarkdown([]byte(src), "", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSafeHTML(out); err != nil {
		t.Fatal(err)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(out, "<pre>"), "</pre>\n")
	if inner == out || html.UnescapeString(inner) != src || strings.Contains(inner, "<") {
		t.Fatalf("fallback %q", out)
	}
}

// treeDepth returns the depth of the deepest node under root, walking the
// tree without recursion.
func treeDepth(root ast.Node) int {
	depth, deepest := 0, 0
	for n := root; ; {
		if c := n.FirstChild(); c != nil {
			n, depth = c, depth+1
			deepest = max(deepest, depth)
			continue
		}
		for n != root && n.NextSibling() == nil {
			n, depth = n.Parent(), depth-1
		}
		if n == root {
			return deepest
		}
		n = n.NextSibling()
	}
}

// TestRenderTreeIsGoldmarks: the loop renders exactly what goldmark's
// recursive renderer does, for the XSS corpus and large documents.
func TestRenderTreeIsGoldmarks(t *testing.T) {
	docs := []string{string(markdownDoc(200 << 10)), changelog(200 << 10), "", "*a **b** ~~c~~*\n\n- [x] t\n\n| a |\n|---|\n| `x\\|y` |\n"}
	for _, src := range xssCorpus(t) {
		docs = append(docs, string(src))
	}
	for _, tc := range normalMarkdown[:4] {
		docs = append(docs, tc.src())
	}
	for _, src := range docs {
		for _, remote := range []bool{false, true} {
			want, err := goldmarkRender([]byte(src), "https://docs.example/a/", remote)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := renderMarkdown([]byte(src), "https://docs.example/a/", remote)
			if err != nil || got != want {
				t.Fatalf("loop and goldmark differ for %.60q (remote %v):\n%s\n---\n%s", src, remote, got, want)
			}
		}
	}
}

// goldmarkRender is the rendering through goldmark's own renderer.
func goldmarkRender(src []byte, baseURI string, remote bool) (string, error) {
	md := markdownFor(remote)
	doc := md.Parser().Parse(text.NewReader(src))
	if u, err := url.Parse(baseURI); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		doc.SetAttribute(baseAttr, u)
	}
	var b bytes.Buffer
	err := md.Renderer().Render(&b, src, doc)
	return b.String(), err
}

// TestRenderDeepTreeSmallStack: a tree deeper than the guard allows (the
// guard bypassed) renders on a 512 KiB stack, so rendering does not recurse
// per level, as goldmark's renderer would (40,000 levels overflowed V8's
// stack under js/wasm).
func TestRenderDeepTreeSmallStack(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(512 << 10))
	for _, src := range []string{
		strings.Repeat("*a ", 40000) + "b" + strings.Repeat(" a*", 40000),
		"![" + strings.Repeat("*a ", 40000) + "b" + strings.Repeat(" a*", 40000) + "](https://i.example/x.png)",
	} {
		doc := markdownFor(false).Parser().Parse(text.NewReader([]byte(src)))
		if d := treeDepth(doc); d < 40000 {
			t.Fatalf("tree only %d deep", d)
		}
		out, err := renderTree(doc, []byte(src), "", false)
		if err != nil || !strings.Contains(out, "b") {
			t.Fatalf("%.80q, %v", out, err)
		}
	}
}

// TestTreeDepth: the iterative depth is the recursive one.
func TestTreeDepth(t *testing.T) {
	var depth func(n ast.Node) int
	depth = func(n ast.Node) int {
		d := 0
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			d = max(d, 1+depth(c))
		}
		return d
	}
	for _, src := range []string{"", "a", "- a\n  - b\n", "> - *a **b** c*\n\n| x | y |\n|---|---|\n| [l](https://e.example/) | ![i](x) |\n",
		string(markdownDoc(4000)), changelog(3000)} {
		doc := markdownFor(false).Parser().Parse(text.NewReader([]byte(src)))
		if got, want := treeDepth(doc), depth(doc); got != want {
			t.Errorf("treeDepth = %d, want %d for %.40q", got, want, src)
		}
	}
}

// FuzzMarkdownGuard: the guard never panics and is deterministic; what it
// refuses renders as the escaped source; what it accepts has a goldmark
// tree no deeper than its estimates allow (two levels per list, one per
// quote, emphasis or bracket, plus a few for paragraphs, tables and text).
func FuzzMarkdownGuard(f *testing.F) {
	small := func(s string) string {
		if len(s) > 512 {
			return s[:512]
		}
		return s
	}
	for _, tc := range hostileMarkdown {
		f.Add(small(tc.src()))
	}
	for _, tc := range normalMarkdown {
		f.Add(small(tc.src()))
	}
	for _, src := range xssCorpus(f) {
		f.Add(string(src))
	}
	f.Fuzz(func(t *testing.T, src string) {
		b := []byte(src)
		why := mdGuard(b)
		if again := mdGuard(b); again != why {
			t.Fatalf("non-deterministic: %q then %q", why, again)
		}
		out, err := RenderMarkdown(b, "", false)
		if err != nil {
			t.Fatal(err)
		}
		if why != "" {
			if out != plainTextHTML(b) {
				t.Fatalf("refused (%s) but rendered", why)
			}
			return
		}
		if want, _ := goldmarkRender(b, "", false); out != want {
			t.Fatalf("loop and goldmark differ:\n%s\n---\n%s", out, want)
		}
		s := mdScan{src: b, budget: mdWorkBase + mdWorkPerByte*int64(len(b)), blockStart: -1}
		s.run()
		bound := 2*s.maxBlock + int(s.maxEmph) + int(s.maxBrack) + 6
		if d := treeDepth(markdownFor(false).Parser().Parse(text.NewReader(b))); d > bound {
			t.Fatalf("tree %d deep, estimates %d/%d/%d allow %d", d, s.maxBlock, s.maxEmph, s.maxBrack, bound)
		}
	})
}

// TestASCIIClass: the literal table is what classOf (goldmark's space and
// punctuation classes) says of every one-byte rune.
func TestASCIIClass(t *testing.T) {
	for r := range rune(utf8.RuneSelf) {
		if got, want := asciiClass[r], classOf(r); got != want {
			t.Errorf("asciiClass[%q] = %d, classOf says %d", r, got, want)
		}
	}
}
