package bridge

import (
	stdjson "encoding/json"
	"fmt"
	"strings"
	"testing"

	segjson "encoding/json"
)

// BenchmarkListPageDecode compares a page decoded the way the client did
// before (segmentio, and encoding/json in its place) with the fast path.

// listPage is a resources/list page of n descriptors shaped like the bench's.
func listPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"resources":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"uri":"docs://team/platform/area-%d/document-%d.md","name":"document-%d.md","title":"Document number %d about the platform","description":"A description of document %d, long enough to look real.","mimeType":"text/markdown","size":%d}`, i%17, i, i, i, i, 1000+i)
	}
	b.WriteString(`],"nextCursor":"page-2"}`)
	return []byte(b.String())
}

func BenchmarkListPageDecode(b *testing.B) {
	raw := listPage(100)
	for _, c := range []struct {
		name string
		un   func([]byte, any) error
	}{{"std", stdjson.Unmarshal}, {"segmentio", segjson.Unmarshal}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				var fields map[string]stdjson.RawMessage
				if err := c.un(raw, &fields); err != nil {
					b.Fatal(err)
				}
				var items []stdjson.RawMessage
				if err := c.un(fields["resources"], &items); err != nil {
					b.Fatal(err)
				}
				out := make([]Resource, 0, len(items))
				if err := c.un(fields["resources"], &out); err != nil || len(out) != 100 {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			items, array, _, ok := scanPage(raw, "resources")
			if !ok {
				b.Fatal("not the plain shape")
			}
			good, bad := decodePage(array, items, "resources/list", 1, validResource)
			if len(good) != 100 || bad != nil {
				b.Fatal(bad)
			}
		}
	})
}
