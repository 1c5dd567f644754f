package attach

import (
	"testing"
	"time"

	"github.com/yuin/goldmark/text"
)

// BenchmarkMarkdownGuard is the pre-scan alone on the documents of
// BenchmarkRenderMarkdown1MB and BenchmarkRenderChangelog, and its share of
// the parse and render of the same document, timed alternately in one loop
// so that a busy machine slows both alike (metric "guard-%").
func BenchmarkMarkdownGuard(b *testing.B) {
	for _, doc := range []struct {
		name string
		src  []byte
	}{{"1MB", markdownDoc(1 << 20)}, {"changelog", []byte(changelog(1300 << 10))}} {
		b.Run(doc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc.src)))
			b.ReportAllocs()
			for b.Loop() {
				if why := mdGuard(doc.src); why != "" {
					b.Fatal(why)
				}
			}
		})
		b.Run(doc.name+"-share", func(b *testing.B) {
			var guard, render time.Duration
			md := markdownFor(false)
			for b.Loop() {
				t0 := time.Now()
				mdGuard(doc.src)
				t1 := time.Now()
				tree := md.Parser().Parse(text.NewReader(doc.src))
				t2 := time.Now()
				t3 := t2
				if _, err := renderTree(tree, doc.src, "https://docs.example/a/", false); err != nil {
					b.Fatal(err)
				}
				guard += t1.Sub(t0) + t3.Sub(t2)
				render += t2.Sub(t1) + time.Since(t3)
			}
			b.ReportMetric(100*float64(guard)/float64(render), "guard-%")
		})
	}
}
