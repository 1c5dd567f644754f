package attach

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/yuin/goldmark/text"
)

func TestRenderMarkdownPolicy(t *testing.T) {
	const httpBase = "https://docs.example/guide/intro.md"
	cases := []struct {
		name    string
		src     string
		base    string
		remote  bool
		want    []string
		notWant []string
	}{
		{name: "gfm table", src: "| a | b |\n|:--|--:|\n| 1 | 2 |", want: []string{"<table>", "<th", ">a</th>", "<td", ">2</td>"}},
		{name: "strikethrough", src: "~~old~~", want: []string{"<del>old</del>"}},
		{name: "task list", src: "- [x] done\n- [ ] todo", want: []string{`<input checked="" disabled="" type="checkbox">`, "todo"}},
		{name: "raw html dropped", src: "<b>bold</b> and <div>block</div>", want: []string{"<!-- raw HTML omitted -->"}, notWant: []string{"<b>", "<div>"}},
		{name: "https link with rel", src: "[ok](https://ex.example/a?b=1&c=2)",
			want: []string{`<a href="https://ex.example/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">ok</a>`}},
		{name: "mailto link", src: "[mail](mailto:a@b.example)", want: []string{`href="mailto:a@b.example"`}},
		{name: "javascript dropped, text kept", src: "[keep me](javascript:alert(1))", want: []string{"keep me"}, notWant: []string{"<a", "javascript"}},
		{name: "ftp dropped", src: "[f](ftp://ex.example/f)", want: []string{"f"}, notWant: []string{"<a"}},
		{name: "data link dropped", src: "[d](data:image/png;base64,AAAA)", notWant: []string{"<a", "data:"}},
		{name: "relative link with http base", src: "[next](../next.md#top)", base: httpBase,
			want: []string{`href="https://docs.example/next.md#top"`}},
		{name: "root-relative link with http base", src: "[r](/root)", base: httpBase, want: []string{`href="https://docs.example/root"`}},
		{name: "relative link with custom-scheme base dropped", src: "[next](next.md)", base: "docs://guide/intro.md",
			want: []string{"next"}, notWant: []string{"<a"}},
		{name: "relative link with file base dropped", src: "[next](next.md)", base: "file:///guide/intro.md", notWant: []string{"<a"}},
		{name: "relative link without base dropped", src: "[next](next.md)", notWant: []string{"<a"}},
		{name: "fragment-only link without base dropped", src: "[top](#top)", notWant: []string{"<a"}},
		{name: "remote image becomes link", src: "![chart](https://img.example/c.png)",
			want: []string{`<a href="https://img.example/c.png" rel="noopener noreferrer nofollow">chart</a>`}, notWant: []string{"<img"}},
		{name: "remote image allowed when opted in", src: "![chart](https://img.example/c.png)", remote: true,
			want: []string{`<img src="https://img.example/c.png" alt="chart" referrerpolicy="no-referrer"`}},
		{name: "relative image resolves then becomes link", src: "![p](p.png)", base: httpBase,
			want: []string{`href="https://docs.example/guide/p.png"`}, notWant: []string{"<img"}},
		{name: "data png image kept", src: "![dot](data:image/png;base64,iVBORw0KGgo=)", want: []string{`<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">`}},
		{name: "data svg image dropped", src: "![s](data:image/svg+xml;base64,PHN2Zz4=)", want: []string{"s"}, notWant: []string{"<img", "data:"}},
		{name: "image with empty alt uses URL as link text", src: "![](https://img.example/x.png)", want: []string{">https://img.example/x.png</a>"}},
		{name: "autolink", src: "<https://ex.example/x>", want: []string{`<a href="https://ex.example/x" rel="noopener noreferrer nofollow">https://ex.example/x</a>`}},
		{name: "javascript autolink is text", src: "<javascript:alert(1)>", want: []string{"javascript:alert(1)"}, notWant: []string{"<a"}},
		{name: "linkify url", src: "see https://ex.example/p now", want: []string{`<a href="https://ex.example/p"`}},
		{name: "linkify www", src: "see www.example.com now", want: []string{`<a href="http://www.example.com"`}},
		{name: "linkify email", src: "mail a@b.example", want: []string{`<a href="mailto:a@b.example"`}},
		{name: "entity-encoded scheme dropped", src: "[x](&#106;avascript:alert(1))", notWant: []string{"<a"}},
		{name: "title escaped", src: `[x](https://e.example "a\"b<c")`, want: []string{`title="a&quot;b&lt;c"`}},
		{name: "reference link", src: "[x][r]\n\n[r]: https://ref.example/", want: []string{`href="https://ref.example/"`}},
		{name: "code fence escaped", src: "```html\n<script>x</script>\n```", want: []string{"&lt;script&gt;"}, notWant: []string{"<script>"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := RenderMarkdown([]byte(tc.src), tc.base, tc.remote)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output contains %q:\n%s", w, out)
				}
			}
			if err := checkSafeHTML(out); err != nil {
				t.Errorf("unsafe output: %v\n%s", err, out)
			}
		})
	}
}

