//go:build !js

package docserver

import (
	"context"
	"testing"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// BenchmarkReadDocument reads the sample corpus's 1.3 MB changelog through
// the documents server (resolver, go-sdk encoding, WebSocket, client decode).
func BenchmarkReadDocument(b *testing.B) {
	host, _ := startDocs(b, testConfig(), "", nil)
	s := mcptest.Dial(b, host, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		parts, err := s.ReadResource(ctx, "docs://team/payments/reference/api-changelog.md")
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(*parts[0].Text)))
	}
}
