//go:build !js

package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// docServer is a go-sdk server over a mutable map of text documents, with
// hooks to block, fail or count reads and to observe subscriptions.
type docServer struct {
	*mcp.Server
	mu      sync.Mutex
	docs    map[string]string
	reads   map[string]int
	gate    map[string]chan struct{} // a read of this URI waits for the channel
	fail    map[string]int           // the next n reads fail with -32603
	subs    map[string]int
	cancels atomic.Int64
	conns   []*bridge.Conn
	latency time.Duration // every read answers this long after its snapshot
	lists   atomic.Int64  // resources/list requests
	// listLatency delays resources/list answers; unsubDelay the
	// unsubscribe handler (the subscription ends when it returns).
	listLatency, unsubDelay time.Duration
	onConn                  func(*bridge.Conn)
	methods                 []string // every request method received
}

func newDocServer(t *testing.T, docs map[string]string, versions ...string) (*docServer, string) {
	t.Helper()
	d := &docServer{docs: docs, reads: map[string]int{}, gate: map[string]chan struct{}{}, fail: map[string]int{}, subs: map[string]int{}}
	d.Server = mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, &mcp.ServerOptions{
		SupportedProtocolVersions: versions,
		SubscribeHandler: func(_ context.Context, r *mcp.SubscribeRequest) error {
			d.mu.Lock()
			d.subs[r.Params.URI]++
			d.mu.Unlock()
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, r *mcp.UnsubscribeRequest) error {
			d.mu.Lock()
			delay := d.unsubDelay
			d.mu.Unlock()
			time.Sleep(delay)
			d.mu.Lock()
			d.subs[r.Params.URI]--
			d.mu.Unlock()
			return nil
		},
	})
	for uri := range docs {
		d.add(uri)
	}
	d.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			d.mu.Lock()
			d.methods = append(d.methods, method)
			d.mu.Unlock()
			if method == "resources/list" {
				d.lists.Add(1)
				d.mu.Lock()
				lat := d.listLatency
				d.mu.Unlock()
				time.Sleep(lat)
			}
			return next(ctx, method, req)
		}
	})
	srv := httptest.NewServer(bridge.ServerHandler(nil, func(c *bridge.Conn) *mcp.Server {
		d.mu.Lock()
		d.conns = append(d.conns, c)
		hook := d.onConn
		d.mu.Unlock()
		if hook != nil {
			hook(c)
		}
		return d.Server
	}))
	t.Cleanup(srv.Close)
	return d, "ws" + strings.TrimPrefix(srv.URL, "http")
}

func (d *docServer) add(uri string) {
	d.AddResource(&mcp.Resource{URI: uri, Name: uri[strings.LastIndex(uri, "/")+1:], MIMEType: "text/markdown"}, d.handler)
}

// handler takes its snapshot of the document when the request arrives, then
// waits on the URI's gate (if any): a gated response is the state of the
// document at request time.
func (d *docServer) handler(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := r.Params.URI
	d.mu.Lock()
	d.reads[uri]++
	g := d.gate[uri]
	text, ok := d.docs[uri]
	failing := d.fail[uri] > 0
	if failing {
		d.fail[uri]--
	}
	lat := d.latency
	d.mu.Unlock()
	if lat > 0 {
		select {
		case <-time.After(lat):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			d.cancels.Add(1)
			return nil, ctx.Err()
		}
	}
	if failing {
		return nil, &jsonrpc.Error{Code: -32603, Message: "transient"}
	}
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}

func (d *docServer) set(uri, text string) {
	d.mu.Lock()
	d.docs[uri] = text
	d.mu.Unlock()
	d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
}

func (d *docServer) readsOf(uri string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.reads[uri]
}

func (d *docServer) subsOf(uri string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.subs[uri]
}

// recorder collects events.
type recorder struct {
	mu sync.Mutex
	ev []host.Event
	ch chan host.Event
}

func newRecorder() *recorder { return &recorder{ch: make(chan host.Event, 1024)} }

func (r *recorder) on(e host.Event) {
	r.mu.Lock()
	r.ev = append(r.ev, e)
	r.mu.Unlock()
	r.ch <- e
}

// wait returns the next event of type typ (for uri when set), failing after 5 s.
func (r *recorder) wait(t *testing.T, typ, uri string) host.Event {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case e := <-r.ch:
			if e.Type == typ && (uri == "" || e.URI == uri) {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s event for %q", typ, uri)
		}
	}
}

func (r *recorder) events() []host.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]host.Event(nil), r.ev...)
}

