//go:build !js

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
)

// listenPeer is a scripted 2026-07-28-only server: versioned documents,
// a read counter, listens it can end on its own, and results with ttlMs.
type listenPeer struct {
	mu      sync.Mutex
	docs    map[string]int // version per URI
	reads   map[string]int
	ttlMs   int
	conn    *bridge.Conn
	listens map[string]string // listen id -> URI ("" for list changes)
	methods []string
}

func newListenPeer(t *testing.T, docs map[string]int, ttlMs int) (*listenPeer, string) {
	p := &listenPeer{docs: docs, reads: map[string]int{}, ttlMs: ttlMs, listens: map[string]string{}}
	srv := httptest.NewServer(bridge.Endpoint(nil, func(ctx context.Context, c *bridge.Conn) {
		p.mu.Lock()
		p.conn = c
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
					URI           string `json:"uri"`
					Notifications struct {
						ResourceSubscriptions []string `json:"resourceSubscriptions"`
					} `json:"notifications"`
					Meta map[string]json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			json.Unmarshal(data, &m)
			p.mu.Lock()
			p.methods = append(p.methods, m.Method)
			p.mu.Unlock()
			if m.ID == nil {
				continue
			}
			var out string
			switch {
			case m.Method == "initialize" || string(m.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"`:
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`, m.ID)
			case m.Method == "server/discover":
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"resources":{"subscribe":true,"listChanged":true}},"ttlMs":0,"cacheScope":"public"}}`, m.ID)
			case m.Method == "resources/list":
				p.mu.Lock()
				var rs []string
				for u := range p.docs {
					rs = append(rs, fmt.Sprintf(`{"uri":%q,"name":%q}`, u, u))
				}
				p.mu.Unlock()
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resources":[%s],"ttlMs":0,"cacheScope":"private"}}`, m.ID, strings.Join(rs, ","))
			case m.Method == "resources/templates/list":
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resourceTemplates":[]}}`, m.ID)
			case m.Method == "resources/read":
				p.mu.Lock()
				v, ok := p.docs[m.Params.URI]
				p.reads[m.Params.URI]++
				ttl := p.ttlMs
				p.mu.Unlock()
				if !ok {
					out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Resource not found","data":{"uri":%q}}}`, m.ID, m.Params.URI)
				} else {
					out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","contents":[{"uri":%q,"text":"v%d"}],"ttlMs":%d,"cacheScope":"private"}}`, m.ID, m.Params.URI, v, ttl)
				}
			case m.Method == "subscriptions/listen":
				u := ""
				if len(m.Params.Notifications.ResourceSubscriptions) > 0 {
					u = m.Params.Notifications.ResourceSubscriptions[0]
				}
				p.mu.Lock()
				p.listens[string(m.ID)] = u
				p.mu.Unlock()
				b, _ := json.Marshal(m.Params.Notifications)
				out = fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%s},"notifications":%s}}`, m.ID, b)
			default:
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
			}
			if c.WriteRaw(ctx, []byte(out)) != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return p, "ws" + strings.TrimPrefix(srv.URL, "http")
}

func (p *listenPeer) write(msg string) {
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	c.WriteRaw(context.Background(), []byte(msg))
}

// change bumps uri's version; notify sends updated on its open listens.
func (p *listenPeer) change(uri string, notify bool) {
	p.mu.Lock()
	p.docs[uri]++
	var ids []string
	for id, u := range p.listens {
		if u == uri {
			ids = append(ids, id)
		}
	}
	p.mu.Unlock()
	if notify {
		for _, id := range ids {
			p.write(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":%q,"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, uri, id))
		}
	}
}

// endListens ends every listen of uri with a result, as a server may.
func (p *listenPeer) endListens(uri string) {
	p.mu.Lock()
	var ids []string
	for id, u := range p.listens {
		if u == uri {
			ids = append(ids, id)
			delete(p.listens, id)
		}
	}
	p.mu.Unlock()
	for _, id := range ids {
		p.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, id, id))
	}
}

func (p *listenPeer) readsOf(uri string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads[uri]
}

func (p *listenPeer) listensOf(uri string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, u := range p.listens {
		if u == uri {
			n++
		}
	}
	return n
}

// For #13: against a 2026-07-28-only peer, a listen the server ends is
// reopened, and a change announced while it is being replaced (no listen
// open) is not lost: once the new listen is acknowledged, one confirming
// read brings it.
func TestModernListenReplacedLosesNoUpdate(t *testing.T) {
	const u = "m://doc"
	p, url := newListenPeer(t, map[string]int{u: 1}, 0)
	h, rec := connect(t, url, nil)
	if v := h.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("revision %q", v)
	}
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	p.change(u, true)
	if e := rec.wait(t, host.EventUpdated, u); e.Parts[0].Text != "v2" {
		t.Fatalf("updated %q", e.Parts[0].Text)
	}
	// The server ends the listen and changes the document while no listen
	// is open: no notification can reach the host.
	p.endListens(u)
	p.change(u, false)
	e := rec.wait(t, host.EventUpdated, u)
	if e.Parts[0].Text != "v3" {
		t.Fatalf("after the listen was replaced: %q", e.Parts[0].Text)
	}
	eventually(t, "listen reopened", func() bool { return p.listensOf(u) == 1 })
	p.change(u, true)
	if e := rec.wait(t, host.EventUpdated, u); e.Parts[0].Text != "v4" {
		t.Fatalf("updated %q", e.Parts[0].Text)
	}
	for _, m := range p.methods {
		if m == "initialize" {
			t.Fatal("initialize crossed the wire")
		}
	}
}

// For #13: refresh() within a read result's ttlMs sends no read; after an
// update notification it does; a confirming read (tool link) never uses
// the cache.
func TestModernRefreshHonoursTTL(t *testing.T) {
	const u = "m://cached"
	p, url := newListenPeer(t, map[string]int{u: 1}, 60_000)
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if err := h.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := p.readsOf(u); n != 1 {
		t.Fatalf("%d reads: refresh within ttlMs re-read", n)
	}
	// A notification invalidates at once: it is followed by a read.
	p.change(u, true)
	rec.wait(t, host.EventUpdated, u)
	if n := p.readsOf(u); n != 2 {
		t.Fatalf("%d reads after a notification; want 2", n)
	}
	if err := h.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := p.readsOf(u); n != 2 {
		t.Fatalf("%d reads: refresh right after the update's read (within its ttlMs) re-read", n)
	}
	// ttlMs 0: every refresh reads.
	p.mu.Lock()
	p.ttlMs = 0
	p.mu.Unlock()
	p.change(u, true)
	rec.wait(t, host.EventUpdated, u)
	for i := range 2 {
		before := p.readsOf(u)
		if err := h.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := p.readsOf(u); got != before+1 {
			t.Fatalf("ttlMs 0, refresh %d: %d reads; want 1", i, got-before)
		}
	}
}

// For #13: a go-sdk v1.8.0 server restricted to 2026-07-28 over the bridge
// WebSocket: the host speaks it without initialize; attach A, attach B,
// detach B, update A gives updated(A), and a new document still gives
// listchanged (go-sdk's listen defect must not bite).
func TestGoSDKModernOnly(t *testing.T) {
	const a, b = "docs://m/a", "docs://m/b"
	d, url := newDocServer(t, map[string]string{a: "a1", b: "b1"}, "2026-07-28")
	h, rec := connect(t, url, nil)
	if v := h.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("revision %q", v)
	}
	for _, u := range []string{a, b} {
		if _, err := h.Attach(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	h.Detach(b)
	eventually(t, "b's listen ended", func() bool { return d.subsOf(b) == 0 })
	d.set(a, "a2")
	if e := rec.wait(t, host.EventUpdated, a); e.Parts[0].Text != "a2" {
		t.Fatalf("updated %q", e.Parts[0].Text)
	}
	for len(rec.ch) > 0 {
		<-rec.ch
	}
	d.mu.Lock()
	d.docs["docs://m/c"] = "c"
	d.mu.Unlock()
	d.add("docs://m/c")
	rec.wait(t, host.EventListChanged, "")
	eventually(t, "c listed", func() bool {
		rs, _, _ := h.Resources(context.Background())
		return len(rs) == 3
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.methods {
		if m == "initialize" {
			t.Fatal("initialize crossed the wire")
		}
	}
}