func TestRenderMarkdownConcurrent(t *testing.T) {
	// The shared renderer takes its base from each document; concurrent
	// renders with different bases must not mix them up.
	done := make(chan string, 16)
	for i := range 16 {
		go func() {
			base := "https://a.example/"
			if i%2 == 1 {
				base = "https://b.example/"
			}
			out, _ := RenderMarkdown([]byte("[x](p)"), base, false)
			if !strings.Contains(out, base+"p") {
				done <- out
				return
			}
			done <- ""
		}()
	}
	for range 16 {
		if bad := <-done; bad != "" {
			t.Errorf("wrong base in %s", bad)
		}
	}
}

// renderWhole is goldmark's rendering of src under the URL policy, without
// the guard: what the pieces of a cut document are held to.
func renderWhole(t testing.TB, src string, remote bool) string {
	t.Helper()
	b := []byte(src)
	out, err := renderTree(markdownFor(remote).Parser().Parse(text.NewReader(b)), b, "https://docs.example/a/b.md", remote)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// renderPieces renders src cut at cuts, piece by piece, and concatenates.
func renderPieces(t testing.TB, src string, cuts []int, remote bool) string {
	t.Helper()
	var sb strings.Builder
	from := 0
	for _, c := range append(cuts, len(src)) {
		if c <= from || c > len(src) {
			t.Fatalf("cuts %v of %d bytes are not increasing offsets inside the document", cuts, len(src))
		}
		sb.WriteString(renderWhole(t, src[from:c], remote))
		from = c
	}
	return sb.String()
}

// splitSeeds are documents with headings after blank lines next to every
// construct that could carry over a cut: fences (top-level, indented, in
// containers, with tabs), lists and quotes left open over blank lines, HTML
// blocks, link reference definitions, setext headings, tables, code spans.
var splitSeeds = []string{
	"# a\n\npara\n\n# b\n\ntext\n",
	"- item\n\n# h\n\n- x\n- y\n\n## h2\n\n> q\n\n### h3\n",
	"- a\n\n  b\n\n# h\n\n1. one\n\n   two\n\n# h\n",
	"```\n# not\n\n# not either\n```\n\n# yes\n\nafter\n",
	"~~~~ go\n~~~\n\n# inside\n~~~~\n\n# out\n",
	"```a`b\n\n# h\n\n```\ncode\n\n# in fence\n",
	"- ```\n  code\n\n# h\n\n  ```\n\n# in top fence\n",
	"> ```\n> x\n\n# h\n\n```\n\n# in\n```\n",
	"   ```\n\n# in indented fence\n   ```\n\n# out\n",
	"```\n\t```\n\n# tab\n```\n\n# h\n",
	"<div>\n\n# h\n\n</div>\n\n# h2\n",
	"<!--\n\n# in comment\n\n-->\n\n# out\n",
	"<pre>\n\n# pre\n\n</pre>\n\n# x\n",
	"[a]\n\n# h\n\n[a]: https://x.example/\n",
	"para\n===\n\n# h\n\nsetext\n---\n\n# h\n",
	"| a | b |\n|---|---|\n| 1 | 2 |\n\n# h\n\n| c |\n|---|\n| 3 |\n",
	"`code\n\n# h\n\n` span`\n",
	"- [x] done\n- [ ] todo\n\n# h\n\n*a\n\n# b*\n",
	"#\n\n####### seven\n\n#\ttab\n\n# h #\n",
	"    indented\n\n# h\n\n    ```\n\n# h\n",
	"a  \n\n# h\\\n\n# h\n",
	"- a\n\n\n# h\n\n  - b\n\n# h\n",
	"> a\n>\n\n# h\n\n> > b\n\n# h\n",
}

// FuzzMarkdownCuts: wherever markdownCuts cuts a document, the pieces'
// renderings, concatenated, are the whole document's byte for byte.
func FuzzMarkdownCuts(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add(s, uint8(2))
		f.Add(s, uint8(5))
	}
	f.Add(string(markdownDoc(3000)), uint8(3))
	f.Add(changelog(3000), uint8(4))
	f.Fuzz(func(t *testing.T, src string, n uint8) {
		cuts := markdownCuts(src, int(n%8), 1)
		if len(cuts) == 0 || mdGuard([]byte(src)) != "" {
			return // pieces are only rendered when the guard passes the whole
		}
		if len(cuts) >= int(n%8) {
			t.Fatalf("%d cuts for %d pieces", len(cuts), n%8)
		}
		for _, remote := range []bool{false, true} {
			if whole, pieces := renderWhole(t, src, remote), renderPieces(t, src, cuts, remote); whole != pieces {
				t.Fatalf("cut at %v, the pieces render otherwise:\ninput: %q\nwhole:  %q\npieces: %q", cuts, src, whole, pieces)
			}
		}
	})
}

