//go:build !js

// Command stdioserver is a test fixture: the small stdio MCP server (go-sdk,
// newline-delimited JSON on stdin/stdout) behind the gateway's overhead
// benchmark and load test (cmd/mcphost/gateway_bench_test.go, load_test.go),
// which build it with go build into a temporary directory. Nothing else
// builds or imports it.
//
// It lists -n resources mem://item/0 … mem://item/{n-1} and reads any
// mem://item/{id} (also through the template mem://item/{id}) as a text part
// whose first line names the URI, padded to -size bytes, so a client can tell
// a mismatched response from the right one; mem://size/{bytes}/{id} reads the
// same way with a text of that many bytes (at most 16 MiB).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	n := flag.Int("n", 100, "number of listed resources")
	size := flag.Int("size", 1024, "bytes of each read's text")
	flag.Parse()

	s := mcp.NewServer(&mcp.Implementation{Name: "mcphost-bench-stdio", Version: "1.0.0"}, nil)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		n, ok := *size, false
		id, isItem := strings.CutPrefix(uri, "mem://item/")
		if rest, isSized := strings.CutPrefix(uri, "mem://size/"); isSized {
			var bytes string
			bytes, id, _ = strings.Cut(rest, "/")
			b, err := strconv.ParseUint(bytes, 10, 32)
			n, ok = int(b), err == nil && b <= 16<<20
		} else {
			ok = isItem
		}
		if _, err := strconv.ParseUint(id, 10, 32); !ok || err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text(uri, n)}}}, nil
	}
	for i := range *n {
		uri := "mem://item/" + strconv.Itoa(i)
		s.AddResource(&mcp.Resource{URI: uri, Name: "item-" + strconv.Itoa(i), MIMEType: "text/plain"}, read)
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://item/{id}", Name: "item", MIMEType: "text/plain"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://size/{bytes}/{id}", Name: "sized", MIMEType: "text/plain"}, read)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("stdioserver: %v", err)
		os.Exit(1)
	}
}

// text is "uri\n" followed by filler up to size bytes.
func text(uri string, size int) string {
	head := fmt.Sprintf("%s\n", uri)
	if size <= len(head) {
		return head
	}
	return head + strings.Repeat("x", size-len(head))
}
