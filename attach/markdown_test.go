package attach

import (
	"strings"
	"testing"
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
