//go:build !js

package bridge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcphost/mcphost/bridge"
)

func TestEndpointRefusals(t *testing.T) {
	release := make(chan struct{})
	h := bridge.Endpoint(&bridge.EndpointOptions{
		OriginPatterns: []string{"http://localhost:5173", "*.example.com"},
		AllowedHosts:   []string{"mcp.internal:*"},
		MaxConns:       1,
		Authenticate: func(tok string) (string, bool) {
			if tok == "s3cret" {
				return "alice", true
			}
			return "", false
		},
	}, func(ctx context.Context, c *bridge.Conn) {
		if c.Principal() != "alice" {
			panic("principal lost")
		}
		select {
		case <-release:
		case <-c.Done():
		}
	})
	srv := httptest.NewServer(h) // listens on 127.0.0.1: the loopback Host rule applies
	defer srv.Close()
	defer close(release)
	host := strings.TrimPrefix(srv.URL, "http://")

	try := func(hostHeader, origin string, protos ...string) int {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.Host = hostHeader
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if len(protos) > 0 {
			req.Header.Set("Sec-WebSocket-Protocol", strings.Join(protos, ", "))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tok := []string{"mcp", "mcp.token.s3cret"}
	for _, tc := range []struct {
		name, host, origin string
		protos             []string
		want               int
	}{
		{"foreign origin", host, "https://evil.test", tok, 403},
		{"null origin", host, "null", tok, 403},
		{"rebinding host", "evil.test:80", "http://evil.test:80", tok, 403},
		{"allowed extra host", "mcp.internal:8080", "", []string{"mcp"}, 401},
		{"no subprotocol", host, "", nil, 400},
		{"missing token", host, "", []string{"mcp"}, 401},
		{"wrong token", host, "", []string{"mcp", "mcp.token.nope"}, 401},
		{"pattern origin", host, "http://localhost:5173", []string{"mcp"}, 401},
		{"wildcard origin", host, "https://app.example.com", []string{"mcp"}, 401},
		{"plain GET", host, "", nil, 400},
	} {
		if got := try(tc.host, tc.origin, tc.protos...); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	// Same origin with a valid token upgrades; a second connection is past MaxConns.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+host, &websocket.DialOptions{Subprotocols: tok, HTTPHeader: http.Header{"Origin": {"http://" + host}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if ws.Subprotocol() != "mcp" {
		t.Fatalf("subprotocol %q", ws.Subprotocol())
	}
	if got := try(host, "", tok...); got != 503 {
		t.Errorf("past max conns: %d, want 503", got)
	}
}

func TestHostIsLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "localhost:8080": true, "app.localhost:1": true, "127.0.0.1:80": true, "127.9.9.9": true,
		"[::1]:8080": true, "::1": true, "LOCALHOST.": true,
		"evil.test": false, "10.0.0.1:80": false, "localhost.evil.test": false, "": false,
	} {
		if got := bridge.HostIsLoopback(h); got != want {
			t.Errorf("HostIsLoopback(%q) = %v", h, got)
		}
	}
}
