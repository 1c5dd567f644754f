//go:build !js

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// upstreamRecorder records what the gateway sent to the Streamable HTTP server.
type upstreamRecorder struct {
	mu       sync.Mutex
	versions []string // MCP-Protocol-Version of each request after initialize
	custom   []string // X-Test header of each request
	gets     int
}

// TestUpstreamHTTP relays to a go-sdk Streamable HTTP server: resources,
// out-of-band resources/updated and list_changed (which only the standalone
// GET stream can carry), a ping answered while a slow tool call is in
// flight, the stamped MCP-Protocol-Version and -upstream-header headers, and
// an HTTP failure answered as a JSON-RPC error for that request only.
func TestUpstreamHTTP(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	text := func(uri, s string) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: s}}}, nil
		}
	}
	srv.AddResource(&mcp.Resource{URI: "mem://a", Name: "a", MIMEType: "text/plain"}, text("mem://a", "alpha"))
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	rec := &upstreamRecorder{}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec.mu.Lock()
		rec.custom = append(rec.custom, r.Header.Get("X-Test"))
		// Requests of the 2026-07-28 revision (a client that probes with
		// server/discover first) carry their own version.
		modern := bytes.Contains(body, []byte(`"server/discover"`)) || bytes.Contains(body, []byte(`io.modelcontextprotocol/protocolVersion`))
		if !bytes.Contains(body, []byte(`"initialize"`)) && !modern {
			rec.versions = append(rec.versions, r.Header.Get("Mcp-Protocol-Version"))
		}
		if r.Method == http.MethodGet {
			rec.gets++
		}
		rec.mu.Unlock()
		if bytes.Contains(body, []byte(`"name":"boom"`)) {
			http.Error(w, "bad gateway", http.StatusBadGateway)
			return
		}
		if bytes.Contains(body, []byte(`"name":"denied"`)) {
			var req struct{ ID json.RawMessage }
			json.Unmarshal(body, &req)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32042,"message":"denied by policy","data":{"why":["scope"]}}}`, req.ID)
			return
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)

	host := startHTTP(t, &HTTP{URL: up.URL, Header: http.Header{"X-Test": {"yes"}}})
	updated, changed := make(chan string, 64), make(chan string, 64)
	s := mcptest.Dial(t, host, &bridge.Options{
		OnResourceUpdated: func(uri string) { updated <- uri },
		OnListChanged:     func(l string) { changed <- l },
	})
	ctx := context.Background()
	parts, err := s.ReadResource(ctx, "mem://a")
	if err != nil || parts[0].Text == nil || *parts[0].Text != "alpha" {
		t.Fatalf("read mem://a: %+v %v", parts, err)
	}
	if err := s.Subscribe(ctx, "mem://a"); err != nil {
		t.Fatal(err)
	}

	// Out-of-band notifications: only the standalone GET stream carries
	// them. Repeat until one arrives, since the stream opens asynchronously.
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for got := false; !got; {
		srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "mem://a"})
		select {
		case uri := <-updated:
			if uri != "mem://a" {
				t.Fatalf("updated %q", uri)
			}
			got = true
		case <-tick.C:
		case <-deadline:
			t.Fatal("no resources/updated through the gateway within 10 s")
		}
	}
	srv.AddResource(&mcp.Resource{URI: "mem://b", Name: "b"}, text("mem://b", "beta"))
	if l := mcptest.WaitFor(t, changed, 5*time.Second, "resources/list_changed"); l != "resources" {
		t.Fatalf("list_changed %q", l)
	}
	list, err := s.ListResources(ctx, nil)
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("list after list_changed: %+v %v", list, err)
	}

	// A ping answers while a slow tool call is in flight.
	slowDone := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "slow", map[string]any{})
		slowDone <- err
	}()
	mcptest.WaitFor(t, entered, 5*time.Second, "the slow tool to start")
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	start := time.Now()
	err = s.Call(pctx, "ping", nil, nil)
	pingTook := time.Since(start)
	cancel()
	if err != nil {
		t.Fatalf("ping during a slow call: %v", err)
	}
	select {
	case err := <-slowDone:
		t.Fatalf("the slow call finished before release: %v", err)
	default:
	}
	t.Logf("ping round trip through the HTTP gateway while a tool call is in flight: %v", pingTook)
	releaseOnce.Do(func() { close(release) })
	if err := mcptest.WaitFor(t, slowDone, 5*time.Second, "the slow call"); err != nil {
		t.Fatalf("slow call: %v", err)
	}

	// An HTTP failure becomes a JSON-RPC error for that request, naming the
	// status and the upstream's text, retryable; the session goes on.
	_, err = s.CallTool(ctx, "boom", map[string]any{})
	if e, ok := bridge.AsError(err); !ok || e.Code != -32603 || !strings.Contains(e.Message, "HTTP 502 Bad Gateway: bad gateway") ||
		string(e.Data) != `{"httpStatus":502,"reason":"bad gateway","retryable":true}` {
		t.Fatalf("boom = %v (data %s), want -32603 naming the upstream's 502 and its text", err, dataOf(err))
	}
	if err := s.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatalf("ping after an HTTP failure: %v", err)
	}
	// An HTTP error whose body is a JSON-RPC error passes it on intact.
	_, err = s.CallTool(ctx, "denied", map[string]any{})
	if e, ok := bridge.AsError(err); !ok || e.Code != -32042 || e.Message != "denied by policy" || string(e.Data) != `{"why":["scope"]}` {
		t.Fatalf("denied = %v (data %s), want the upstream's -32042 intact", err, dataOf(err))
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.gets == 0 {
		t.Error("the gateway never opened the standalone GET stream")
	}
	for i, v := range rec.versions {
		if v != bridge.ProtocolVersion {
			t.Errorf("request %d after initialize had MCP-Protocol-Version %q, want %q", i, v, bridge.ProtocolVersion)
		}
	}
	for i, v := range rec.custom {
		if v != "yes" {
			t.Errorf("request %d lacks the -upstream-header", i)
		}
	}
}

func dataOf(err error) string {
	if e, ok := bridge.AsError(err); ok {
		return string(e.Data)
	}
	return ""
}

// TestNewTransport: the gateway's own transport caps connections to the
// upstream and times response headers (never the streams after them),
// keeping http.DefaultTransport's proxy, dial and TLS settings.
func TestNewTransport(t *testing.T) {
	t.Parallel()
	tr := NewTransport(3, 5)
	if tr.MaxConnsPerHost != 3*7 || tr.ResponseHeaderTimeout != ResponseHeaderTimeout || tr.MaxIdleConnsPerHost != 7 {
		t.Fatalf("MaxConnsPerHost %d, ResponseHeaderTimeout %v, MaxIdleConnsPerHost %d", tr.MaxConnsPerHost, tr.ResponseHeaderTimeout, tr.MaxIdleConnsPerHost)
	}
	if tr.Proxy == nil || tr.DialContext == nil || tr.TLSHandshakeTimeout == 0 || !tr.ForceAttemptHTTP2 {
		t.Fatal("http.DefaultTransport's settings are lost")
	}
	if tr == http.DefaultTransport {
		t.Fatal("NewTransport returned http.DefaultTransport itself")
	}
	if n := NewTransport(0, 0).MaxConnsPerHost; n != 0 {
		t.Fatalf("no connection cap: MaxConnsPerHost %d, want 0", n)
	}
	if n := NewTransport(1<<40, 1<<20).MaxConnsPerHost; n != 0 {
		t.Fatalf("a cap past any count: MaxConnsPerHost %d, want 0 (none)", n)
	}
}
