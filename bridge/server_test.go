//go:build !js

package bridge_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server side must satisfy go-sdk's Connection interface.
var _ mcp.Connection = (*bridge.Conn)(nil)

// goServer builds a go-sdk server with n text resources (page size 4), a
// 1 MiB blob resource, a template with completion and subscriptions, a slow
// resource that records its cancellation and a resource whose handler blocks
// until released.
type goServer struct {
	*mcp.Server
	blob      []byte
	cancelled chan string
	slow      chan struct{}
	subs      chan string
}

func newGoServer(t *testing.T, n int, versions ...string) *goServer {
	t.Helper()
	g := &goServer{cancelled: make(chan string, 4), slow: make(chan struct{}), subs: make(chan string, 4)}
	g.blob = make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(g.blob)
	g.Server = mcp.NewServer(&mcp.Implementation{Name: "go-sdk-test", Version: "1"}, &mcp.ServerOptions{
		PageSize:                  4,
		Instructions:              "use the docs",
		SupportedProtocolVersions: versions,
		SubscribeHandler: func(ctx context.Context, r *mcp.SubscribeRequest) error {
			g.subs <- r.Params.URI
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(ctx context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			var vals []string
			for _, v := range []string{"alpha", "beta", "bravo"} {
				if strings.HasPrefix(v, r.Params.Argument.Value) {
					vals = append(vals, v)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
		},
	})
	for i := range n {
		uri := fmt.Sprintf("mem://doc/%02d", i)
		text := fmt.Sprintf("document %d", i)
		g.AddResource(&mcp.Resource{URI: uri, Name: fmt.Sprintf("doc%02d", i), MIMEType: "text/plain"},
			func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
			})
	}
	g.AddResource(&mcp.Resource{URI: "mem://blob", Name: "blob", MIMEType: "application/octet-stream"},
		func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://blob", MIMEType: "application/octet-stream", Blob: g.blob}}}, nil
		})
	g.AddResource(&mcp.Resource{URI: "mem://slow", Name: "slow"},
		func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			select {
			case <-ctx.Done():
				g.cancelled <- r.Params.URI
				return nil, ctx.Err()
			case <-g.slow:
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://slow", Text: "late"}}}, nil
			}
		})
	g.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://t/{id}", Name: "t"},
		func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "templated " + r.Params.URI}}}, nil
		})
	return g
}

func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func serveB(b *testing.B, h http.Handler) string { return serve(b, h) }

func dial(t *testing.T, url string, o *bridge.Options) *bridge.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := bridge.Dial(ctx, url, o)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestGoSDKServer(t *testing.T) {
	// go-sdk v1.8.0 in its three configurations: both revisions (the
	// default, auto, speaks 2026-07-28), 2026-07-28 only, 2025-11-25 only
	// (auto falls back to initialize), and a client pinned to the legacy
	// revision against a dual server.
	for _, cfg := range []struct {
		name     string
		versions []string
		protocol string
		want     string
	}{
		{"dual", nil, "", bridge.ProtocolModern},
		{"modern only", []string{"2026-07-28"}, "", bridge.ProtocolModern},
		{"legacy only", []string{"2025-11-25"}, "", bridge.ProtocolLegacy},
		{"dual, client pinned legacy", nil, bridge.ProtocolLegacy, bridge.ProtocolLegacy},
		{"modern only, client pinned modern", []string{"2026-07-28"}, bridge.ProtocolModern, bridge.ProtocolModern},
	} {
		t.Run(cfg.name, func(t *testing.T) { testGoSDKServer(t, cfg.versions, cfg.protocol, cfg.want) })
	}
}

// watchRec records what a session's Watcher is told.
type watchRec struct {
	acked, updated, listChanged chan string
	refused                     chan error
}

func newWatchRec() *watchRec {
	return &watchRec{acked: make(chan string, 16), updated: make(chan string, 16), listChanged: make(chan string, 16), refused: make(chan error, 16)}
}
func (w *watchRec) Acked(uri string)              { w.acked <- uri }
func (w *watchRec) Refused(uri string, err error) { w.refused <- err }
func (w *watchRec) Lost([]string, error)          {}
func (w *watchRec) Updated(uri string)            { w.updated <- uri }
func (w *watchRec) ListChanged()                  { w.listChanged <- "" }

