//go:build !js

package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcphost/mcphost/bridge"
)

// relayExchange is what a relay saw on the door: the messages before the
// close, their types, and the close.
type relayExchange struct {
	msgs   [][]byte
	types  []websocket.MessageType
	status websocket.StatusCode
	reason string
	err    error // the read error that ended it (a CloseError when clean)
}

// askRelay dials url (protos as offered subprotocols, hdr as request
// headers), sends ask as one message of type typ (none when typ is 0), and
// reads until the socket ends, at most 20 s.
func askRelay(t *testing.T, url string, protos []string, hdr http.Header, typ websocket.MessageType, ask []byte) (*relayExchange, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: protos, HTTPHeader: hdr})
	if err != nil {
		if resp == nil {
			t.Fatalf("dial %s: %v", url, err)
		}
		return nil, resp
	}
	defer ws.CloseNow()
	ws.SetReadLimit(bridge.DefaultReadLimit)
	if typ != 0 {
		if err := ws.Write(ctx, typ, ask); err != nil {
			t.Fatalf("write ask: %v", err)
		}
	}
	x := &relayExchange{}
	for {
		mt, data, err := ws.Read(ctx)
		if err != nil {
			x.err = err
			x.status = websocket.CloseStatus(err)
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				x.reason = ce.Reason
			}
			return x, resp
		}
		x.msgs = append(x.msgs, data)
		x.types = append(x.types, mt)
	}
}

// answered checks that x is exactly one binary message and a normal close,
// and returns the message.
func (x *relayExchange) answered(t *testing.T) []byte {
	t.Helper()
	if len(x.msgs) != 1 || x.types[0] != websocket.MessageBinary {
		t.Fatalf("got %d messages (types %v), want one binary message; close %d %q (%v)", len(x.msgs), x.types, x.status, x.reason, x.err)
	}
	if x.status != websocket.StatusNormalClosure {
		t.Fatalf("close %d %q (%v) after the frame, want 1000", x.status, x.reason, x.err)
	}
	return x.msgs[0]
}

// notServed checks that x is a close with status and no message.
func (x *relayExchange) notServed(t *testing.T, status websocket.StatusCode) {
	t.Helper()
	if len(x.msgs) != 0 {
		t.Fatalf("got %d messages (%q), want none", len(x.msgs), x.msgs)
	}
	if x.status != status {
		t.Fatalf("close %d %q (%v), want %d", x.status, x.reason, x.err, status)
	}
}

// scriptedSource is a serve function speaking raw JSON-RPC: it answers
// initialize, records the params of resources/read and answers it with
// read(uri) (a raw "result" or "error" member, or "" for no answer).
type scriptedSource struct {
	read func(uri string) string

	mu         sync.Mutex
	params     []string // of each resources/read
	principals []string
	clients    []string // clientInfo of each initialize
	ended      int      // serve calls that returned
}

func (s *scriptedSource) serve(ctx context.Context, c *bridge.Conn) {
	s.mu.Lock()
	s.principals = append(s.principals, c.Principal())
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.ended++
		s.mu.Unlock()
	}()
	for {
		data, err := c.ReadRaw(ctx)
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(data, &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			var p struct {
				ClientInfo json.RawMessage `json:"clientInfo"`
			}
			json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			s.clients = append(s.clients, string(p.ClientInfo))
			s.mu.Unlock()
			c.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{}},"serverInfo":{"name":"scripted","version":"1"}}}`))
		case "resources/read":
			var p struct {
				URI string `json:"uri"`
			}
			json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			s.params = append(s.params, string(m.Params))
			s.mu.Unlock()
			// A ping first: the door's client must answer it and go on.
			c.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`))
			switch member := s.read(p.URI); member {
			case "":
			case "close":
				c.Close()
				return
			default:
				c.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,`+member+`}`))
			}
		default:
			c.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"no"}}`))
		}
	}
}