func (r *recorder) count(typ string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.ev {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func connect(t *testing.T, url string, o *host.Options) (*host.Host, *recorder) {
	t.Helper()
	rec := newRecorder()
	if o == nil {
		o = &host.Options{}
	}
	o.OnEvent = rec.on
	if o.BackoffMin == 0 {
		o.BackoffMin = 10 * time.Millisecond
	}
	h, err := host.Connect(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, rec
}

func text(t *testing.T, h *host.Host, uri string) string {
	t.Helper()
	p := h.Attached(uri)
	if len(p) != 1 {
		t.Fatalf("%s: %d parts", uri, len(p))
	}
	return p[0].Text
}

func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestListingFeedsPicker(t *testing.T) {
	docs := map[string]string{}
	for i := range 30 {
		docs[fmt.Sprintf("docs://team/a/runbook/r%02d", i)] = "# r"
	}
	docs["docs://team/a/onboarding/welcome"] = "# Welcome"
	d, url := newDocServer(t, docs)
	d.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "docs://team/{team}/policy/{name}", Name: "policy"}, d.handler)
	h, rec := connect(t, url, nil)
	// Listed returns once the listing is done: the index holds all of it.
	if err := h.Listed(context.Background()); err != nil {
		t.Fatalf("listed: %v", err)
	}
	if n := h.Index().Len(); n != 32 {
		t.Fatalf("after Listed the index holds %d entries, want 31 resources and 1 template", n)
	}
	res, sum, err := h.Resources(context.Background())
	if err != nil || len(res) != 31 || sum.Truncated {
		t.Fatalf("resources: %d %+v %v", len(res), sum, err)
	}
	tpls, _, err := h.Templates(context.Background())
	if err != nil || len(tpls) != 1 {
		t.Fatalf("templates: %v %v", tpls, err)
	}
	last := rec.wait(t, host.EventListProgress, "")
	for !last.Done {
		last = rec.wait(t, host.EventListProgress, "")
	}
	if last.Resources != 31 || last.Templates != 1 {
		t.Fatalf("final progress %+v", last)
	}
	m := h.Mention("welc", attach.QueryOptions{Limit: 5})
	if len(m) == 0 || m[0].Resource == nil || m[0].Resource.URI != "docs://team/a/onboarding/welcome" {
		t.Fatalf("mention: %+v", m)
	}
	m = h.Mention("policy", attach.QueryOptions{})
	if len(m) == 0 || m[0].Template == nil {
		t.Fatalf("template not in picker: %+v", m)
	}

	// list_changed re-lists into the picker.
	d.add("docs://team/b/onboarding/hello")
	rec.wait(t, host.EventListChanged, "")
	if m := h.Mention("hello", attach.QueryOptions{}); len(m) == 0 || m[0].Resource.URI != "docs://team/b/onboarding/hello" {
		t.Fatalf("after list_changed: %+v", m)
	}
	d.RemoveResources("docs://team/b/onboarding/hello")
	rec.wait(t, host.EventListChanged, "")
	for _, m := range h.Mention("hello", attach.QueryOptions{}) {
		if m.Resource != nil && m.Resource.URI == "docs://team/b/onboarding/hello" {
			t.Fatal("removed resource still in the picker")
		}
	}
}

func TestAttachSubscribesAndUpdates(t *testing.T) {
	const u = "docs://a/runbook"
	d, url := newDocServer(t, map[string]string{u: "v1"})
	h, rec := connect(t, url, nil)
	atts, err := h.Attach(context.Background(), u)
	if err != nil || len(atts) != 1 || atts[0].Text != "v1" || atts[0].State != host.StateFresh || !host.ForModel(&atts[0]) {
		t.Fatalf("attach: %+v %v", atts, err)
	}
	if atts[0].HTML == "" {
		t.Fatal("markdown not rendered")
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })

	d.set(u, "v2")
	e := rec.wait(t, host.EventUpdated, u)
	if len(e.Parts) != 1 || e.Parts[0].Text != "v2" || text(t, h, u) != "v2" {
		t.Fatalf("updated event %+v", e)
	}
	// Attaching again refreshes; never a second copy.
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if n := len(h.Attachments()); n != 1 {
		t.Fatalf("%d attachments after re-attach", n)
	}
	if !h.Detach(u) || h.Detach(u) {
		t.Fatal("detach")
	}
	eventually(t, "unsubscribe", func() bool { return d.subsOf(u) == 0 })
	if len(h.Attachments()) != 0 {
		t.Fatal("detached document still in the context")
	}
}

