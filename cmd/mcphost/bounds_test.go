//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// dialWS opens a plain WebSocket to host's /mcp (it reads only when told).
func dialWS(t *testing.T, host string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+host+"/mcp", &websocket.DialOptions{Subprotocols: []string{bridge.Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// closeOf reads ws until it ends and returns the close status and reason
// the server sent (-1 when it sent none).
func closeOf(t *testing.T, ws *websocket.Conn, within time.Duration) (websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		_, _, err := ws.Read(ctx)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			t.Fatalf("still open after %v", within)
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code, ce.Reason
		}
		return -1, err.Error()
	}
}

// For #14 §11: the documents server reads client messages with
// -max-request (4 MiB by default, not -read-limit's 64 MiB): four
// concurrent requests one byte over it are each refused with 1009 naming
// the limit, a request just under it is answered (its error echoes at most
// 1 KB), and the server goes on serving.
func TestMaxRequest(t *testing.T) {
	t.Parallel()
	host, _ := startServer(t, testConfig(t))
	const limit = 4 << 20
	over := func(n int) []byte { // a resources/read of exactly n bytes
		head := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docs://team/x/y/`
		tail := `"}}`
		return []byte(head + strings.Repeat("z", n-len(head)-len(tail)) + tail)
	}
	var wg sync.WaitGroup
	codes := make([]websocket.StatusCode, 4)
	reasons := make([]string, 4)
	for i := range 4 {
		ws := dialWS(t, host)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws.Write(context.Background(), websocket.MessageText, over(limit+1))
			codes[i], reasons[i] = closeOf(t, ws, 10*time.Second)
		}()
	}
	wg.Wait()
	for i := range 4 {
		// coder/websocket words it "read limited at <limit+1> bytes".
		if codes[i] != websocket.StatusMessageTooBig || !strings.Contains(reasons[i], fmt.Sprint(limit+1)) {
			t.Errorf("request %d over -max-request: close %d %q, want 1009 naming the limit", i, codes[i], reasons[i])
		}
	}
	r := mcptest.DialRaw(t, host, "")
	r.Send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r.Answer("0", 5*time.Second, nil)
	r.Send(over(limit - 64))
	m := r.Answer("1", 10*time.Second, nil)
	if m.Error == nil || len(m.Raw) > 3<<10 {
		t.Fatalf("a request under the limit: %d-byte answer %.200s, want a not-found error echoing at most 1 KB", len(m.Raw), m.Raw)
	}
	s := mcptest.Dial(t, host, nil)
	if _, err := s.ListResources(context.Background(), nil); err != nil {
		t.Fatalf("the server after the refusals: %v", err)
	}
}

// For #14 §12: sockets that upgrade and never send a valid request hold no
// slot past -first-request-timeout (closed with 1008 naming it), a client
// that sent a request and then neither sends nor answers pings is closed at
// -idle-timeout (1001), and a quiet client that answers pings stays.
func TestIdleSocketsReleased(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "-max-conns", "5", "-first-request-timeout", "300ms", "-idle-timeout", "1s")
	host, _ := startServer(t, cfg)
	ctx := context.Background()
	live := mcptest.Dial(t, host, nil) // reads, so it answers pings
	if _, err := live.ListResources(ctx, nil); err != nil {
		t.Fatal(err)
	}
	mute := dialWS(t, host) // one request, then nothing: no read, no pong
	mute.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	var idle []*websocket.Conn
	for range 3 {
		idle = append(idle, dialWS(t, host))
	}
	if st := upgradeStatus(t, host, nil); st != 503 {
		t.Fatalf("a sixth connection: %d, want 503 while five are open", st)
	}
	for i, ws := range idle {
		code, reason := closeOf(t, ws, 5*time.Second)
		if code != websocket.StatusPolicyViolation || !strings.Contains(reason, "no valid JSON-RPC request within 300ms") {
			t.Errorf("idle socket %d: close %d %q, want 1008 naming the first-request deadline", i, code, reason)
		}
	}
	time.Sleep(2 * time.Second) // past the idle timeout, with pings at its half
	code, reason := closeOf(t, mute, 5*time.Second)
	if code != websocket.StatusGoingAway || !strings.Contains(reason, "idle") {
		t.Errorf("mute client: close %d %q, want 1001 idle", code, reason)
	}
	if _, err := live.ListResources(ctx, nil); err != nil {
		t.Fatalf("the quiet client that answers pings was dropped: %v", err)
	}
	// The slots are free again.
	for range 3 {
		r := mcptest.DialRaw(t, host, "")
		r.Send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	}
}

// For #14: a client's 10 MB frame of "[" (10 million nested arrays) neither
// crashes nor wedges the server: refused at -max-request by default; with a
// limit above it, answered with a parse error on a connection that goes on;
// and the same through the stdio gateway at the default -read-limit.
func TestDeepFrame(t *testing.T) {
	t.Parallel()
	deep := []byte(strings.Repeat("[", 10<<20))
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	t.Run("documents server, default limit", func(t *testing.T) {
		t.Parallel()
		host, _ := startServer(t, testConfig(t))
		ws := dialWS(t, host)
		ws.Write(context.Background(), websocket.MessageText, deep)
		if code, _ := closeOf(t, ws, 10*time.Second); code != websocket.StatusMessageTooBig {
			t.Errorf("close %d, want 1009", code)
		}
		if _, err := mcptest.Dial(t, host, nil).ListResources(context.Background(), nil); err != nil {
			t.Fatalf("after the deep frame: %v", err)
		}
	})
	t.Run("documents server, 16 MiB limit", func(t *testing.T) {
		t.Parallel()
		host, _ := startServer(t, testConfig(t, "-max-request", "16MiB"))
		r := mcptest.DialRaw(t, host, "")
		r.Send(initialize)
		r.Answer("0", 5*time.Second, nil)
		r.Send(deep)
		m := r.Next(20 * time.Second)
		if m.Error == nil || m.Error.Code != bridge.CodeParseError || len(m.Raw) > 2<<10 {
			t.Fatalf("answer to the deep frame: %.300s, want a short parse error", m.Raw)
		}
		r.Send(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)
		if m := r.Answer("2", 10*time.Second, nil); m.Error != nil {
			t.Fatalf("the connection after the deep frame: %.300s", m.Raw)
		}
	})
	t.Run("stdio gateway", func(t *testing.T) {
		t.Parallel()
		host, _ := startServer(t, testConfig(t, "-stdio", "cat"))
		r := mcptest.DialRaw(t, host, "")
		r.Send(deep)
		m := r.Next(20 * time.Second)
		if m.Error == nil || m.Error.Code != bridge.CodeParseError || len(m.Raw) > 2<<10 {
			t.Fatalf("answer to the deep frame: %.300s, want a short parse error", m.Raw)
		}
		r.Send(`{"jsonrpc":"2.0","id":"echo","method":"ping"}`) // cat sends it back
		if m := r.Next(10 * time.Second); m.Method != "ping" {
			t.Fatalf("the gateway after the deep frame: %.300s", m.Raw)
		}
	})
}