// relayServer serves h on /mcp and its relay door on
// /mcp/read-resource/{channel} of a loopback listener, as mcphost does.
func relayServer(t *testing.T, h http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/read-resource/{channel}", bridge.RelayDoor(h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// TestRelayDoorAnswers: the source's result and JSON-RPC errors reach the
// relay as one binary frame, byte for byte (white space in data included),
// then a normal close; the ask reaches the source as resources/read params
// for the requester's principal; what cannot be served closes with no
// message.
func TestRelayDoorAnswers(t *testing.T) {
	t.Parallel()
	src := &scriptedSource{read: func(uri string) string {
		switch uri {
		case "mem://ok":
			return `"result" : {"contents":[{"uri":"mem://ok","mimeType":"text/plain","text":"alpha"}],  "extra":{"k": [1, 2]}}`
		case "mem://missing-legacy":
			return `"error":{"code":-32002,"message":"Resource not found","data":{ "uri" : "mem://missing-legacy", "n":[1, 2.50] }}`
		case "mem://missing":
			return `"error":{"code":-32602,"message":"Resource not found: <mem://missing> & \u00e9","data":{"uri":"mem://missing"}}`
		case "mem://nodata":
			return `"error":{"code":-32603,"message":"boom"}`
		case "mem://array":
			return `"result":[]`
		case "mem://null":
			return `"result":null`
		case "mem://close":
			return "close"
		case "mem://silent":
			return ""
		}
		return `"error":{"code":-32602,"message":"Resource not found","data":{"uri":"` + uri + `"}}`
	}}
	h := bridge.Endpoint(&bridge.EndpointOptions{
		Authenticate: func(tok string) (string, bool) { return "p-" + tok, tok == "good" },
		// Long enough for an in-process answer under -race on a loaded
		// machine (the answered cases), short enough for the silent one.
		RelayTimeout: time.Second,
	}, src.serve)
	host := relayServer(t, h)
	url := "ws://" + host + "/mcp/read-resource/chan-1"
	token := []string{bridge.TokenPrefix + "good"}

	for _, tc := range []struct {
		name, ask string
		frame     string // "" when not served
	}{
		{"result", `{"uri":"mem://ok"}`, "\x00" + `{"contents":[{"uri":"mem://ok","mimeType":"text/plain","text":"alpha"}],  "extra":{"k": [1, 2]}}`},
		{"not found -32002, data byte for byte", `{"uri":"mem://missing-legacy"}`,
			"\x01" + `{"code":-32002,"message":"Resource not found","data":{ "uri" : "mem://missing-legacy", "n":[1, 2.50] }}`},
		{"not found -32602", `{"uri":"mem://missing"}`, "\x01" + `{"code":-32602,"message":"Resource not found: \u003cmem://missing\u003e \u0026 é","data":{"uri":"mem://missing"}}`},
		{"error without data", `{"uri":"mem://nodata"}`, "\x01" + `{"code":-32603,"message":"boom"}`},
		{"result not an object", `{"uri":"mem://array"}`, ""},
		{"null result", `{"uri":"mem://null"}`, ""},
		{"source closes", `{"uri":"mem://close"}`, ""},
		{"source silent past RelayTimeout", `{"uri":"mem://silent"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, resp := askRelay(t, url, token, nil, websocket.MessageText, []byte(tc.ask))
			if x == nil {
				t.Fatalf("refused: HTTP %d", resp.StatusCode)
			}
			if tc.frame == "" {
				x.notServed(t, websocket.StatusNormalClosure)
				if x.reason != "relay: not served" {
					t.Fatalf("close reason %q", x.reason)
				}
				return
			}
			frame := x.answered(t)
			if !bytes.Equal(frame, []byte(tc.frame)) {
				t.Fatalf("frame\n got %q\nwant %q", frame, tc.frame)
			}
			if _, err := bridge.DecodeRelayAnswer(frame); err != nil {
				t.Fatalf("frame does not decode: %v", err)
			}
		})
	}

	// The ask, _meta included, is the read's params; the principal is the
	// token's; the client says who it is.
	x, _ := askRelay(t, url, token, nil, websocket.MessageText, []byte(`{"uri":"mem://ok","_meta":{"progressToken":"p1","x":{"y":[1]}},"ignored":true}`))
	x.answered(t)
	// Every source connection ends (the door waits for serve to return).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		src.mu.Lock()
		n, ended := len(src.principals), src.ended
		src.mu.Unlock()
		if n == ended {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d source connections still open", n-ended, n)
		}
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if got, want := src.params[len(src.params)-1], `{"uri":"mem://ok","_meta":{"progressToken":"p1","x":{"y":[1]}}}`; got != want {
		t.Errorf("read params %s, want %s", got, want)
	}
	for _, p := range src.principals {
		if p != "p-good" {
			t.Errorf("principal %q, want p-good", p)
		}
	}
	if c := src.clients[0]; !strings.Contains(c, `"mcphost-relay"`) {
		t.Errorf("clientInfo %s", c)
	}
}

// TestRelayDoorAsks: an ask that cannot be served is closed cleanly (1000,
// 1009 past 64 KiB) with no message, and the source is never read.
func TestRelayDoorAsks(t *testing.T) {
	t.Parallel()
	src := &scriptedSource{read: func(string) string { return `"result":{"contents":[]}` }}
	h := bridge.Endpoint(&bridge.EndpointOptions{FirstRequestTimeout: 200 * time.Millisecond}, src.serve)
	url := "ws://" + relayServer(t, h) + "/mcp/read-resource/c"
	big := []byte(`{"uri":"mem://` + strings.Repeat("a", 64<<10) + `"}`)
	for _, tc := range []struct {
		name   string
		typ    websocket.MessageType
		ask    []byte
		status websocket.StatusCode
		reason string
	}{
		{"empty", websocket.MessageText, nil, 1000, "relay: empty ask"},
		{"malformed JSON", websocket.MessageText, []byte(`{"uri":`), 1000, "relay: malformed ask"},
		{"not an object", websocket.MessageText, []byte(`["mem://a"]`), 1000, "relay: malformed ask"},
		{"uri not a string", websocket.MessageText, []byte(`{"uri":5}`), 1000, "relay: malformed ask"},
		{"no uri", websocket.MessageText, []byte(`{"name":"mem://a"}`), 1000, "relay: malformed ask"},
		{"empty uri", websocket.MessageText, []byte(`{"uri":""}`), 1000, "relay: malformed ask"},
		{"_meta not an object", websocket.MessageText, []byte(`{"uri":"mem://a","_meta":[]}`), 1000, "relay: malformed ask"},
		{"trailing garbage", websocket.MessageText, []byte(`{"uri":"mem://a"}x`), 1000, "relay: malformed ask"},
		{"tag byte before the JSON (a frame, not an ask)", websocket.MessageText, append([]byte{0x00}, `{"uri":"mem://a"}`...), 1000, "relay: malformed ask"},
		{"binary ask", websocket.MessageBinary, []byte(`{"uri":"mem://a"}`), 1000, "relay: the ask must be a text message"},
		{"binary tagged ask", websocket.MessageBinary, append([]byte{0x02}, `{"uri":"mem://a"}`...), 1000, "relay: the ask must be a text message"},
		{"over 64 KiB", websocket.MessageText, big, websocket.StatusMessageTooBig, ""},
		{"no ask in time", 0, nil, 1000, "relay: no ask in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, resp := askRelay(t, url, nil, nil, tc.typ, tc.ask)
			if x == nil {
				t.Fatalf("refused: HTTP %d", resp.StatusCode)
			}
			x.notServed(t, tc.status)
			if tc.reason != "" && x.reason != tc.reason {
				t.Fatalf("close reason %q, want %q", x.reason, tc.reason)
			}
		})
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.params) != 0 || len(src.principals) != 0 {
		t.Fatalf("the source was reached %d times (reads %q)", len(src.principals), src.params)
	}
}

// TestRelayDoorChecks: the door refuses what /mcp refuses, with the same
// statuses, shares its connection cap, and needs no subprotocol.
func TestRelayDoorChecks(t *testing.T) {
	t.Parallel()
	src := &scriptedSource{read: func(string) string { return `"result":{"contents":[]}` }}
	h := bridge.Endpoint(&bridge.EndpointOptions{
		OriginPatterns: []string{"http://localhost:5173"},
		Authenticate:   func(tok string) (string, bool) { return "p", tok == "good" },
		MaxConns:       1,
	}, src.serve)
	host := relayServer(t, h)
	url := "ws://" + host + "/mcp/read-resource/c"
	ask := []byte(`{"uri":"mem://a"}`)
	good := []string{bridge.TokenPrefix + "good"}
	for _, tc := range []struct {
		name   string
		protos []string
		hdr    http.Header
		status int // 0: answered
	}{
		{"foreign origin", good, http.Header{"Origin": {"http://evil.example"}}, 403},
		{"null origin", good, http.Header{"Origin": {"null"}}, 403},
		{"rebinding host", good, http.Header{"Host": {"evil.example"}}, 403},
		{"no token", nil, nil, 401},
		{"wrong token", []string{bridge.TokenPrefix + "bad"}, nil, 401},
		{"allowed origin, token only (no mcp subprotocol)", good, http.Header{"Origin": {"http://localhost:5173"}}, 0},
		{"same origin, mcp and token", append([]string{bridge.Subprotocol}, good...), http.Header{"Origin": {"http://" + host}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := tc.hdr
			var reqHost string
			if v := hdr.Get("Host"); v != "" {
				reqHost, hdr = v, nil
			}
			if reqHost != "" {
				// coder/websocket takes the Host from the URL: go through
				// an upgrade request by hand.
				resp := upgrade(t, "http://"+host+"/mcp/read-resource/c", map[string]string{"Host": reqHost, "Sec-WebSocket-Protocol": tc.protos[0]})
				if resp.StatusCode != tc.status {
					t.Fatalf("HTTP %d, want %d", resp.StatusCode, tc.status)
				}
				return
			}
			x, resp := askRelay(t, url, tc.protos, hdr, websocket.MessageText, ask)
			// With MaxConns 1 the previous answered case's connection may
			// still hold the slot (its handler ends after the close
			// handshake): a client told 503 retries, as the door says.
			for end := time.Now().Add(5 * time.Second); tc.status == 0 && x == nil && resp.StatusCode == http.StatusServiceUnavailable && time.Now().Before(end); {
				time.Sleep(20 * time.Millisecond)
				x, resp = askRelay(t, url, tc.protos, hdr, websocket.MessageText, ask)
			}
			if tc.status != 0 {
				if x != nil || resp.StatusCode != tc.status {
					t.Fatalf("got exchange %+v / response %v, want HTTP %d", x, resp, tc.status)
				}
				return
			}
			if x == nil {
				t.Fatalf("refused: HTTP %d", resp.StatusCode)
			}
			if f := x.answered(t); !bytes.Equal(f, []byte("\x00"+`{"contents":[]}`)) {
				t.Fatalf("frame %q", f)
			}
		})
	}

	// The diagnosis of the door is /mcp's.
	resp, d, _ := diagnose(t, "http://"+host+"/mcp/read-resource/c", map[string]string{"Origin": "http://evil.example"})
	if resp.StatusCode != 403 || !strings.Contains(d.Reason, `origin "http://evil.example" is not allowed`) {
		t.Fatalf("diagnosis %d %+v", resp.StatusCode, d)
	}

	// One /mcp connection holds the only slot: the door answers 503.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The asks above release their slot when their source's session has
	// ended, a moment after their close: wait for it (bounded).
	var held *websocket.Conn
	for {
		var err error
		held, _, err = websocket.Dial(ctx, "ws://"+host+"/mcp", &websocket.DialOptions{Subprotocols: []string{bridge.Subprotocol, bridge.TokenPrefix + "good"}})
		if err == nil {
			break
		}
		if ctx.Err() != nil || !strings.Contains(err.Error(), "503") {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer held.CloseNow()
	// The slot is taken once the upgrade is answered.
	if x, resp := askRelay(t, url, good, nil, websocket.MessageText, ask); x != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("with the cap full: exchange %+v, response %v; want 503", x, resp)
	}
}

// TestRelayDoorLeavesNothing: after asks of every outcome (answered, error,
// source silent past RelayTimeout, source closing, malformed), every
// goroutine the door started has ended. Not parallel: it counts goroutines.
func TestRelayDoorLeavesNothing(t *testing.T) {
	src := &scriptedSource{read: func(uri string) string {
		switch uri {
		case "mem://silent":
			return ""
		case "mem://close":
			return "close"
		case "mem://ok":
			return `"result":{"contents":[]}`
		}
		return `"error":{"code":-32002,"message":"Resource not found"}`
	}}
	// The first ask must be answered within the timeout (an in-process
	// exchange, under -race on a loaded machine); the five silent ones
	// each wait it out.
	h := bridge.Endpoint(&bridge.EndpointOptions{RelayTimeout: 400 * time.Millisecond}, src.serve)
	url := "ws://" + relayServer(t, h) + "/mcp/read-resource/c"
	// One exchange first, so that lazily started runtime and HTTP
	// goroutines are in the baseline.
	x, _ := askRelay(t, url, nil, nil, websocket.MessageText, []byte(`{"uri":"mem://ok"}`))
	x.answered(t)
	http.DefaultClient.CloseIdleConnections()
	base := settledGoroutines(0, time.Second)
	for range 5 {
		for _, ask := range []string{`{"uri":"mem://ok"}`, `{"uri":"mem://gone"}`, `{"uri":"mem://silent"}`, `{"uri":"mem://close"}`, `{"uri":`} {
			askRelay(t, url, nil, nil, websocket.MessageText, []byte(ask))
		}
	}
	if n := settledGoroutines(base, 10*time.Second); n > base {
		t.Fatalf("%d goroutines after 25 asks, %d before", n, base)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.principals) != src.ended || len(src.principals) != 21 {
		t.Fatalf("%d source connections, %d ended; want 21 and all ended", len(src.principals), src.ended)
	}
}

// settledGoroutines polls runtime.NumGoroutine until it is at most want or
// stops falling, for at most d, and returns the last count.
func settledGoroutines(want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	n := runtime.NumGoroutine()
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if want > 0 && m <= want {
			return m
		}
		if want == 0 && m == n {
			return m
		}
		n = m
	}
	return n
}

// FuzzRelayAsk: decoding an ask never panics; a failure wraps exactly one
// sentinel; an ask decoded has a URI and an object _meta (or none), and
// its JSON, what the door sends the source, decodes to the same ask.
func FuzzRelayAsk(f *testing.F) {
	for _, s := range []string{`{"uri":"docs://a"}`, `{"uri":"x","_meta":{"k":[1]}}`, ``, `{}`, `{"uri":5}`, `[]`, "\x00{\"uri\":\"a\"}", `{"uri":"a","_meta":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := bridge.DecodeRelayAsk(data)
		if err != nil {
			n := 0
			for _, s := range []error{bridge.ErrRelayEmpty, bridge.ErrRelayTag, bridge.ErrRelayJSON} {
				if errors.Is(err, s) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("error %v matches %d sentinels", err, n)
			}
			return
		}
		if a.URI == "" || (len(a.Meta) > 0 && a.Meta[0] != '{' && string(a.Meta) != "null") {
			t.Fatalf("decoded %+v from %q", a, data)
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("marshal %+v: %v", a, err)
		}
		back, err := bridge.DecodeRelayAsk(b)
		if err != nil || back.URI != a.URI {
			t.Fatalf("re-decode of %s: %+v %v", b, back, err)
		}
	})
}

// BenchmarkRelayDoor measures one relay exchange over loopback: dial, ask,
// the in-process session with the source (initialize, resources/read of a
// 4 KiB text), the frame and the close.
func BenchmarkRelayDoor(b *testing.B) {
	text := strings.Repeat("x", 4096)
	src := &scriptedSource{read: func(uri string) string {
		return `"result":{"contents":[{"uri":"` + uri + `","text":"` + text + `"}]}`
	}}
	mux := http.NewServeMux()
	h := bridge.Endpoint(nil, src.serve)
	mux.Handle("/mcp/read-resource/{channel}", bridge.RelayDoor(h))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/mcp/read-resource/b"
	ask := []byte(`{"uri":"mem://a"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ws, _, err := websocket.Dial(ctx, url, nil)
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

// TestRelayDoorModernSource: a source that refuses 2025-11-25's initialize
// with -32022 or -32601 (a 2026-07-28-only server behind the gateway) is
// read in 2026-07-28 on a second connection, its request carrying the
// revision's _meta beside the ask's own; a source speaking both is read in
// 2025-11-25 as before (the other tests), and one that refuses initialize
// otherwise is not asked again.
func TestRelayDoorModernSource(t *testing.T) {
	t.Parallel()
	const frame = "\x00" + `{"resultType":"complete","contents":[{"uri":"mem://m","mimeType":"text/plain","text":"modern"}]}`
	for _, tc := range []struct {
		name    string
		initErr int
		frame   string // "" when not served
		methods []string
	}{
		{"-32022: read in 2026-07-28", -32022, frame, []string{"initialize", "server/discover", "resources/read"}},
		{"-32601 (no initialize): read in 2026-07-28", -32601, frame, []string{"initialize", "server/discover", "resources/read"}},
		{"another error: not asked again", -32603, "", []string{"initialize"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &modernPeer{initErr: tc.initErr, metaOK: true, listens: map[string]json.RawMessage{}}
			var progress string // the read's _meta.progressToken, the ask's own
			p.reply = func(_ *bridge.Conn, id json.RawMessage, method string, params json.RawMessage) []string {
				var q struct {
					URI  string                     `json:"uri"`
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				json.Unmarshal(params, &q)
				if method != "resources/read" {
					return []string{rpcError(id, -32601, "no", "")}
				}
				progress = string(q.Meta["progressToken"])
				return []string{result(id, `{"resultType":"complete","contents":[{"uri":"`+q.URI+`","mimeType":"text/plain","text":"modern"}]}`)}
			}
			h := bridge.Endpoint(&bridge.EndpointOptions{RelayTimeout: 2 * time.Second}, p.serve)
			url := "ws://" + relayServer(t, h) + "/mcp/read-resource/chan-m"
			x, resp := askRelay(t, url, nil, nil, websocket.MessageText, []byte(`{"uri":"mem://m","_meta":{"progressToken":"p7"}}`))
			if x == nil {
				t.Fatalf("refused: HTTP %d", resp.StatusCode)
			}
			if tc.frame == "" {
				x.notServed(t, websocket.StatusNormalClosure)
			} else if got := x.answered(t); !bytes.Equal(got, []byte(tc.frame)) {
				t.Fatalf("frame\n got %q\nwant %q", got, tc.frame)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if !slices.Equal(p.seen, tc.methods) {
				t.Errorf("the source saw %v, want %v", p.seen, tc.methods)
			}
			if want := min(len(tc.methods), 2); len(p.conns) != want {
				t.Errorf("%d source connections, want %d", len(p.conns), want)
			}
			if tc.frame != "" && (!p.metaOK || progress != `"p7"`) {
				t.Errorf("the read's _meta: revision keys %v, progressToken %s (want the ask's \"p7\" beside them)", p.metaOK, progress)
			}
		})
	}
}