// TestUpdateRacesRead makes the TOCTOU race deterministic: the update is
// delivered after the re-read's request and before its response, so that
// response is an older snapshot. It is newer than the applied copy, so it is
// applied (progress, never starvation), and the coalesced read that follows
// brings the last version: versions never go backwards and end on v3.
func TestUpdateRacesRead(t *testing.T) {
	const u = "docs://a/policy"
	d, url := newDocServer(t, map[string]string{u: "v1"})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })
	gate := make(chan struct{})
	d.mu.Lock()
	d.gate[u] = gate
	d.docs[u] = "v2"
	d.mu.Unlock()
	// Update 1: the re-read's request takes the snapshot "v2" and blocks.
	d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
	eventually(t, "re-read in flight", func() bool { return d.readsOf(u) == 2 })
	// Update 2 goes on the wire while that read is in flight.
	d.mu.Lock()
	d.docs[u] = "v3"
	delete(d.gate, u)
	d.mu.Unlock()
	d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
	// Now the in-flight read answers its stale "v2" snapshot, after update 2.
	close(gate)
	e := rec.wait(t, host.EventUpdated, u)
	seen := []string{e.Parts[0].Text}
	for e.Parts[0].Text != "v3" {
		e = rec.wait(t, host.EventUpdated, u)
		seen = append(seen, e.Parts[0].Text)
	}
	if len(seen) > 2 || len(seen) == 2 && seen[0] != "v2" {
		t.Fatalf("updated events carried %q; want v2 then v3 (or v3 alone)", seen)
	}
	if got := text(t, h, u); got != "v3" {
		t.Fatalf("context holds %q", got)
	}
	if r := d.readsOf(u); r != 3 {
		t.Fatalf("%d reads; want 3 (attach, discarded re-read, re-issued read)", r)
	}
}

func TestUpdateBurstIsCoalesced(t *testing.T) {
	const u = "docs://a/hot"
	d, url := newDocServer(t, map[string]string{u: "v0"})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })
	const n = 10000 // the fault suite's notification storm
	for i := 1; i <= n; i++ {
		d.mu.Lock()
		d.docs[u] = fmt.Sprintf("v%d", i)
		d.mu.Unlock()
		d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
	}
	eventually(t, "last version", func() bool { return text(t, h, u) == fmt.Sprintf("v%d", n) })
	reads := d.readsOf(u) - 1
	if reads > n/10 { // one read per notification would be n
		t.Fatalf("%d re-reads for %d notifications: not coalesced", reads, n)
	}
	t.Logf("%d notifications → %d re-reads, %d updated events", n, reads, rec.count(host.EventUpdated))
}

