//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// relayResult is what a relay saw on /mcp/read-resource/{channel}: the
// messages before the close, and the close.
type relayResult struct {
	msgs   [][]byte
	binary []bool
	status websocket.StatusCode
	err    error
}

// relay asks host's relay door for ask (sent as one text message; none when
// ask is nil) with token (as the mcp.token.<token> subprotocol entry, no
// "mcp") and origin (when set), and reads until the socket ends (at most
// 20 s). A refused upgrade returns its HTTP status.
func relay(t *testing.T, host, token, origin string, ask []byte) (*relayResult, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := &websocket.DialOptions{HTTPHeader: http.Header{}}
	if token != "" {
		o.Subprotocols = []string{bridge.TokenPrefix + token}
	}
	if origin != "" {
		o.HTTPHeader.Set("Origin", origin)
	}
	ws, resp, err := websocket.Dial(ctx, "ws://"+host+"/mcp/read-resource/test-channel", o)
	if err != nil {
		if resp == nil {
			t.Fatalf("dial: %v", err)
		}
		return nil, resp.StatusCode
	}
	defer ws.CloseNow()
	ws.SetReadLimit(bridge.DefaultReadLimit)
	if ask != nil {
		if err := ws.Write(ctx, websocket.MessageText, ask); err != nil {
			t.Fatalf("write ask: %v", err)
		}
	}
	r := &relayResult{}
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			r.err, r.status = err, websocket.CloseStatus(err)
			return r, http.StatusSwitchingProtocols
		}
		r.msgs = append(r.msgs, data)
		r.binary = append(r.binary, typ == websocket.MessageBinary)
	}
}

// frame asks and returns the one binary message before a normal close.
func relayFrame(t *testing.T, host, token string, ask string) []byte {
	t.Helper()
	r, code := relay(t, host, token, "", []byte(ask))
	if r == nil {
		t.Fatalf("ask %s: upgrade refused with HTTP %d", ask, code)
	}
	if len(r.msgs) != 1 || !r.binary[0] || r.status != websocket.StatusNormalClosure {
		t.Fatalf("ask %s: %d messages (binary %v), close %d (%v); want one binary message and 1000", ask, len(r.msgs), r.binary, r.status, r.err)
	}
	return r.msgs[0]
}

// mcpRead reads uri on host's /mcp with token (2025-11-25, raw) and returns
// the response's result or error object as sent.
func mcpRead(t *testing.T, host, token, uri string) (result []byte, errObj []byte) {
	t.Helper()
	c := mcptest.DialRaw(t, host, token)
	defer c.Close()
	c.Send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.Answer("1", 10*time.Second, nil)
	c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p, _ := json.Marshal(map[string]string{"uri": uri})
	c.Send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":` + string(p) + `}`)
	m := c.Answer("2", 10*time.Second, nil)
	var raw struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(m.Raw, &raw); err != nil {
		t.Fatalf("answer %s: %v", m.Raw, err)
	}
	return raw.Result, raw.Error
}

// notServed checks a close with no message.
func (r *relayResult) notServed(t *testing.T, what string) {
	t.Helper()
	if len(r.msgs) != 0 {
		t.Fatalf("%s: got %d messages %q, want none", what, len(r.msgs), r.msgs)
	}
	var ce websocket.CloseError
	if !errors.As(r.err, &ce) {
		t.Fatalf("%s: the socket ended without a close frame: %v", what, r.err)
	}
}

