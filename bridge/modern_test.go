//go:build !js

package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// modernPeer is a scripted 2026-07-28-only server over a raw WebSocket: it
// rejects initialize with -32022, and any request whose _meta lacks the
// protocol version with -32602. reply answers everything else.
type modernPeer struct {
	mu      sync.Mutex
	seen    []string // methods, in order
	metaOK  bool     // every request so far carried the full _meta
	conns   []*bridge.Conn
	reply   func(c *bridge.Conn, id json.RawMessage, method string, params json.RawMessage) []string
	listens map[string]json.RawMessage // listen id -> its filter
	caps    string                     // the capabilities object server/discover announces ("" = resources, tools, completions)
	initErr int                        // the code initialize is refused with (0: -32022)
}

func (p *modernPeer) methods() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

func (p *modernPeer) send(msg string) {
	p.mu.Lock()
	cs := append([]*bridge.Conn(nil), p.conns...)
	p.mu.Unlock()
	for _, c := range cs {
		c.WriteRaw(context.Background(), []byte(msg))
	}
}

func startModern(t *testing.T, p *modernPeer) string {
	t.Helper()
	p.metaOK = true
	p.listens = map[string]json.RawMessage{}
	return serve(t, bridge.Endpoint(nil, p.serve))
}

// serve is the peer's serve function (startModern sets metaOK and listens
// first).
func (p *modernPeer) serve(ctx context.Context, c *bridge.Conn) {
	{
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		for {
			data, err := c.ReadRaw(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			json.Unmarshal(data, &m)
			var raw struct {
				Params json.RawMessage `json:"params"`
			}
			json.Unmarshal(data, &raw)
			p.mu.Lock()
			p.seen = append(p.seen, m.Method)
			p.mu.Unlock()
			if m.ID == nil {
				continue // notifications (cancelled) are recorded only
			}
			var out []string
			switch {
			case m.Method == "initialize":
				code := -32022
				if p.initErr != 0 {
					code = p.initErr
				}
				out = []string{rpcError(m.ID, code, "Unsupported protocol version", `{"supported":["2026-07-28"],"requested":"2025-11-25"}`)}
			case string(m.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` ||
				m.Params.Meta["io.modelcontextprotocol/clientCapabilities"] == nil || m.Params.Meta["io.modelcontextprotocol/clientInfo"] == nil:
				p.mu.Lock()
				p.metaOK = false
				p.mu.Unlock()
				out = []string{rpcError(m.ID, -32602, "missing _meta protocolVersion", "")}
			case m.Method == "server/discover":
				caps := `{"resources":{"subscribe":true,"listChanged":true},"tools":{},"completions":{}}`
				if p.caps != "" {
					caps = p.caps
				}
				out = []string{result(m.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+caps+`,"instructions":"modern only","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern-peer","version":"7"}}}`)}
			case m.Method == "subscriptions/listen":
				var q struct {
					Notifications json.RawMessage `json:"notifications"`
				}
				json.Unmarshal(raw.Params, &q)
				p.mu.Lock()
				p.listens[string(m.ID)] = q.Notifications
				p.mu.Unlock()
				// Acknowledged, then open until cancelled (never answered here).
				out = []string{fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s},"notifications":%s}}`, m.ID, q.Notifications)}
			case p.reply != nil:
				out = p.reply(c, m.ID, m.Method, raw.Params)
			default:
				out = []string{rpcError(m.ID, -32601, "no", "")}
			}
			for _, f := range out {
				if err := c.WriteRaw(ctx, []byte(f)); err != nil {
					return
				}
			}
		}
	}
}