func TestGoneOnNotFound(t *testing.T) {
	const u = "docs://a/old"
	d, url := newDocServer(t, map[string]string{u: "keep me"})
	h, rec := connect(t, url, nil)
	if _, _, err := h.Resources(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	delete(d.docs, u)
	d.mu.Unlock()
	d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
	rec.wait(t, host.EventGone, u)
	p := h.Attached(u)
	if len(p) != 1 || p[0].State != host.StateGone || p[0].Text != "keep me" || host.ForModel(&p[0]) {
		t.Fatalf("gone attachment: %+v", p)
	}
	for _, m := range h.Mention("old", attach.QueryOptions{}) {
		if m.Resource != nil && m.Resource.URI == u {
			t.Fatal("gone descriptor still in the picker")
		}
	}
	// A document deleted with only list_changed (no updated) turns gone too.
	const u2 = "docs://a/listed"
	d.mu.Lock()
	d.docs[u2] = "listed"
	d.mu.Unlock()
	d.add(u2)
	rec.wait(t, host.EventListChanged, "")
	if _, err := h.Attach(context.Background(), u2); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	delete(d.docs, u2)
	d.mu.Unlock()
	d.RemoveResources(u2)
	rec.wait(t, host.EventGone, u2)

	// Attaching a missing URI is a not-found error.
	_, err := h.Attach(context.Background(), "docs://a/never")
	if !bridge.IsNotFound(err) {
		t.Fatalf("attach missing: %v", err)
	}
}

func TestRefresh(t *testing.T) {
	docs := map[string]string{"docs://a/1": "one", "docs://a/2": "two", "docs://a/slow": "slow", "docs://a/flaky": "flaky"}
	d, url := newDocServer(t, docs)
	h, rec := connect(t, url, &host.Options{RefreshDeadline: 300 * time.Millisecond})
	for u := range docs {
		if _, err := h.Attach(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	d.docs["docs://a/1"] = "one v2"
	d.gate["docs://a/slow"] = make(chan struct{}) // never opens
	d.docs["docs://a/slow"] = "slow v2"
	d.fail["docs://a/flaky"] = 2 // two -32603s, then success
	d.docs["docs://a/flaky"] = "flaky v2"
	d.mu.Unlock()
	if err := h.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := text(t, h, "docs://a/1"); got != "one v2" {
		t.Errorf("refreshed text %q", got)
	}
	if got := text(t, h, "docs://a/flaky"); got != "flaky v2" {
		t.Errorf("retryable failure not retried: %q", got)
	}
	slow := h.Attached("docs://a/slow")
	if slow[0].State != host.StateStale || slow[0].Text != "slow" || !host.ForModel(&slow[0]) {
		t.Fatalf("slow attachment: %+v", slow[0])
	}
	e := rec.wait(t, host.EventStale, "docs://a/slow")
	if !strings.Contains(e.Reason, "in time") {
		t.Errorf("stale reason %q", e.Reason)
	}
	eventually(t, "server saw the cancellation", func() bool { return d.cancels.Load() >= 1 })
}

func TestReconnect(t *testing.T) {
	const u = "docs://a/r"
	d, url := newDocServer(t, map[string]string{u: "before"})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })
	d.mu.Lock()
	d.docs[u] = "after"
	for _, c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	rec.wait(t, host.EventDisconnected, "")
	rec.wait(t, host.EventReconnected, "")
	if got := text(t, h, u); got != "after" {
		t.Fatalf("attachment not re-read after reconnect: %q", got)
	}
	// Subscribed on the new session (a 2026-07-28 listen that ended with
	// the old session was unsubscribed by the server; a legacy one stays).
	eventually(t, "re-subscribe", func() bool { return d.subsOf(u) >= 1 })
	d.set(u, "live again")
	rec.wait(t, host.EventUpdated, u)
	if got := text(t, h, u); got != "live again" {
		t.Fatalf("%q", got)
	}
}

func TestCallToolDedupe(t *testing.T) {
	const u = "docs://a/runbook"
	d, url := newDocServer(t, map[string]string{u: "the runbook"})
	var draft atomic.Bool
	mcp.AddTool(d.Server, &mcp.Tool{Name: "fetch"}, func(ctx context.Context, r *mcp.CallToolRequest, in struct {
		URI string `json:"uri"`
	}) (*mcp.CallToolResult, any, error) {
		d.mu.Lock()
		text := d.docs[in.URI]
		d.mu.Unlock()
		if draft.Load() {
			text = "draft runbook"
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: in.URI, MIMEType: "text/markdown", Text: text}},
			&mcp.TextContent{Text: "fetched"},
		}}, nil, nil
	})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	tr, err := h.CallTool(context.Background(), "fetch", map[string]string{"uri": u})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Dropped) != 1 || tr.Dropped[0].URI != u || tr.Dropped[0].Index != 0 || strings.Contains(string(tr.Result), "the runbook") {
		t.Fatalf("duplicate not dropped: %+v %s", tr, tr.Result)
	}
	// The tool changed the document (no notification) and embeds the new
	// copy: the confirming read returns the same bytes, so the attachment
	// is updated to them and the embed is a duplicate.
	d.mu.Lock()
	d.docs[u] = "edited runbook"
	d.mu.Unlock()
	tr, err = h.CallTool(context.Background(), "fetch", map[string]string{"uri": u})
	if err != nil || len(tr.Dropped) != 1 || tr.Dropped[0].Reason != "duplicate" || strings.Contains(string(tr.Result), "edited runbook") {
		t.Fatalf("changed document: %+v %v", tr, err)
	}
	if e := rec.wait(t, host.EventUpdated, u); e.Parts[0].Text != "edited runbook" {
		t.Fatalf("updated carried %q", e.Parts[0].Text)
	}
	// A copy the server does not hold (a draft) supersedes the attachment.
	draft.Store(true)
	tr, err = h.CallTool(context.Background(), "fetch", map[string]string{"uri": u})
	if err != nil || len(tr.Superseded) != 1 || !strings.Contains(string(tr.Result), "draft runbook") {
		t.Fatalf("newer copy: %+v %v", tr, err)
	}
	rec.wait(t, host.EventSuperseded, u)
	p := h.Attached(u)
	if p[0].State != host.StateSuperseded || host.ForModel(&p[0]) {
		t.Fatalf("attachment after newer copy: %+v", p[0].State)
	}
	f := h.Figures()
	if f.DuplicatesDropped != 2 || f.ToolResults != 3 {
		t.Fatalf("figures %+v", f)
	}
	// Results obtained elsewhere go through the same filter.
	raw := json.RawMessage(`{"content":[{"type":"resource_link","uri":"docs://a/runbook","name":"runbook"}]}`)
	tr, err = h.FilterToolResult(raw)
	if err != nil || len(tr.Dropped) != 1 {
		t.Fatalf("filter: %+v %v", tr, err)
	}
	if _, err := h.FilterToolResult(json.RawMessage(`[1]`)); err == nil {
		t.Fatal("malformed result accepted")
	}
}

