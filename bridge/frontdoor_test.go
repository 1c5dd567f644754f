//go:build !js

package bridge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcphost/mcphost/bridge"
)

type diagnosis struct {
	Code   int    `json:"code"`
	Reason string `json:"reason"`
	Fix    string `json:"fix"`
}

// diagnose GETs url with Accept: application/json and the headers (a "Host"
// entry sets the Host), and returns the response and its decoded body.
func diagnose(t *testing.T, url string, hdr map[string]string) (*http.Response, diagnosis, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "application/json")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var d diagnosis
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatalf("diagnosis body %q: %v", body, err)
	}
	return resp, d, string(body)
}

// upgrade sends a WebSocket upgrade request and returns the response.
func upgrade(t *testing.T, url string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Sec-WebSocket-Protocol", "mcp")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestDiagnosis: a plain GET with Accept: application/json gets, with CORS
// for the requesting origin, the verdict an upgrade would get, in the
// upgrade's order, with a reason and a fix naming the cause exactly; never
// MCP. The token comes as Authorization: Bearer. 503 has Retry-After, both
// on the diagnosis and on the refused upgrade.
func TestDiagnosis(t *testing.T) {
	release := make(chan struct{})
	h := bridge.Endpoint(&bridge.EndpointOptions{
		OriginPatterns: []string{"http://localhost:5173", "*.example.com"},
		MaxConns:       1,
		Authenticate: func(tok string) (string, bool) {
			return "alice", tok == "s3cret"
		},
	}, func(ctx context.Context, c *bridge.Conn) {
		select {
		case <-release:
		case <-c.Done():
		}
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer close(release)
	host := strings.TrimPrefix(srv.URL, "http://")
	port := host[strings.LastIndexByte(host, ':')+1:]
	long := "http://" + strings.Repeat("a", 5000) + ".test"
	good := "Bearer s3cret"
	for _, tc := range []struct {
		name        string
		hdr         map[string]string
		code        int
		reason, fix string // exact when set
		contains    string // in reason+fix
	}{
		{"foreign origin", map[string]string{"Origin": "http://127.0.0.1:5174", "Authorization": good}, 403,
			`origin "http://127.0.0.1:5174" is not allowed`, "start mcphost with -origin http://127.0.0.1:5174", ""},
		{"null origin", map[string]string{"Origin": "null"}, 403, `origin "null" is never allowed`, "", "sandboxed iframe"},
		{"scheme differs from the pattern", map[string]string{"Origin": "https://localhost:5173", "Authorization": good}, 403,
			`origin "https://localhost:5173" is not allowed`, "start mcphost with -origin https://localhost:5173", ""},
		{"https page, http request, same host", map[string]string{"Origin": "https://" + host, "Authorization": good}, 403,
			`origin "https://` + host + `" is not allowed (the request reached mcphost over http)`, "", "-trusted-proxy 127.0.0.1/32"},
		{"rebinding host", map[string]string{"Host": "evil.test:" + port, "Origin": "http://evil.test:" + port}, 403,
			`host "evil.test:` + port + `" is not allowed on a loopback listener (DNS rebinding guard)`, "start mcphost with -allowed-hosts evil.test", ""},
		{"host before origin", map[string]string{"Host": "evil.test", "Origin": "https://elsewhere.test"}, 403, "", "", "-allowed-hosts evil.test"},
		{"missing token", map[string]string{"Origin": "http://" + host}, 401,
			"this server requires a token", "", "connect(url, { token })"},
		{"wrong token", map[string]string{"Origin": "http://localhost:5173", "Authorization": "Bearer nope"}, 401,
			"the token was refused", "", "-token-file"},
		{"long origin echoed at most 200 bytes", map[string]string{"Origin": long}, 403, "", "", "is not allowed"},
		{"may connect", map[string]string{"Origin": "https://app.example.com", "Authorization": good}, 200, "this page may connect", "", ""},
		{"no origin (not a browser)", map[string]string{"Authorization": "bearer s3cret"}, 200, "this page may connect", "", ""},
	} {
		resp, d, body := diagnose(t, srv.URL, tc.hdr)
		if resp.StatusCode != tc.code || d.Code != tc.code {
			t.Errorf("%s: HTTP %d, code %d, want %d (%s)", tc.name, resp.StatusCode, d.Code, tc.code, body)
			continue
		}
		if tc.reason != "" && d.Reason != tc.reason {
			t.Errorf("%s: reason %q, want %q", tc.name, d.Reason, tc.reason)
		}
		if tc.fix != "" && d.Fix != tc.fix {
			t.Errorf("%s: fix %q, want %q", tc.name, d.Fix, tc.fix)
		}
		if !strings.Contains(d.Reason+" "+d.Fix, tc.contains) {
			t.Errorf("%s: %s does not mention %q", tc.name, body, tc.contains)
		}
		if tc.code != 200 && d.Fix == "" {
			t.Errorf("%s: no fix in %s", tc.name, body)
		}
		if len(d.Reason) > 300 || len(d.Fix) > 600 || strings.Contains(body, "jsonrpc") {
			t.Errorf("%s: body %d bytes: %.300s", tc.name, len(body), body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
		}
		o := tc.hdr["Origin"]
		if len(o) > 2048 {
			o = "" // not an origin a browser sends: no CORS for it
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != o || !strings.Contains(resp.Header.Get("Vary"), "Origin") {
			t.Errorf("%s: CORS headers %v", tc.name, resp.Header)
		}
	}

	// Preflight of a diagnosis that carries the token.
	req, _ := http.NewRequest("OPTIONS", srv.URL, nil)
	req.Header.Set("Origin", "http://127.0.0.1:5174")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header.Set("Access-Control-Request-Headers", "authorization")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:5174" ||
		resp.Header.Get("Access-Control-Allow-Headers") != "authorization" || resp.Header.Get("Access-Control-Allow-Methods") != "GET" ||
		!strings.Contains(resp.Header.Get("Vary"), "Origin") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}

	// The upgrade refusals are unchanged; without Accept: application/json a
	// plain GET is still 426.
	if r := upgrade(t, srv.URL, map[string]string{"Origin": "http://127.0.0.1:5174"}); r.StatusCode != 403 {
		t.Errorf("foreign upgrade: %d", r.StatusCode)
	}
	if r, err := http.Get(srv.URL); err != nil || r.StatusCode != 426 {
		t.Errorf("plain GET: %v %v", r, err)
	} else {
		r.Body.Close()
	}

	// Fill the cap: the diagnosis and the upgrade are 503 with Retry-After.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+host, &websocket.DialOptions{Subprotocols: []string{"mcp", "mcp.token.s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	resp, d, body := diagnose(t, srv.URL, map[string]string{"Origin": "http://" + host, "Authorization": good})
	if resp.StatusCode != 503 || d.Code != 503 || d.Reason != "too many connections (max 1)" || !strings.Contains(d.Fix, "-max-conns") ||
		resp.Header.Get("Retry-After") != "5" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Errorf("full cap diagnosis: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	r := upgrade(t, srv.URL, map[string]string{"Sec-WebSocket-Protocol": "mcp, mcp.token.s3cret"})
	if r.StatusCode != 503 || r.Header.Get("Retry-After") != "5" {
		t.Errorf("full cap upgrade: %d, Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	// A bad token is still 401 first, not 503.
	if _, d, _ := diagnose(t, srv.URL, map[string]string{"Authorization": "Bearer nope"}); d.Code != 401 {
		t.Errorf("wrong token at full cap: %d", d.Code)
	}
}

// TestOriginScheme: a pattern with a scheme matches that scheme only, a
// pattern without one matches the host under any scheme, and the same-origin
// rule compares the scheme too.
func TestOriginScheme(t *testing.T) {
	h := bridge.Endpoint(&bridge.EndpointOptions{OriginPatterns: []string{"http://127.0.0.1:*", "*.example.com", "[::1]:8443"}},
		func(ctx context.Context, c *bridge.Conn) {})
	srv := httptest.NewServer(h)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for origin, want := range map[string]int{
		"http://127.0.0.1:5173":    200,
		"https://127.0.0.1:5173":   403,
		"http://" + host:           200,
		"https://" + host:          403,
		"https://a.example.com":    200,
		"http://a.example.com":     200,
		"https://a.example.com:1":  403,
		"https://evil.com":         403,
		"http://[::1]:8443":        200,
		"http://127.0.0.1.evil:80": 403,
	} {
		if _, d, body := diagnose(t, srv.URL, map[string]string{"Origin": origin}); d.Code != want {
			t.Errorf("Origin %s: %s, want %d", origin, body, want)
		}
	}
}

// TestTrustedProxy: forwarding headers count only from a trusted address;
// then the Origin and Host checks see the scheme and host the page used.
func TestTrustedProxy(t *testing.T) {
	serve := func(ctx context.Context, c *bridge.Conn) {}
	trusted := httptest.NewServer(bridge.Endpoint(&bridge.EndpointOptions{AllowedHosts: []string{"chat.test"},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, serve))
	defer trusted.Close()
	untrusted := httptest.NewServer(bridge.Endpoint(&bridge.EndpointOptions{AllowedHosts: []string{"chat.test"},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, serve))
	defer untrusted.Close()
	page := "https://chat.test"
	xf := map[string]string{"Host": "backend:8081", "Origin": page, "X-Forwarded-Proto": "https", "X-Forwarded-Host": "chat.test"}
	fwd := map[string]string{"Host": "chat.test", "Origin": page, "Forwarded": `for=192.0.2.1;proto=http, for=192.0.2.60;proto=https;host="chat.test"`}
	plain := map[string]string{"Host": "chat.test", "Origin": page}
	for _, tc := range []struct {
		name string
		url  string
		hdr  map[string]string
		want int
		fix  string
	}{
		{"X-Forwarded-* from the trusted proxy", trusted.URL, xf, 200, ""},
		{"Forwarded (last element) from the trusted proxy", trusted.URL, fwd, 200, ""},
		{"no forwarding headers: the https page is another origin", trusted.URL, plain, 403, "-trusted-proxy 127.0.0.1/32"},
		{"forwarded host outside -allowed-hosts", trusted.URL, map[string]string{"Host": "chat.test", "Origin": "https://evil.test",
			"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.test"}, 403, "-allowed-hosts evil.test"},
		{"X-Forwarded-* from an untrusted address are ignored", untrusted.URL, xf, 403, "-trusted-proxy 127.0.0.1/32"},
		{"Forwarded from an untrusted address is ignored", untrusted.URL, fwd, 403, "-trusted-proxy 127.0.0.1/32"},
	} {
		_, d, body := diagnose(t, tc.url, tc.hdr)
		if d.Code != tc.want || !strings.Contains(d.Fix, tc.fix) {
			t.Errorf("%s: %s, want %d with a fix naming %q", tc.name, body, tc.want, tc.fix)
		}
		up := upgrade(t, tc.url, tc.hdr).StatusCode
		if want := map[int]int{200: 101, 403: 403}[tc.want]; up != want {
			t.Errorf("%s: upgrade %d, want %d", tc.name, up, want)
		}
	}
}

// TestPingInterval: the server pings a connection it has sent nothing on
// for PingInterval, whatever the client sends (a proxy's read timeout
// counts the server's frames), independently of the idle timeout; a
// negative interval sends none.
func TestPingInterval(t *testing.T) {
	for _, tc := range []struct {
		interval time.Duration
		min, max int64
	}{{100 * time.Millisecond, 4, 14}, {-1, 0, 0}} {
		h := bridge.Endpoint(&bridge.EndpointOptions{PingInterval: tc.interval, IdleTimeout: -1, FirstRequestTimeout: -1},
			func(ctx context.Context, c *bridge.Conn) {
				for {
					if _, err := c.Read(ctx); err != nil {
						return
					}
				}
			})
		srv := httptest.NewServer(h)
		var pings atomic.Int64
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{Subprotocols: []string{"mcp"},
			OnPingReceived: func(context.Context, []byte) bool { pings.Add(1); return true }})
		if err != nil {
			t.Fatal(err)
		}
		go func() { // the client's reader answers the pings
			for {
				if _, _, err := ws.Read(ctx); err != nil {
					return
				}
			}
		}()
		end := time.Now().Add(time.Second)
		for time.Now().Before(end) { // the client talks, the server never answers a notification
			ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`))
			time.Sleep(30 * time.Millisecond)
		}
		if n := pings.Load(); n < tc.min || n > tc.max {
			t.Errorf("PingInterval %v: %d pings in 1 s, want %d..%d", tc.interval, n, tc.min, tc.max)
		}
		ws.CloseNow()
		cancel()
		srv.Close()
	}
}

// TestFirstRequestDeadlineFromFirstRead: the first-request deadline runs
// from the handler's first read, not from the upgrade. A handler that starts
// something first (a stdio gateway starts its child) gets the request that
// waited meanwhile; a peer that sends nothing is still closed (1008) once the
// deadline has passed since the read began.
func TestFirstRequestDeadlineFromFirstRead(t *testing.T) {
	const first = 150 * time.Millisecond
	for _, tc := range []struct {
		name string
		send bool
	}{{"request waiting while the handler starts", true}, {"silent peer", false}} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan error, 1)
			h := bridge.Endpoint(&bridge.EndpointOptions{FirstRequestTimeout: first, IdleTimeout: -1},
				func(ctx context.Context, c *bridge.Conn) {
					time.Sleep(3 * first) // starting something before the first read
					_, err := c.Read(ctx)
					got <- err
				})
			srv := httptest.NewServer(h)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{Subprotocols: []string{"mcp"}})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.CloseNow()
			if tc.send {
				if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
					t.Fatal(err)
				}
			}
			err = <-got
			switch {
			case tc.send && err != nil:
				t.Fatalf("the waiting request was not read: %v", err)
			case !tc.send && err == nil:
				t.Fatal("a silent peer's read returned a message")
			}
			if !tc.send {
				_, _, rerr := ws.Read(ctx)
				if code := websocket.CloseStatus(rerr); code != websocket.StatusPolicyViolation {
					t.Fatalf("silent peer: close %v (%v), want 1008", code, rerr)
				}
			}
		})
	}
}
