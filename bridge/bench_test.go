//go:build !js

package bridge_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/mcphost/mcphost/bridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkReadBlob measures one resources/read of a 1.8 MB blob from a
// go-sdk server over a loopback WebSocket: the server encodes ~2.4 MB of
// base64, the client decodes the frame and the contents.
func BenchmarkReadBlob(b *testing.B) {
	blob := make([]byte, 1_834_208)
	rand.Read(blob)
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "mem://png", Name: "png"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://png", MIMEType: "image/png", Blob: blob}}}, nil
	})
	url := serveB(b, bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return srv }))
	s, err := bridge.Dial(context.Background(), url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := s.ReadResource(context.Background(), "mem://png")
		if err != nil || len(*c[0].Blob) != 2_445_612 {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip measures a small request/response over loopback.
func BenchmarkRoundTrip(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	for i := range 10 {
		uri := fmt.Sprintf("mem://%d", i)
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "hello"}}}, nil
		})
	}
	url := serveB(b, bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return srv }))
	s, err := bridge.Dial(context.Background(), url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.ReadResource(context.Background(), "mem://3"); err != nil {
			b.Fatal(err)
		}
	}
}