func TestTwoHostsOwnContexts(t *testing.T) {
	_, url := newDocServer(t, map[string]string{"docs://x": "x", "docs://y": "y"})
	h1, _ := connect(t, url, nil)
	h2, _ := connect(t, url, nil)
	if _, err := h1.Attach(context.Background(), "docs://x"); err != nil {
		t.Fatal(err)
	}
	if _, err := h2.Attach(context.Background(), "docs://y"); err != nil {
		t.Fatal(err)
	}
	if a, b := h1.Attachments(), h2.Attachments(); len(a) != 1 || len(b) != 1 || a[0].URI != "docs://x" || b[0].URI != "docs://y" {
		t.Fatalf("contexts mixed: %v %v", a, b)
	}
	h1.Close()
	if _, err := h1.Attach(context.Background(), "docs://x"); !errors.Is(err, bridge.ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	if _, err := h2.Attach(context.Background(), "docs://x"); err != nil {
		t.Fatalf("second host affected by the first's close: %v", err)
	}
}

// TestAttachURIBounds: an empty URI (the list subscription's key on the
// wire, never a document) and one over MaxURIBytes fail at once, naming
// what is wrong, with nothing sent; the longest allowed URI is read as any.
func TestAttachURIBounds(t *testing.T) {
	long := "docs://a/" + strings.Repeat("x", host.MaxURIBytes-len("docs://a/"))
	d, url := newDocServer(t, map[string]string{long: "the longest"})
	h, _ := connect(t, url, nil)
	for _, c := range []struct {
		uri  string
		kind bridge.Kind
		says string
	}{
		{"", bridge.KindInvalid, "uri is empty"},
		{long + "y", bridge.KindLimit, fmt.Sprintf("%d bytes, over the %d", host.MaxURIBytes+1, host.MaxURIBytes)},
		{long + strings.Repeat("y", 5<<20), bridge.KindLimit, "over the 8192"},
	} {
		_, err := h.Attach(context.Background(), c.uri)
		e, ok := bridge.AsError(err)
		if !ok || e.Kind != c.kind || !strings.Contains(err.Error(), c.says) || !strings.Contains(string(e.Data), `"field":"uri"`) {
			t.Errorf("attach of %d bytes: %v (%+v), want kind %s saying %q", len(c.uri), err, e, c.kind, c.says)
		}
		if len(err.Error()) > 1000 {
			t.Errorf("attach of %d bytes: a message of %d bytes quotes the URI whole", len(c.uri), len(err.Error()))
		}
		if d.subsOf(c.uri) != 0 || d.readsOf(c.uri) != 0 {
			t.Errorf("attach of %d bytes reached the server", len(c.uri))
		}
	}
	if got := h.AttachedURIs(); len(got) != 0 {
		t.Fatalf("refused attaches left entries: %d", len(got))
	}
	if _, err := h.Attach(context.Background(), long); err != nil {
		t.Fatalf("attach of exactly MaxURIBytes: %v", err)
	}
	if got := text(t, h, long); got != "the longest" {
		t.Fatalf("text %q", got)
	}
}

// TestNoReconnectSaysSo: with reconnect off, the disconnected event and
// every later call say that no reconnect is coming, and the calls' errors
// are not retryable (data.retryable false); with it on, a call made while
// reconnecting stays retryable.
func TestNoReconnectSaysSo(t *testing.T) {
	const u = "docs://a/n"
	d, url := newDocServer(t, map[string]string{u: "n"})
	h, rec := connect(t, url, &host.Options{NoReconnect: true})
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	for _, c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	e := rec.wait(t, host.EventDisconnected, "")
	if !strings.HasPrefix(e.Reason, "not reconnecting (reconnect is off): ") {
		t.Errorf("disconnected reason %q", e.Reason)
	}
	_, err := h.Attach(context.Background(), "docs://a/other")
	be, ok := bridge.AsError(err)
	if !ok || be.Kind != bridge.KindUnavailable || !strings.Contains(err.Error(), "not reconnecting") || string(be.Data) != `{"retryable":false}` {
		t.Fatalf("a call after the loss: %v (%+v)", err, be)
	}
	if strings.Contains(err.Error(), "(reconnecting)") {
		t.Errorf("%v: says a reconnect is coming", err)
	}
}
