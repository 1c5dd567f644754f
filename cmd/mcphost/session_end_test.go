//go:build !js

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

const initLegacy = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// holdingUpstream is a Streamable HTTP server that answers initialize and
// notifications, then holds every other POST until its request is
// cancelled (or 2 min pass). held receives one value per held POST, gone
// one per held POST whose context ended.
type holdingUpstream struct {
	url        string
	hold       string // also hold "initialize", or "notifications"
	held, gone chan struct{}
	holding    atomic.Int64  // POSTs held right now
	maxHeld    atomic.Int64  // most POSTs held at once
	conns      atomic.Int64  // TCP connections open now
	maxConns   atomic.Int64  // most TCP connections open at once
	release    chan struct{} // closing it answers every held POST (and those after) with an empty result
}

func raiseMax(max *atomic.Int64, n int64) {
	for {
		m := max.Load()
		if n <= m || max.CompareAndSwap(m, n) {
			return
		}
	}
}

func newHoldingUpstream(t *testing.T, hold string) *holdingUpstream {
	t.Helper()
	u := &holdingUpstream{hold: hold, held: make(chan struct{}, 10000), gone: make(chan struct{}, 10000),
		release: make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		case http.MethodDelete:
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &m)
		switch {
		case m.Method == "initialize" && u.hold != "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"holding","version":"1"}}}`)
		case len(m.ID) == 0 && u.hold != "notifications":
			w.WriteHeader(http.StatusAccepted)
		default:
			raiseMax(&u.maxHeld, u.holding.Add(1))
			defer u.holding.Add(-1)
			u.held <- struct{}{}
			select {
			case <-r.Context().Done():
				u.gone <- struct{}{}
			case <-u.release:
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
			case <-time.After(2 * time.Minute):
			}
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			raiseMax(&u.maxConns, u.conns.Add(1))
		case http.StateClosed, http.StateHijacked:
			u.conns.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	u.url = srv.URL
	return u
}

// waitSlot waits up to d for host's single connection slot (-max-conns 1)
// to be free again: an upgrade that is not refused with 503.
func waitSlot(t *testing.T, host string, d time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st := upgradeStatus(t, host, nil)
		if st != http.StatusServiceUnavailable {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the connection slot is still held %v later (upgrade: %d)", what, d, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitChan(t *testing.T, c <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(d):
		t.Fatalf("%s: nothing within %v", what, d)
	}
}

// For the review of 2026-12-05: a browser that leaves ends its upstream
// session at once (the held POST is cancelled, the slot is free), however
// long the upstream holds its requests: its ping, or already
// notifications/initialized, which nothing may overtake.
func TestHTTPGatewaySessionEndsWithBrowser(t *testing.T) {
	t.Parallel()
	for _, hold := range []string{"", "notifications"} {
		t.Run(cmp.Or(hold, "request")+" held", func(t *testing.T) {
			t.Parallel()
			up := newHoldingUpstream(t, hold)
			host, _ := startServer(t, testConfig(t, "-upstream", up.url, "-max-conns", "1"))
			r := mcptest.DialRaw(t, host, "")
			r.Send(initLegacy)
			r.Answer("1", 5*time.Second, nil)
			r.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			r.Send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			waitChan(t, up.held, 5*time.Second, "the upstream holding a request")
			r.Close()
			waitChan(t, up.gone, 5*time.Second, "the held POST cancelled after the browser left")
			waitSlot(t, host, 5*time.Second, "after the browser left")
		})
	}
}

// muteChild writes a script that records its pid, answers initialize (id
// 1) and then never reads stdin again, and returns the -stdio command and
// the pid file.
func muteChild(t *testing.T) (command, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	pidFile = filepath.Join(dir, "pid")
	script := filepath.Join(dir, "mute.sh")
	body := `echo $$ > '` + pidFile + `'
read -r line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mute","version":"1"}}}'
exec sleep 300
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + script, pidFile
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", file)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// bigPing is over a pipe's 64 KiB: a child that does not read its stdin
// blocks the gateway's write of it.
var bigPing = `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}}`

// For the review of 2026-12-05: a stdio child that stops reading its stdin
// is stopped, and the slot freed, when the browser leaves, and when the
// idle timeout closes a browser whose message the child never took.
func TestStdioGatewaySessionEnds(t *testing.T) {
	t.Parallel()
	t.Run("browser leaves", func(t *testing.T) {
		t.Parallel()
		command, pidFile := muteChild(t)
		host, _ := startServer(t, testConfig(t, "-stdio", command, "-max-conns", "1"))
		r := mcptest.DialRaw(t, host, "")
		r.Send(initLegacy)
		r.Answer("1", 5*time.Second, nil)
		pid := readPID(t, pidFile)
		r.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		r.Send(bigPing)
		r.Close()
		waitSlot(t, host, 5*time.Second, "after the browser left")
		waitGone(t, []int{pid}, "the stdio child after the browser left")
	})
	t.Run("idle timeout with a write stuck in the pipe", func(t *testing.T) {
		t.Parallel()
		command, pidFile := muteChild(t)
		host, _ := startServer(t, testConfig(t, "-stdio", command, "-max-conns", "1", "-idle-timeout", "1s", "-ping-interval", "0"))
		ws := dialWS(t, host)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ws.Write(ctx, websocket.MessageText, []byte(initLegacy))
		if _, _, err := ws.Read(ctx); err != nil {
			t.Fatal(err)
		}
		pid := readPID(t, pidFile)
		ws.Write(ctx, websocket.MessageText, []byte(bigPing))
		// No more reads: no pong, so the idle timeout fires.
		waitSlot(t, host, 8*time.Second, "after the idle timeout")
		waitGone(t, []int{pid}, "the stdio child after the idle timeout")
	})
}

// For the review of 2026-12-05: a relay ask the upstream holds past the
// relay timeout (its read, or the initialize before it) is closed "relay:
// not served", and its source session ends with it (the held POST
// cancelled, the slot free).
//
// The property needs the held POST to reach the upstream before the relay
// timeout; on a loaded machine under -race the handshake before a read can
// take longer than any fixed timeout short enough for a unit test (make
// test once saw 500 ms pass with nothing held). An attempt in which nothing
// was held proves nothing, so it is made again with twice the timeout, up
// to 8 s; every attempt must be refused "not served".
func TestRelayDoorReleasesHeldSource(t *testing.T) {
	t.Parallel()
	for _, hold := range []string{"", "initialize"} {
		t.Run(cmp.Or(hold, "request")+" held", func(t *testing.T) {
			t.Parallel()
			for timeout := 500 * time.Millisecond; ; timeout *= 2 {
				up := newHoldingUpstream(t, hold)
				cfg := testConfig(t, "-upstream", up.url, "-max-conns", "1")
				cfg.relayTimeout = timeout
				host, _ := startServer(t, cfg)
				r, _ := relay(t, host, "", "", []byte(`{"uri":"mem://a"}`))
				if r == nil {
					t.Fatal("the relay door refused the upgrade")
				}
				r.notServed(t, "a read the upstream holds")
				if len(up.held) == 0 {
					if timeout >= 8*time.Second {
						t.Fatalf("nothing reached the upstream within a relay timeout of %v", timeout)
					}
					t.Logf("nothing reached the upstream within a relay timeout of %v: again with %v", timeout, 2*timeout)
					continue
				}
				waitChan(t, up.gone, 5*time.Second, "the held POST cancelled after the relay door gave up")
				waitSlot(t, host, 5*time.Second, "after the relay door gave up")
				return
			}
		})
	}
}
