package attach

import (
	"os"
	"testing"
	"time"

	"github.com/yuin/goldmark/text"
)

// benchDoc is the bench peer's Markdown document: the first 1 MB of the
// sample changelog.
func benchDoc(b *testing.B) []byte {
	src, err := os.ReadFile("../cmd/mcphost/internal/sampledocs/payments/reference/api-changelog.md")
	if err != nil {
		b.Fatal(err)
	}
	return src[:1<<20]
}

// BenchmarkMarkdownStages times the guard, the parse and the render of the
// bench's document separately (metrics guard-ms, parse-ms, render-ms).
func BenchmarkMarkdownStages(b *testing.B) {
	src := benchDoc(b)
	md := markdownFor(false)
	var g, p, r time.Duration
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if why := mdGuard(src); why != "" {
			b.Fatal(why)
		}
		t1 := time.Now()
		tree := md.Parser().Parse(text.NewReader(src))
		t2 := time.Now()
		if _, err := renderTree(tree, src, "bench://doc.md", false); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		g, p, r = g+t1.Sub(t0), p+t2.Sub(t1), r+t3.Sub(t2)
	}
	n := float64(b.N) * 1e6
	b.ReportMetric(float64(g)/n, "guard-ms")
	b.ReportMetric(float64(p)/n, "parse-ms")
	b.ReportMetric(float64(r)/n, "render-ms")
}