func TestModernOnlyPeer(t *testing.T) {
	var rounds sync.Map
	p := &modernPeer{}
	p.reply = func(_ *bridge.Conn, id json.RawMessage, method string, params json.RawMessage) []string {
		var q struct {
			URI          string          `json:"uri"`
			Cursor       *string         `json:"cursor"`
			RequestState json.RawMessage `json:"requestState"`
		}
		json.Unmarshal(params, &q)
		switch method {
		case "resources/list":
			switch {
			case q.Cursor == nil:
				return []string{result(id, `{"resources":[{"uri":"m://1","name":"one"}],"nextCursor":"","ttlMs":5000,"cacheScope":"private"}`)}
			case *q.Cursor == "":
				return []string{result(id, `{"resources":[{"uri":"m://2","name":"two"}],"nextCursor":"z","resultType":"complete"}`)}
			default:
				return []string{result(id, `{"resources":[{"uri":"m://3","name":"three"}]}`)}
			}
		case "resources/read":
			switch q.URI {
			case "m://mrtr":
				n, _ := rounds.LoadOrStore(string(q.RequestState), 0)
				if len(q.RequestState) == 0 {
					return []string{result(id, `{"resultType":"input_required","requestState":{"step":1,"opaque":"a\u00e9"}}`)}
				}
				if string(q.RequestState) != `{"step":1,"opaque":"a\u00e9"}` {
					return []string{rpcError(id, -32602, "requestState not echoed verbatim: "+string(q.RequestState), "")}
				}
				_ = n
				return []string{result(id, `{"contents":[{"uri":"m://mrtr","text":"after one round"}],"ttlMs":1500,"cacheScope":"private"}`)}
			case "m://forever":
				return []string{result(id, `{"resultType":"input_required","requestState":"again"}`)}
			case "m://elicit":
				return []string{result(id, `{"resultType":"input_required","inputRequests":{"e":{"method":"elicitation/create"}}}`)}
			case "m://weird":
				return []string{result(id, `{"resultType":"partial","contents":[]}`)}
			case "m://gone":
				return []string{rpcError(id, -32602, "Resource not found", `{"uri":"m://gone"}`)}
			case "m://hdr":
				return []string{rpcError(id, -32020, "Mcp-Name header does not match", "")}
			case "m://cap":
				return []string{rpcError(id, -32021, "Missing required client capability", `{"requiredCapabilities":{"elicitation":{}}}`)}
			case "m://ver":
				return []string{rpcError(id, -32022, "Unsupported protocol version", `{"supported":["2027-01-01"],"requested":"2026-07-28"}`)}
			case "m://closing":
				return []string{rpcError(id, -32003, "closing", "")}
			}
			return []string{result(id, fmt.Sprintf(`{"contents":[{"uri":%q,"text":"text of %s"}],"ttlMs":0}`, q.URI, q.URI))}
		case "ping":
		}
		return []string{rpcError(id, -32601, "no", "")}
	}
	url := startModern(t, p)
	w := newWatchRec()
	s := dial(t, url, &bridge.Options{Watcher: w})
	ctx := context.Background()

	init := s.InitializeResult()
	if init.ProtocolVersion != "2026-07-28" || init.ServerInfo.Name != "modern-peer" || init.Instructions != "modern only" || init.Capabilities.Resources == nil {
		t.Fatalf("handshake %+v", init)
	}
	if m := p.methods(); m[0] != "server/discover" || strings.Contains(strings.Join(m, ","), "initialize") {
		t.Fatalf("methods %v: initialize must not cross the wire", m)
	}

	t.Run("an empty-string cursor is a cursor", func(t *testing.T) {
		l, err := s.ListResources(ctx, nil)
		if err != nil || len(l.Items) != 3 || l.Pages != 3 {
			t.Fatalf("list %+v %v", l, err)
		}
	})
	t.Run("input_required with requestState is retried with the state verbatim", func(t *testing.T) {
		r, err := s.Read(ctx, "m://mrtr")
		if err != nil || *r.Contents[0].Text != "after one round" || r.TTL != 1500*time.Millisecond || r.CacheScope != "private" {
			t.Fatalf("read %+v %v", r, err)
		}
	})
	for _, tc := range []struct {
		uri, want string
		kind      bridge.Kind
		code      int64
		retryable bool
	}{
		{"m://forever", "after 3 rounds", bridge.KindProtocol, 0, false},
		{"m://elicit", "inputRequests", bridge.KindUnsupported, 0, false},
		{"m://weird", `unknown resultType "partial"`, bridge.KindProtocol, 0, false},
		{"m://gone", "not found", bridge.KindNotFound, -32602, false},
		{"m://hdr", "header", bridge.KindProtocol, -32020, false},
		{"m://cap", "capability", bridge.KindUnsupported, -32021, false},
		{"m://ver", "Unsupported protocol version", bridge.KindUnsupported, -32022, false},
		{"m://closing", "closing", bridge.KindPermanent, -32003, false}, // no assumed meaning in 2026-07-28
	} {
		t.Run(tc.uri, func(t *testing.T) {
			_, err := s.Read(ctx, tc.uri)
			e, ok := bridge.AsError(err)
			if !ok || e.Kind != tc.kind || e.Code != tc.code || bridge.IsRetryable(err) != tc.retryable || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
				t.Fatalf("err = %v (kind %v code %v)", err, e.Kind, e.Code)
			}
			if tc.code == -32021 && !strings.Contains(string(e.Data), "requiredCapabilities") {
				t.Fatalf("data %s", e.Data)
			}
			if tc.code == -32022 && !strings.Contains(string(e.Data), "supported") {
				t.Fatalf("data %s", e.Data)
			}
		})
	}
	t.Run("listen per URI, updates routed by subscriptionId", func(t *testing.T) {
		s.Watch([]string{"m://a"}, nil)
		if u := recv(t, w.acked, "Acked"); u != "m://a" {
			t.Fatal(u)
		}
		var id string
		p.mu.Lock()
		for k, f := range p.listens {
			if strings.Contains(string(f), "m://a") {
				id = k
			}
		}
		p.mu.Unlock()
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"m://a","_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, id))
		if u := recv(t, w.updated, "updated"); u != "m://a" {
			t.Fatal(u)
		}
		// A string subscriptionId is not our (numeric) listen: ignored.
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"m://a","_meta":{"io.modelcontextprotocol/subscriptionId":"%s"}}}`, id))
		select {
		case u := <-w.updated:
			t.Fatalf("update from a string subscriptionId routed: %s", u)
		case <-time.After(100 * time.Millisecond):
		}
	})
	if m := p.methods(); !p.metaOK {
		t.Fatalf("a request lacked _meta: %v", m)
	}
	t.Run("ping is not answered as a server request in 2026-07-28", func(t *testing.T) {
		got := make(chan string, 1)
		p.mu.Lock()
		c := p.conns[0]
		p.mu.Unlock()
		_ = got
		c.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`))
		// The client answers -32601 (no ping in this revision); the peer
		// records nothing for responses, so check the session goes on.
		if _, err := s.Read(ctx, "m://x"); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPinnedModernAgainstLegacyServer(t *testing.T) {
	p := &scripted{}
	url := startScripted(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := bridge.Dial(ctx, url, &bridge.Options{Protocol: bridge.ProtocolModern})
	if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindUnsupported || !strings.Contains(err.Error(), "2026-07-28") {
		t.Fatalf("err = %v", err)
	}
	for _, m := range p.methods() {
		if m == "initialize" {
			t.Fatal("a pinned 2026-07-28 client sent initialize")
		}
	}
}

func TestRequestStateReplaced(t *testing.T) {
	for _, tc := range []struct{ in, state, want string }{
		{`{"uri":"a"}`, `"s1"`, `{"uri":"a","requestState":"s1"}`},
		{`{"uri":"a","requestState":"s1"}`, `"s2"`, `{"uri":"a","requestState":"s2"}`},
		{`{"requestState":{"x":1},"_meta":{"k":[1,2]},"uri":"a\"b"}`, `{"y":2}`, `{"_meta":{"k":[1,2]},"uri":"a\"b","requestState":{"y":2}}`},
		{`{}`, `"s"`, `{"requestState":"s"}`},
		{``, `"s"`, `{"requestState":"s"}`},
	} {
		if got := string(bridge.WithRequestStateForTest([]byte(tc.in), []byte(tc.state))); got != tc.want {
			t.Errorf("withRequestState(%s, %s) = %s; want %s", tc.in, tc.state, got, tc.want)
		}
	}
}

// For #14: frames nested far past the depth bound (20,000 arrays in 40 KB;
// 10 MB of "[") are reported once each and the session goes on; the call
// whose id a deep error response carries fails at once with the frame's error.
func TestDeepFramesDoNotWedgeTheSession(t *testing.T) {
	var protoErrs sync.Map
	p := &scripted{reply: func(c *bridge.Conn, id json.RawMessage, method string, params json.RawMessage) []string {
		switch method {
		case "tools/list":
			deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
			return []string{
				deep,                                 // not an object at all
				strings.Repeat("[", 10<<20),          // 10 MB, never closed
				`{"jsonrpc":"2.0","x":` + deep + `}`, // an object with a deep member
				result(id, `{"tools":[{"name":"ok","inputSchema":{"type":"object"}}]}`),
			}
		case "resources/read":
			if strings.Contains(string(params), "deep-result") {
				// A result too deep to decode: the client's own finding.
				return []string{`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"contents":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`}
			}
			// A response whose id comes before a deep, broken member.
			return []string{`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32603,"message":"deep"},"junk":` + strings.Repeat("[", 50000) + `}`}
		}
		return []string{rpcError(id, -32601, "no", "")}
	}}
	var n atomic.Int64
	s := dial(t, startScripted(t, p), &bridge.Options{ReadLimit: 32 << 20, OnProtocolError: func(err error) {
		protoErrs.Store(n.Add(1), err)
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := s.ListTools(ctx)
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("tools after deep frames: %+v %v", l, err)
	}
	_, err = s.ReadResource(ctx, "x://deep")
	if e, ok := bridge.AsError(err); !ok || e.Code != -32603 {
		t.Fatalf("read answered by a deep error frame: %v", err)
	}
	_, err = s.ReadResource(ctx, "x://deep-result")
	if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindProtocol || e.URI != "x://deep-result" || !strings.Contains(e.Message, "undecodable") {
		t.Fatalf("read answered by a result too deep to decode: %#v", err)
	}
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatalf("the session did not go on: %v", err)
	}
	// Reported on the callback goroutine: wait for the three.
	for deadline := time.Now().Add(5 * time.Second); n.Load() < 3 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := n.Load(); got < 3 {
		t.Fatalf("%d protocol errors reported; want one per undecodable frame (3)", got)
	}
}

// For #14: a listing stops at maxDescriptors (and at the bytes bound) with
// what it gathered, Truncated, and a limit error naming the bound.
func TestListingBounds(t *testing.T) {
	page := func(id json.RawMessage, n, from int, next string) string {
		var rs []string
		for i := range n {
			rs = append(rs, fmt.Sprintf(`{"uri":"b://%d","name":"n%d"}`, from+i, from+i))
		}
		return result(id, `{"resources":[`+strings.Join(rs, ",")+`],"nextCursor":"`+next+`"}`)
	}
	p := &scripted{reply: func(_ *bridge.Conn, id json.RawMessage, method string, params json.RawMessage) []string {
		var q struct{ Cursor string }
		json.Unmarshal(params, &q)
		n, _ := strconv.Atoi(q.Cursor)
		return []string{page(id, 400, n*400, strconv.Itoa(n+1))} // never ends
	}}
	url := startScripted(t, p)
	s := dial(t, url, &bridge.Options{MaxDescriptors: 1000})
	l, err := s.ListResources(context.Background(), nil)
	if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindLimit || !strings.Contains(err.Error(), "1000") {
		t.Fatalf("err = %v", err)
	}
	if len(l.Items) != 1000 || !l.Truncated {
		t.Fatalf("%d items, truncated %v", len(l.Items), l.Truncated)
	}
	s2 := dial(t, url, &bridge.Options{MaxListBytes: 50_000})
	l, err = s2.ListResources(context.Background(), nil)
	if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindLimit || !strings.Contains(err.Error(), "bytes") || !l.Truncated || len(l.Items) == 0 {
		t.Fatalf("bytes bound: %d items, %v", len(l.Items), err)
	}
}

// For #14 item 7: 100,000 server pings in a burst cost neither a goroutine
// each nor the session: a call made behind them is answered, the excess is
// reported once.
func TestPingFloodIsBounded(t *testing.T) {
	flood := make(chan struct{})
	p := &scripted{reply: func(c *bridge.Conn, id json.RawMessage, method string, _ json.RawMessage) []string {
		if method == "tools/list" {
			var b strings.Builder
			for i := range 100_000 {
				fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"p%d","method":"ping"}`+"\n", i)
			}
			out := strings.Split(strings.TrimSpace(b.String()), "\n")
			close(flood)
			return append(out, result(id, `{"tools":[]}`))
		}
		return []string{rpcError(id, -32601, "no", "")}
	}}
	var reported atomic.Int64
	s := dial(t, startScripted(t, p), &bridge.Options{OnProtocolError: func(err error) {
		if strings.Contains(err.Error(), "unanswered") {
			reported.Add(1)
		}
	}})
	before := runtime.NumGoroutine()
	// The bound is the test's subject, not the speed: answering 100,000 pings
	// under -race while make test runs every package at once took over 20 s
	// on a 2-core machine (2026-12-05), so the call gets 60.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatalf("a call behind 100,000 pings: %v", err)
	}
	<-flood
	if g := runtime.NumGoroutine(); g > before+50 {
		t.Fatalf("%d goroutines after the flood (%d before)", g, before)
	}
	time.Sleep(50 * time.Millisecond)
	if n := reported.Load(); n != 1 {
		t.Fatalf("the flood was reported %d times; want once", n)
	}
}
