//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// upgradeStatus sends a WebSocket upgrade request and returns the status.
func upgradeStatus(t *testing.T, host string, hdr map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/mcp", nil)
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
		t.Fatalf("handshake: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestRefusals checks each door of the WebSocket endpoint: foreign and null
// Origin (403), non-loopback Host (403, DNS rebinding), missing and wrong
// token (401), past -max-conns (503), and that good requests pass.
func TestRefusals(t *testing.T) {
	t.Parallel()
	tf := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(tf, []byte("good-token platform\n"), 0o600)
	host, _ := startServer(t, testConfig(t, "-token-file", tf, "-origin", "http://localhost:5173"))
	port := host[strings.LastIndex(host, ":")+1:]
	tok := "mcp, mcp.token.good-token"
	cases := []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"foreign origin", map[string]string{"Origin": "https://evil.example", "Sec-WebSocket-Protocol": tok}, 403},
		{"null origin", map[string]string{"Origin": "null", "Sec-WebSocket-Protocol": tok}, 403},
		{"origin on another port", map[string]string{"Origin": "http://127.0.0.1:1", "Sec-WebSocket-Protocol": tok}, 403},
		{"rebinding host", map[string]string{"Host": "attacker.example:" + port, "Origin": "http://attacker.example:" + port, "Sec-WebSocket-Protocol": tok}, 403},
		{"missing token", map[string]string{"Origin": "http://" + host}, 401},
		{"wrong token", map[string]string{"Origin": "http://" + host, "Sec-WebSocket-Protocol": "mcp, mcp.token.bad-token"}, 401},
		{"no mcp subprotocol", map[string]string{"Sec-WebSocket-Protocol": "mcp.token.good-token"}, 400},
		{"same origin with token", map[string]string{"Origin": "http://" + host, "Sec-WebSocket-Protocol": tok}, 101},
		{"allowed -origin pattern", map[string]string{"Origin": "http://localhost:5173", "Sec-WebSocket-Protocol": tok}, 101},
		{"localhost host", map[string]string{"Host": "localhost:" + port, "Sec-WebSocket-Protocol": tok}, 101},
	}
	for _, tc := range cases {
		if got := upgradeStatus(t, host, tc.hdr); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	// Two live sessions fill -max-conns 2; the third is refused with 503.
	// (A server of its own: the upgrades above end asynchronously.)
	capped, _ := startServer(t, testConfig(t, "-token-file", tf, "-max-conns", "2"))
	mcptest.Dial(t, capped, &bridge.Options{Token: "good-token"})
	mcptest.Dial(t, capped, &bridge.Options{Token: "good-token"})
	if got := upgradeStatus(t, capped, map[string]string{"Sec-WebSocket-Protocol": tok}); got != 503 {
		t.Errorf("past -max-conns: status %d, want 503", got)
	}
}

// TestWebPage checks the page's security headers, the wasm content type,
// that Go sources are not served, and that -no-web turns the page off.
func TestWebPage(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.noWeb = false
	host, _ := startServer(t, cfg)
	resp, err := http.Get("http://" + host + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := resp.Header
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "'wasm-unsafe-eval'") || !strings.Contains(csp, "object-src 'none'") || strings.Contains(csp, "'unsafe-eval'") {
		t.Errorf("CSP = %q", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", h.Get("X-Content-Type-Options"))
	}
	for path, want := range map[string]int{"/web.go": 404, "/mcp": 426} {
		r, err := http.Get("http://" + host + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, r.StatusCode, want)
		}
	}
	rec := httptest.NewRecorder()
	webHandler(fstest.MapFS{"mcphost.wasm": {Data: []byte("\x00asm\x01\x00\x00\x00")}}).ServeHTTP(rec, httptest.NewRequest("GET", "/mcphost.wasm", nil))
	if ct := rec.Header().Get("Content-Type"); rec.Code != 200 || ct != "application/wasm" {
		t.Errorf("wasm Content-Type = %q", ct)
	}

	// gzip for clients that accept it, byte-exact after decompression; plain otherwise.
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00 module bytes "), 4096)
	fsys := fstest.MapFS{"mcphost.wasm": {Data: wasm}}
	for _, tc := range []struct {
		accept string
		gz     bool
	}{{"gzip, deflate, br", true}, {"br;q=1.0, gzip;q=0.8", true}, {"gzip;q=0", false}, {"", false}, {"identity", false}} {
		req := httptest.NewRequest("GET", "/mcphost.wasm", nil)
		req.Header.Set("Accept-Encoding", tc.accept)
		rec := httptest.NewRecorder()
		webHandler(fsys).ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if got := rec.Header().Get("Content-Encoding") == "gzip"; got != tc.gz {
			t.Fatalf("Accept-Encoding %q: gzip = %v", tc.accept, got)
		}
		if tc.gz {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
			if rec.Header().Get("Vary") != "Accept-Encoding" || rec.Header().Get("Content-Type") != "application/wasm" {
				t.Errorf("gzip headers %v", rec.Header())
			}
		}
		if !bytes.Equal(body, wasm) {
			t.Fatalf("Accept-Encoding %q: body differs", tc.accept)
		}
	}

	// Revalidation: each encoding has its own strong ETag; a matching
	// If-None-Match is answered 304 with no body, a stale one in full.
	tags := map[string]string{}
	for _, accept := range []string{"gzip", ""} {
		req := httptest.NewRequest("GET", "/mcphost.wasm", nil)
		req.Header.Set("Accept-Encoding", accept)
		rec := httptest.NewRecorder()
		webHandler(fsys).ServeHTTP(rec, req)
		tag := rec.Header().Get("ETag")
		if rec.Code != 200 || !strings.HasPrefix(tag, `"`) || rec.Header().Get("Cache-Control") != "no-cache" {
			t.Fatalf("Accept-Encoding %q: %d ETag %q Cache-Control %q", accept, rec.Code, tag, rec.Header().Get("Cache-Control"))
		}
		tags[accept] = tag
		for _, tc := range []struct {
			inm  string
			want int
		}{{tag, 304}, {"W/" + tag, 304}, {`"other", ` + tag, 304}, {`"stale"`, 200}} {
			req := httptest.NewRequest("GET", "/mcphost.wasm", nil)
			req.Header.Set("Accept-Encoding", accept)
			req.Header.Set("If-None-Match", tc.inm)
			rec := httptest.NewRecorder()
			webHandler(fsys).ServeHTTP(rec, req)
			if rec.Code != tc.want || (tc.want == 304 && rec.Body.Len() != 0) {
				t.Errorf("Accept-Encoding %q, If-None-Match %s: %d with %d bytes, want %d", accept, tc.inm, rec.Code, rec.Body.Len(), tc.want)
			}
		}
	}
	if tags["gzip"] == tags[""] {
		t.Errorf("gzip and identity share the ETag %s", tags[""])
	}

	// brotli: the copy `make wasm` leaves beside the module, named by the
	// digest of the bytes it encodes, goes to clients that accept br (and
	// gzip to those that do not); a copy named for other bytes (an earlier
	// build) is never served.
	sum := sha256.Sum256(wasm)
	brBytes := []byte("brotli encoding of these module bytes")
	withBr := fstest.MapFS{"mcphost.wasm": {Data: wasm}, brotliName("mcphost.wasm", sum): {Data: brBytes}}
	stale := fstest.MapFS{"mcphost.wasm": {Data: wasm}, brotliName("mcphost.wasm", sha256.Sum256([]byte("older module"))): {Data: brBytes}}
	brTags := map[string]bool{}
	for _, tc := range []struct {
		fsys   fs.FS
		accept string
		want   string // Content-Encoding
	}{
		{withBr, "gzip, deflate, br, zstd", "br"},
		{withBr, "br;q=0.5, gzip;q=1", "br"},
		{withBr, "gzip, br;q=0", "gzip"},
		{withBr, "identity", ""},
		{stale, "gzip, deflate, br", "gzip"},
	} {
		req := httptest.NewRequest("GET", "/mcphost.wasm", nil)
		req.Header.Set("Accept-Encoding", tc.accept)
		rec := httptest.NewRecorder()
		webHandler(tc.fsys).ServeHTTP(rec, req)
		h := rec.Header()
		if got := h.Get("Content-Encoding"); rec.Code != 200 || got != tc.want {
			t.Fatalf("Accept-Encoding %q: %d, Content-Encoding %q, want %q", tc.accept, rec.Code, got, tc.want)
		}
		if tc.want != "br" {
			continue
		}
		if !bytes.Equal(rec.Body.Bytes(), brBytes) || h.Get("Content-Length") != strconv.Itoa(len(brBytes)) ||
			h.Get("Vary") != "Accept-Encoding" || h.Get("Content-Type") != "application/wasm" || h.Get("Cache-Control") != "no-cache" {
			t.Fatalf("Accept-Encoding %q: body %q, headers %v", tc.accept, rec.Body.Bytes(), h)
		}
		tag := h.Get("ETag")
		brTags[tag] = true
		if tag == tags[""] || tag == tags["gzip"] {
			t.Errorf("br shares the ETag %s with another encoding", tag)
		}
		req = httptest.NewRequest("GET", "/mcphost.wasm", nil)
		req.Header.Set("Accept-Encoding", tc.accept)
		req.Header.Set("If-None-Match", tag)
		rec = httptest.NewRecorder()
		webHandler(tc.fsys).ServeHTTP(rec, req)
		if rec.Code != 304 || rec.Body.Len() != 0 {
			t.Errorf("br, If-None-Match %s: %d with %d bytes, want 304", tag, rec.Code, rec.Body.Len())
		}
	}
	if len(brTags) != 1 {
		t.Errorf("br ETags %v, want one", brTags)
	}

	off, _ := startServer(t, testConfig(t)) // -no-web
	r, err := http.Get("http://" + off + "/")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 404 {
		t.Errorf("-no-web: GET / = %d, want 404", r.StatusCode)
	}
}

// diagnosis GETs the endpoint with Accept: application/json and headers
// and returns the status, the Retry-After and the body.
func diagnosis(t *testing.T, host string, hdr map[string]string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/mcp", nil)
	req.Header.Set("Accept", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Access-Control-Allow-Origin") != hdr["Origin"] {
		t.Errorf("Access-Control-Allow-Origin %q for Origin %q", resp.Header.Get("Access-Control-Allow-Origin"), hdr["Origin"])
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), strings.TrimSpace(string(b))
}

// TestRefusalDiagnosis: what a refused page reads from the endpoint (the
// contract the browser module relies on), exactly, through the binary.
func TestRefusalDiagnosis(t *testing.T) {
	t.Parallel()
	tf := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(tf, []byte("good-token platform\n"), 0o600)
	host, _ := startServer(t, testConfig(t, "-token-file", tf, "-origin", "http://localhost:5173", "-max-conns", "1"))
	self := "http://" + host
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		code int
		body string
	}{
		{"foreign origin", map[string]string{"Origin": "http://127.0.0.1:5173"}, 403,
			`{"code":403,"reason":"origin \"http://127.0.0.1:5173\" is not allowed","fix":"start mcphost with -origin http://127.0.0.1:5173"}`},
		{"missing token", map[string]string{"Origin": self}, 401,
			`{"code":401,"reason":"this server requires a token","fix":"pass connect(url, { token }) with a token of the server's -token-file (offered as subprotocol \"mcp.token.\u003ctoken\u003e\")"}`},
		{"wrong token", map[string]string{"Origin": "http://localhost:5173", "Authorization": "Bearer bad-token"}, 401,
			`{"code":401,"reason":"the token was refused","fix":"pass connect(url, { token }) with a token listed in the server's -token-file"}`},
		{"may connect", map[string]string{"Origin": self, "Authorization": "Bearer good-token"}, 200,
			`{"code":200,"reason":"this page may connect"}`},
	} {
		code, _, body := diagnosis(t, host, tc.hdr)
		if code != tc.code || body != tc.body {
			t.Errorf("%s: %d %s\nwant %d %s", tc.name, code, body, tc.code, tc.body)
		}
	}
	mcptest.Dial(t, host, &bridge.Options{Token: "good-token"})
	code, retry, body := diagnosis(t, host, map[string]string{"Origin": self, "Authorization": "Bearer good-token"})
	if code != 503 || retry != "5" || !strings.Contains(body, `"reason":"too many connections (max 1)"`) {
		t.Errorf("full cap: %d Retry-After %q %s", code, retry, body)
	}
}