func recv[T any](t *testing.T, ch chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

func testGoSDKServer(t *testing.T, versions []string, protocol, want string) {
	g := newGoServer(t, 10, versions...)
	url := serve(t, bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return g.Server }))
	w := newWatchRec()
	s := dial(t, url, &bridge.Options{Watcher: w, Protocol: protocol})
	ctx := context.Background()

	init := s.InitializeResult()
	if init.ProtocolVersion != want || init.ServerInfo.Name != "go-sdk-test" || init.Instructions != "use the docs" {
		t.Fatalf("handshake result = %+v", init)
	}

	t.Run("list across pages", func(t *testing.T) {
		var pages int
		l, err := s.ListResources(ctx, func(page []bridge.Resource, bad []error) { pages++ })
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != 12 || l.Pages < 3 || pages != l.Pages || l.Truncated {
			t.Fatalf("got %d items in %d pages (callback %d), truncated=%v", len(l.Items), l.Pages, pages, l.Truncated)
		}
	})
	t.Run("templates", func(t *testing.T) {
		l, err := s.ListTemplates(ctx, nil)
		if err != nil || len(l.Items) != 1 || l.Items[0].URITemplate != "mem://t/{id}" {
			t.Fatalf("templates = %+v, %v", l, err)
		}
		c, err := s.ReadResource(ctx, "mem://t/42")
		if err != nil || *c[0].Text != "templated mem://t/42" {
			t.Fatalf("templated read = %+v, %v", c, err)
		}
	})
	t.Run("read text", func(t *testing.T) {
		c, err := s.ReadResource(ctx, "mem://doc/03")
		if err != nil {
			t.Fatal(err)
		}
		if len(c) != 1 || c[0].Text == nil || *c[0].Text != "document 3" || c[0].Blob != nil || c[0].MIMEType != "text/plain" {
			t.Fatalf("contents = %+v", c)
		}
	})
	t.Run("read 1 MiB blob byte-exact", func(t *testing.T) {
		c, err := s.ReadResource(ctx, "mem://blob")
		if err != nil {
			t.Fatal(err)
		}
		got, err := base64.StdEncoding.DecodeString(*c[0].Blob)
		if err != nil || !bytes.Equal(got, g.blob) {
			t.Fatalf("blob differs (err %v, %d bytes)", err, len(got))
		}
	})
	t.Run("completion", func(t *testing.T) {
		c, err := s.Complete(ctx, "mem://t/{id}", "id", "b", nil)
		if err != nil || strings.Join(c.Values, ",") != "beta,bravo" {
			t.Fatalf("complete = %+v, %v", c, err)
		}
	})
	t.Run("watch and updated", func(t *testing.T) {
		s.Watch([]string{"mem://doc/01"}, nil)
		if got := recv(t, w.acked, "Acked"); got != "mem://doc/01" {
			t.Fatalf("acked %q", got)
		}
		if got := recv(t, g.subs, "subscription on the server"); got != "mem://doc/01" {
			t.Fatalf("server saw subscribe %q", got)
		}
		if err := g.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "mem://doc/01"}); err != nil {
			t.Fatal(err)
		}
		if u := recv(t, w.updated, "updated notification"); u != "mem://doc/01" {
			t.Fatalf("updated %q", u)
		}
		// A second URI, then the first removed: the second keeps updating
		// and list changes keep coming (go-sdk's listen defect must not bite).
		s.Watch([]string{"mem://doc/02"}, nil)
		recv(t, w.acked, "Acked of the second URI")
		recv(t, g.subs, "second subscription")
		s.Watch(nil, []string{"mem://doc/01"})
		time.Sleep(100 * time.Millisecond) // the removal lands (a listen ends)
		if err := g.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "mem://doc/02"}); err != nil {
			t.Fatal(err)
		}
		if u := recv(t, w.updated, "updated notification after another URI's removal"); u != "mem://doc/02" {
			t.Fatalf("updated %q", u)
		}
		for len(w.listChanged) > 0 { // re-list requests after the listen replacement
			<-w.listChanged
		}
		g.AddResource(&mcp.Resource{URI: "mem://new", Name: "new"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://new", Text: "n"}}}, nil
		})
		recv(t, w.listChanged, "list_changed after a listen ended")
		g.RemoveResources("mem://new")
	})
	t.Run("not found", func(t *testing.T) {
		_, err := s.ReadResource(ctx, "mem://missing")
		e, ok := bridge.AsError(err)
		if !ok || !bridge.IsNotFound(err) || e.Code != -32602 || e.URI != "mem://missing" || bridge.IsRetryable(err) {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("cancel reaches the server and the session goes on", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() { _, err := s.ReadResource(cctx, "mem://slow"); errc <- err }()
		time.Sleep(50 * time.Millisecond)
		cancel()
		err := <-errc
		if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindCancelled {
			t.Fatalf("err = %v", err)
		}
		select {
		case u := <-g.cancelled:
			if u != "mem://slow" {
				t.Fatal(u)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the server handler's context was not cancelled")
		}
		if _, err := s.ReadResource(ctx, "mem://doc/00"); err != nil {
			t.Fatalf("next call on the same session: %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		tctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := s.ReadResource(tctx, "mem://slow")
		if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindTimeout || !errors.Is(err, bridge.ErrTimeout) || !bridge.IsRetryable(err) {
			t.Fatalf("err = %v", err)
		}
		<-g.cancelled
		if _, err := s.ReadResource(ctx, "mem://doc/00"); err != nil {
			t.Fatalf("after timeout: %v", err)
		}
	})
	t.Run("concurrent calls", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				uri := fmt.Sprintf("mem://doc/%02d", i%10)
				c, err := s.ReadResource(ctx, uri)
				if err != nil || *c[0].Text != fmt.Sprintf("document %d", i%10) {
					t.Errorf("%s: %+v %v", uri, c, err)
				}
			}()
		}
		wg.Wait()
	})
}

func TestServerVanishesMidRead(t *testing.T) {
	g := newGoServer(t, 1)
	var mu sync.Mutex
	var conns []*bridge.Conn
	url := serve(t, bridge.ServerHandler(nil, func(c *bridge.Conn) *mcp.Server {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		return g.Server
	}))
	s := dial(t, url, &bridge.Options{Timeout: 30 * time.Second})
	errc := make(chan error, 1)
	start := time.Now()
	go func() { _, err := s.ReadResource(context.Background(), "mem://slow"); errc <- err }()
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	conns[0].Close()
	mu.Unlock()
	select {
	case err := <-errc:
		e, ok := bridge.AsError(err)
		if !ok || e.Kind != bridge.KindUnavailable || !bridge.IsRetryable(err) || errors.Is(err, bridge.ErrTimeout) {
			t.Fatalf("err = %#v", err)
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("took %v: waited for the timeout instead of failing on the lost connection", time.Since(start))
		}
	case <-time.After(25 * time.Second):
		t.Fatal("pending read never failed")
	}
	if _, err := s.ReadResource(context.Background(), "mem://doc/00"); !bridge.IsRetryable(err) {
		t.Fatalf("call after loss: %v", err)
	}
	<-s.Done()
}

func TestCapabilityGate(t *testing.T) {
	// A server with tools only: resources/* and completion never leave.
	srv := mcp.NewServer(&mcp.Implementation{Name: "tools-only", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *mcp.CallToolRequest, in struct {
		S string `json:"s"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.S}}}, nil, nil
	})
	url := serve(t, bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return srv }))
	s := dial(t, url, nil)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"list":      func() error { _, err := s.ListResources(ctx, nil); return err },
		"templates": func() error { _, err := s.ListTemplates(ctx, nil); return err },
		"read":      func() error { _, err := s.ReadResource(ctx, "x://y"); return err },
		"subscribe": func() error { return s.Subscribe(ctx, "x://y") },
		"complete":  func() error { _, err := s.Complete(ctx, "x://{y}", "y", "", nil); return err },
	} {
		err := call()
		if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindUnsupported || !errors.Is(err, bridge.ErrNotSupported) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	res, err := s.CallTool(ctx, "echo", map[string]string{"s": "hi"})
	if err != nil || !strings.Contains(string(res), `"hi"`) {
		t.Fatalf("tools/call = %s, %v", res, err)
	}
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools.Items) != 1 {
		t.Fatalf("tools/list = %+v %v", tools, err)
	}
}
