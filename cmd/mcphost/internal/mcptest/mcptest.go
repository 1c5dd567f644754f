//go:build !js

package mcptest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// Serve serves fn on /mcp of a loopback HTTP server (a [bridge.Endpoint]
// with opts) and returns its host:port. When the test ends it shuts down as
// mcphost does: the server stops accepting, every session's context is
// cancelled, and Serve's cleanup waits up to 10 s for fn to return.
func Serve(tb testing.TB, opts *bridge.EndpointOptions, fn func(ctx context.Context, c *bridge.Conn)) string {
	tb.Helper()
	// Sessions are hijacked connections, which http.Server.Shutdown does
	// not track: they run under sessCtx, cancelled at shutdown, and are
	// counted.
	sessCtx, cancelSessions := context.WithCancel(context.Background())
	var sessions sync.WaitGroup
	mux := http.NewServeMux()
	mux.Handle("/mcp", bridge.Endpoint(opts, func(_ context.Context, c *bridge.Conn) {
		sessions.Add(1)
		defer sessions.Done()
		fn(sessCtx, c)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	tb.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		cancelSessions()
		done := make(chan struct{})
		go func() { sessions.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			tb.Errorf("sessions still running 10 s after shutdown")
		}
	})
	return ln.Addr().String()
}

// Dial connects the product's client to host's /mcp (with a 20 s call
// timeout unless o sets one) and closes the session when the test ends.
func Dial(tb testing.TB, host string, o *bridge.Options) *bridge.Session {
	tb.Helper()
	if o == nil {
		o = &bridge.Options{}
	}
	if o.Timeout == 0 {
		o.Timeout = 20 * time.Second // generous: the machine may be loaded
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, err := bridge.Dial(ctx, "ws://"+host+"/mcp", o)
	if err != nil {
		tb.Fatalf("dial %s: %v", host, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// WaitFor receives from ch or fails the test after d.
func WaitFor[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("timed out after %v waiting for %s", d, what)
	}
	var zero T
	return zero
}

// A LogBuffer collects log output for assertions; it may be written and
// read concurrently.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Logger returns a debug-level text logger writing to a new LogBuffer.
func Logger() (*slog.Logger, *LogBuffer) {
	logs := &LogBuffer{}
	return slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), logs
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// NPMPeer returns the path of an npm test peer's entry point
// (e2e/node_modules/@modelcontextprotocol/PKG), failing (not skipping) when
// it or node is missing.
func NPMPeer(tb testing.TB, pkg string) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(root, "e2e", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("npm peer %s is missing (%v): run make test-deps", pkg, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Fatalf("node is missing: run make test-deps")
	}
	return p
}

// moduleRoot is the nearest directory at or above the working directory (a
// test's package directory) that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above the working directory")
		}
		dir = parent
	}
}