// TestBehindProxyFlags: -trusted-proxy, -allowed-hosts and -ping-interval
// reach the endpoint: from the trusted address an https page behind a
// TLS-terminating proxy is same-origin, without X-Forwarded-Proto it is not,
// and a quiet connection gets pings at -ping-interval.
func TestBehindProxyFlags(t *testing.T) {
	t.Parallel()
	host, _ := startServer(t, testConfig(t, "-trusted-proxy", "127.0.0.1/32", "-allowed-hosts", "chat.test", "-ping-interval", "100ms"))
	req := func(hdr map[string]string) int {
		r, _ := http.NewRequest(http.MethodGet, "http://"+host+"/mcp", nil)
		r.Host = "chat.test"
		r.Header.Set("Accept", "application/json")
		r.Header.Set("Origin", "https://chat.test")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := req(map[string]string{"X-Forwarded-Proto": "https"}); got != 200 {
		t.Errorf("https page through the trusted proxy: %d", got)
	}
	if got := req(nil); got != 403 {
		t.Errorf("https page without X-Forwarded-Proto: %d", got)
	}
	var pings atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+host+"/mcp", &websocket.DialOptions{Subprotocols: []string{"mcp"},
		OnPingReceived: func(context.Context, []byte) bool { pings.Add(1); return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	go func() {
		for {
			if _, _, err := ws.Read(ctx); err != nil {
				return
			}
		}
	}()
	time.Sleep(700 * time.Millisecond)
	if n := pings.Load(); n < 3 {
		t.Errorf("%d pings in 700ms at -ping-interval 100ms", n)
	}
}