// sampleChangelog is the first size bytes of the sample documents' API
// changelog (the browser bench's Markdown document), cut at a line end.
func sampleChangelog(t testing.TB, size int) string {
	t.Helper()
	b, err := os.ReadFile("../cmd/mcphost/internal/sampledocs/payments/reference/api-changelog.md")
	if err != nil {
		t.Fatal(err)
	}
	b = b[:size]
	return string(b[:bytes.LastIndexByte(b, '\n')+1])
}

// TestMarkdownCuts: large documents are cut where expected and render the
// same; what the scan does not model is never cut past.
func TestMarkdownCuts(t *testing.T) {
	big := sampleChangelog(t, 600<<10)
	for _, c := range []struct {
		name    string
		src     string
		n       int
		minCuts int // at least this many cuts
		maxCuts int
	}{
		{"changelog in two", big, 2, 1, 1},
		{"changelog in four", big, 4, 3, 3},
		{"one piece asked", big, 1, 0, 0},
		{"small document", sampleChangelog(t, 100<<10), 2, 0, 0},
		{"a link reference definition", big + "\n[x]: https://x.example/\n", 2, 0, 0},
		{"CRLF line endings", strings.ReplaceAll(big, "\n", "\r\n"), 2, 0, 0},
		{"an HTML block first", "<details>\n\n" + big, 2, 0, 0},
		{"an unclosed fence first", "~~~~~\n\n" + big, 2, 0, 0},
		{"a fence first, closed by the document's", "```\n\n" + big, 2, 0, 1},
		{"an indented fence first", "  ```\n\n" + big, 2, 0, 0},
		{"a fence in a list first", "- ```\n\n" + big, 2, 1, 1},
		{"HTML in a quote first", "> <div>\n\n" + big, 2, 1, 1},
		{"no heading after a blank line", strings.ReplaceAll(big, "\n\n#", "\n#"), 2, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cuts := MarkdownCuts(c.src, c.n)
			if len(cuts) < c.minCuts || len(cuts) > c.maxCuts {
				t.Fatalf("%d cuts %v, want %d to %d", len(cuts), cuts, c.minCuts, c.maxCuts)
			}
			from := 0
			for _, x := range cuts {
				if x-from < minSplitPiece || len(c.src)-x < minSplitPiece {
					t.Errorf("cut at %d leaves a piece under %d bytes", x, minSplitPiece)
				}
				if c.src[x] != '#' || c.src[x-2:x] != "\n\n" {
					t.Errorf("cut at %d is not a heading after a blank line: %q", x, c.src[x-2:x+10])
				}
				from = x
			}
			if len(cuts) > 0 {
				if whole, pieces := renderWhole(t, c.src, false), renderPieces(t, c.src, cuts, false); whole != pieces {
					t.Fatal("the pieces render otherwise than the whole")
				}
			}
		})
	}
}
