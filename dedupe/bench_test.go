package dedupe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkFilter filters a 50-block tool result (10 duplicate embedded
// resources, 10 links to attached URIs, 10 embedded resources that are not
// attached, 20 text blocks; about 2 KiB per document) against a ledger of
// 1,000 attached documents.
func BenchmarkFilter(b *testing.B) {
	for _, normalize := range []bool{false, true} {
		b.Run(fmt.Sprintf("normalize=%v", normalize), func(b *testing.B) {
			l := New(Options{NormalizeURIs: normalize})
			body := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 36)
			for i := 0; i < 1000; i++ {
				u := fmt.Sprintf("https://docs.example.com/runbooks/%04d.md", i)
				if _, err := l.Attach("ws://127.0.0.1:8080/mcp", u, []Part{textPart(u, fmt.Sprint(i, body))}); err != nil {
					b.Fatal(err)
				}
			}
			var blocks []string
			for i := 0; i < 50; i++ {
				u := fmt.Sprintf("https://docs.example.com/runbooks/%04d.md", i*17)
				switch i % 5 {
				case 0:
					blocks = append(blocks, embed(b, textPart(u, fmt.Sprint(i*17, body))))
				case 1:
					blocks = append(blocks, link(u))
				case 2:
					blocks = append(blocks, embed(b, textPart(fmt.Sprintf("mem://scratch/%d", i), body)))
				default:
					blocks = append(blocks, text(body))
				}
			}
			in := result(blocks...)
			out, rep, err := l.Filter("ws://127.0.0.1:8080/mcp", in)
			if err != nil || len(rep.Dropped) != 20 || !json.Valid(out) {
				b.Fatalf("setup: %v, %d dropped", err, len(rep.Dropped))
			}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := l.Filter("ws://127.0.0.1:8080/mcp", in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAttach measures recording one 2 KiB text document and one
// 64 KiB blob document.
func BenchmarkAttach(b *testing.B) {
	l := New(Options{})
	txt := textPart("mem://doc", strings.Repeat("x", 2048))
	blob := blobPart("mem://blob", make([]byte, 64<<10))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := l.Attach("s", "mem://doc", []Part{txt}); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Attach("s", "mem://blob", []Part{blob}); err != nil {
			b.Fatal(err)
		}
	}
}