// TestRelayDoorDocuments: the documents server answers the relay door as
// it answers /mcp, for the token's principal: a result (the bytes /mcp
// sends), not found (-32602, data.uri), a forbidden read identical to not
// found, asks that cannot be served (a close, no message), and the same
// refusals as /mcp.
func TestRelayDoorDocuments(t *testing.T) {
	t.Parallel()
	tf := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(tf, []byte("all-token *\nplat-token platform\n"), 0o600)
	cfg := testConfig(t, "-token-file", tf, "-origin", "http://localhost:5173")
	host, _ := startServer(t, cfg)

	const (
		doc       = "docs://team/platform/policy/access-control.md"
		forbidden = "docs://team/payments/policy/data-retention.md"
		missing   = "docs://team/payments/policy/no-such-policy.md"
	)
	// What /mcp answers the all-teams token for the document.
	result, errObj := mcpRead(t, host, "all-token", doc)
	if errObj != nil {
		t.Fatalf("/mcp read %s: %s", doc, errObj)
	}

	t.Run("result", func(t *testing.T) {
		f := relayFrame(t, host, "plat-token", `{"uri":"`+doc+`"}`)
		if f[0] != bridge.RelayTagResult {
			t.Fatalf("tag 0x%02x, frame %.200q", f[0], f)
		}
		if !bytes.Equal(f[1:], result) {
			t.Fatalf("relay result differs from /mcp's:\n relay %.300s\n  /mcp %.300s", f[1:], result)
		}
		a, err := bridge.DecodeRelayAnswer(f)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := bridge.DecodeReadResult(doc, a.Result)
		if err != nil || len(parts) != 1 || parts[0].Text == nil || !strings.Contains(*parts[0].Text, "#") {
			t.Fatalf("parts %+v, %v", parts, err)
		}
	})

	t.Run("not found is -32602, as /mcp sends it", func(t *testing.T) {
		f := relayFrame(t, host, "all-token", `{"uri":"`+missing+`"}`)
		want := "\x01" + `{"code":-32602,"message":"Resource not found","data":{"uri":"` + missing + `"}}`
		if string(f) != want {
			t.Fatalf("frame %q, want %q", f, want)
		}
		if _, e := mcpRead(t, host, "all-token", missing); !bytes.Equal(e, f[1:]) {
			t.Fatalf("relay error %s, /mcp error %s", f[1:], e)
		}
	})

	t.Run("forbidden is identical to not found", func(t *testing.T) {
		// The document exists: the all-teams token reads it.
		if f := relayFrame(t, host, "all-token", `{"uri":"`+forbidden+`"}`); f[0] != bridge.RelayTagResult {
			t.Fatalf("all-token: %q", f)
		}
		got := relayFrame(t, host, "plat-token", `{"uri":"`+forbidden+`"}`)
		absent := relayFrame(t, host, "plat-token", `{"uri":"`+missing+`"}`)
		if want := bytes.ReplaceAll(absent, []byte(missing), []byte(forbidden)); !bytes.Equal(got, want) {
			t.Fatalf("forbidden %q\n  missing %q", got, want)
		}
		if got[0] != bridge.RelayTagError {
			t.Fatalf("forbidden read answered %q", got)
		}
	})

	t.Run("asks not served", func(t *testing.T) {
		for _, tc := range []struct{ name, ask string }{
			{"empty", ""},
			{"malformed JSON", `{"uri":"docs://team/platform/`},
			{"uri not a string", `{"uri":["x"]}`},
			{"no uri", `{"url":"` + doc + `"}`},
			{"tagged like a frame", "\x00" + `{"uri":"` + doc + `"}`},
		} {
			r, code := relay(t, host, "all-token", "", []byte(tc.ask))
			if r == nil {
				t.Fatalf("%s: HTTP %d", tc.name, code)
			}
			r.notServed(t, tc.name)
			if r.status != websocket.StatusNormalClosure {
				t.Fatalf("%s: close %d, want 1000", tc.name, r.status)
			}
		}
	})

	t.Run("refused like /mcp", func(t *testing.T) {
		for _, tc := range []struct {
			name, token, origin string
			code                int
		}{
			{"wrong origin", "all-token", "http://evil.example", http.StatusForbidden},
			{"null origin", "all-token", "null", http.StatusForbidden},
			{"no token", "", "", http.StatusUnauthorized},
			{"wrong token", "nope", "", http.StatusUnauthorized},
			{"allowed origin", "all-token", "http://localhost:5173", http.StatusSwitchingProtocols},
		} {
			r, code := relay(t, host, tc.token, tc.origin, []byte(`{"uri":"`+doc+`"}`))
			if code != tc.code {
				t.Fatalf("%s: HTTP %d, want %d", tc.name, code, tc.code)
			}
			if mcp := upgradeStatus(t, host, map[string]string{"Origin": tc.origin, "Sec-WebSocket-Protocol": "mcp, mcp.token." + tc.token}); tc.code != 101 && mcp != tc.code {
				t.Fatalf("%s: /mcp answers %d, the door %d", tc.name, mcp, code)
			}
			if r != nil && (len(r.msgs) != 1 || r.msgs[0][0] != bridge.RelayTagResult) {
				t.Fatalf("%s: %q", tc.name, r.msgs)
			}
		}
	})
}

