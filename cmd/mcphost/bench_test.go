//go:build !js

package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// BenchmarkPing measures one ping round trip from the product's client:
// answered by the built-in documents server (no gateway: the baseline), and
// through the stdio gateway (server-everything under node) and the
// Streamable HTTP gateway (an in-process go-sdk server).
func BenchmarkPing(b *testing.B) {
	run := func(b *testing.B, args ...string) {
		host, _ := startServer(b, testConfig(b, args...))
		s := mcptest.Dial(b, host, nil)
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if err := s.Call(ctx, "ping", nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("docs", func(b *testing.B) { run(b) })
	b.Run("stdio-gateway", func(b *testing.B) {
		run(b, "-stdio", "node "+mcptest.NPMPeer(b, "server-everything")+" stdio")
	})
	b.Run("http-gateway", func(b *testing.B) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		b.Cleanup(up.Close)
		run(b, "-upstream", up.URL)
	})
}