// TestRelayDoorGateways: through -upstream (a go-sdk Streamable HTTP
// server) and -stdio (a go-sdk stdio server), the upstream's answer reaches
// the relay: a result, and not found as -32602 and as -32002 with the
// upstream's code, message and data unchanged.
func TestRelayDoorGateways(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		switch uri := req.Params.URI; uri {
		case "mem://a":
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "alpha"}}}, nil
		case "mem://legacy-gone":
			return nil, &jsonrpc.Error{Code: -32002, Message: "Resource not found", Data: json.RawMessage(`{"uri":"mem://legacy-gone","hint":["moved",1.5,{"to":null}]}`)}
		default:
			return nil, mcp.ResourceNotFoundError(uri)
		}
	}
	srv.AddResource(&mcp.Resource{URI: "mem://a", Name: "a", MIMEType: "text/plain"}, read)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://{id}", Name: "any"}, read)
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(up.Close)
	httpHost, _ := startServer(t, testConfig(t, "-upstream", up.URL))

	t.Run("upstream", func(t *testing.T) {
		f := relayFrame(t, httpHost, "", `{"uri":"mem://a"}`)
		a, err := bridge.DecodeRelayAnswer(f)
		if err != nil || a.Result == nil {
			t.Fatalf("frame %q: %+v %v", f, a, err)
		}
		if parts, err := bridge.DecodeReadResult("mem://a", a.Result); err != nil || len(parts) != 1 || *parts[0].Text != "alpha" {
			t.Fatalf("parts %+v %v", parts, err)
		}
		for _, tc := range []struct{ uri, want string }{
			{"mem://legacy-gone", `{"code":-32002,"message":"Resource not found","data":{"uri":"mem://legacy-gone","hint":["moved",1.5,{"to":null}]}}`},
			{"mem://gone", `{"code":-32602,"message":"Resource not found","data":{"uri":"mem://gone"}}`},
		} {
			if f := relayFrame(t, httpHost, "", `{"uri":"`+tc.uri+`"}`); string(f) != "\x01"+tc.want {
				t.Fatalf("%s: frame %q, want %q", tc.uri, f, "\x01"+tc.want)
			}
		}
		r, _ := relay(t, httpHost, "", "", []byte{})
		r.notServed(t, "empty ask")
		r, _ = relay(t, httpHost, "", "", []byte(`{"uri":`))
		r.notServed(t, "malformed ask")
		if _, code := relay(t, httpHost, "", "http://evil.example", []byte(`{"uri":"mem://a"}`)); code != http.StatusForbidden {
			t.Fatalf("wrong origin: HTTP %d", code)
		}
	})

	t.Run("stdio", func(t *testing.T) {
		stdioHost, _ := startServer(t, testConfig(t, "-stdio", buildStdioServer(t)+" -n 3 -size 64"))
		f := relayFrame(t, stdioHost, "", `{"uri":"mem://item/2"}`)
		a, err := bridge.DecodeRelayAnswer(f)
		if err != nil || a.Result == nil {
			t.Fatalf("frame %q: %+v %v", f, a, err)
		}
		if parts, err := bridge.DecodeReadResult("mem://item/2", a.Result); err != nil || len(parts) != 1 || !strings.HasPrefix(*parts[0].Text, "mem://item/2") {
			t.Fatalf("parts %+v %v", parts, err)
		}
		want := "\x01" + `{"code":-32602,"message":"Resource not found","data":{"uri":"mem://nope"}}`
		if f := relayFrame(t, stdioHost, "", `{"uri":"mem://nope"}`); string(f) != want {
			t.Fatalf("frame %q, want %q", f, want)
		}
	})
}

// BenchmarkRelayDoorDocuments measures one relay exchange with the
// documents server (embedded sample documents): dial, ask, a go-sdk session
// of its own (initialize, resources/read), the frame and the close.
func BenchmarkRelayDoorDocuments(b *testing.B) {
	host, _ := startServer(b, testConfig(b))
	ask := []byte(`{"uri":"docs://team/platform/policy/access-control.md"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ws, _, err := websocket.Dial(ctx, "ws://"+host+"/mcp/read-resource/b", nil)
		if err != nil {
			b.Fatal(err)
		}
		ws.Write(ctx, websocket.MessageText, ask)
		if typ, f, err := ws.Read(ctx); err != nil || typ != websocket.MessageBinary || f[0] != bridge.RelayTagResult {
			b.Fatalf("%v %q", err, f)
		}
		if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			b.Fatalf("close: %v", err)
		}
	}
}
