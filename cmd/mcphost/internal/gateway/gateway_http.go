//go:build !js

package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// An HTTP gateway relays each WebSocket connection to its own session on a
// Streamable HTTP server. Its fields must not change once it serves.
type HTTP struct {
	URL       string            // the server's MCP endpoint
	Header    http.Header       // added to every request (-upstream-header)
	ReadLimit int64             // largest message or server-sent event accepted, in bytes
	Transport http.RoundTripper // nil means http.DefaultTransport
	Retry     time.Duration     // first reconnect delay of the standalone stream
	Log       *slog.Logger
}

// Serve runs one connection until either side ends: a session of its own
// upstream (go-sdk sends DELETE at the end), requests relayed concurrently,
// server-initiated messages from the standalone GET stream, resumed with
// Last-Event-ID. When the upstream cannot be reached at all, the browser's
// first request is answered with why.
func (g *HTTP) Serve(ctx context.Context, c *bridge.Conn) {
	u, err := g.connect(ctx)
	if err != nil {
		g.Log.Error("gateway: cannot set up the upstream connection", "url", g.URL, "err", err)
		answerStartFailure(ctx, c, err)
		return
	}
	p := &pump{log: g.Log, browser: c, up: u, concurrent: true, terminal: func(error) bool { return true }}
	p.run(ctx)
}

// httpUpstream wraps go-sdk's StreamableClientTransport connection, used as
// a raw connection, with what its ClientSession would otherwise provide: the
// MCP-Protocol-Version header (from the initialize result relayed through
// it) and the standalone GET/SSE stream opened after
// notifications/initialized, resumed with Last-Event-ID.
type httpUpstream struct {
	g      *HTTP
	client *http.Client
	inner  mcp.Connection
	ctx    context.Context // the connection's lifetime
	cancel context.CancelFunc

	version atomic.Pointer[string] // negotiated protocol version
	mu      sync.Mutex
	initID  jsonrpc.ID // id of the relayed initialize request
	started bool       // standalone stream started

	incoming chan readResult // from inner.Read
	extra    chan jsonrpc.Message
	failed   chan error
	wg       sync.WaitGroup
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func (g *HTTP) connect(ctx context.Context) (*httpUpstream, error) {
	u := &httpUpstream{g: g, incoming: make(chan readResult), extra: make(chan jsonrpc.Message), failed: make(chan error, 1)}
	u.ctx, u.cancel = context.WithCancel(context.WithoutCancel(ctx))
	base := g.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	u.client = &http.Client{Transport: &stampTransport{base: base, headers: g.Header, version: u.protocolVersion}}
	t := &mcp.StreamableClientTransport{Endpoint: g.URL, HTTPClient: u.client, MaxEventSize: int(g.ReadLimit), DisableStandaloneSSE: true}
	inner, err := t.Connect(u.ctx)
	if err != nil {
		u.cancel()
		return nil, err
	}
	u.inner = inner
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		for {
			msg, err := inner.Read(u.ctx)
			select {
			case u.incoming <- readResult{msg, err}:
			case <-u.ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return u, nil
}

func (u *httpUpstream) protocolVersion() string {
	if v := u.version.Load(); v != nil {
		return *v
	}
	return ""
}

// SessionID implements mcp.Connection.
func (u *httpUpstream) SessionID() string { return u.inner.SessionID() }

// Write posts msg under the connection's lifetime (a POST's SSE answer must
// outlive any one call). After notifications/initialized has been accepted,
// it opens the standalone stream.
func (u *httpUpstream) Write(_ context.Context, msg jsonrpc.Message) error {
	req, isReq := msg.(*jsonrpc.Request)
	if isReq && req.Method == "initialize" {
		u.mu.Lock()
		u.initID = req.ID
		u.mu.Unlock()
	}
	if err := u.inner.Write(u.ctx, msg); err != nil {
		return err
	}
	if isReq && req.Method == "notifications/initialized" {
		u.mu.Lock()
		start := !u.started
		u.started = true
		u.mu.Unlock()
		if start {
			u.wg.Add(1)
			go func() { defer u.wg.Done(); u.listen() }()
		}
	}
	return nil
}

// Read returns the next message from a POST answer or the standalone stream.
func (u *httpUpstream) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-u.ctx.Done():
		return nil, mcp.ErrConnectionClosed
	case err := <-u.failed:
		return nil, err
	case m := <-u.extra:
		return m, nil
	case r := <-u.incoming:
		if r.err != nil {
			return nil, r.err
		}
		u.observe(r.msg)
		return r.msg, nil
	}
}

// observe takes the negotiated protocol version from the initialize result.
func (u *httpUpstream) observe(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return
	}
	u.mu.Lock()
	isInit := u.initID.IsValid() && resp.ID == u.initID
	u.mu.Unlock()
	if !isInit {
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &res) == nil && res.ProtocolVersion != "" {
		u.version.Store(&res.ProtocolVersion)
	}
}

// Close ends the session (go-sdk sends DELETE) and the standalone stream.
func (u *httpUpstream) Close() error {
	err := u.inner.Close()
	u.cancel()
	u.wg.Wait()
	return err
}

// maxStreamFailures is how many consecutive failed attempts without a
// single event end the attempts to (re)open the standalone stream.
const maxStreamFailures = 5

// listen keeps the standalone GET/SSE stream open for server-initiated
// messages (resources/updated, list_changed, requests), reconnecting with
// Last-Event-ID. A server without one (405) is fine; a server that says the
// session is gone (404) ends the connection.
func (u *httpUpstream) listen() {
	log := u.g.Log
	lastID := ""
	delay := u.g.Retry
	failures := 0
	for u.ctx.Err() == nil {
		progressed, stop := u.listenOnce(&lastID, &delay)
		if stop {
			return
		}
		if progressed {
			failures = 0
		} else if failures++; failures >= maxStreamFailures {
			log.Warn("gateway: giving up on the upstream's standalone stream; server-initiated messages will be lost",
				"attempts", failures)
			return
		}
		wait := delay << min(failures, 5)
		select {
		case <-u.ctx.Done():
			return
		case <-time.After(min(wait, 30*time.Second)):
		}
	}
}

// listenOnce makes one GET and reads its events.
func (u *httpUpstream) listenOnce(lastID *string, delay *time.Duration) (progressed, stop bool) {
	log := u.g.Log
	req, err := http.NewRequestWithContext(u.ctx, http.MethodGet, u.g.URL, nil)
	if err != nil {
		return false, true
	}
	req.Header.Set("Accept", "text/event-stream")
	sid := u.inner.SessionID()
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if *lastID != "" {
		req.Header.Set("Last-Event-ID", *lastID)
	}
	resp, err := u.client.Do(req)
	if err != nil {
		if u.ctx.Err() == nil {
			log.Info("gateway: standalone stream request failed", "err", err)
		}
		return false, false
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		log.Info("gateway: the upstream offers no standalone stream (405); server-initiated messages arrive only during requests")
		return false, true
	case resp.StatusCode == http.StatusNotFound && sid != "":
		err := fmt.Errorf("the upstream session %s is gone (404 on the standalone stream)", sid)
		log.Warn("gateway: " + err.Error())
		select {
		case u.failed <- err:
		default:
		}
		return false, true
	case resp.StatusCode != http.StatusOK || ct != "text/event-stream":
		log.Info("gateway: standalone stream refused", "status", resp.StatusCode, "contentType", ct)
		return false, false
	}
	err = readSSE(resp.Body, *lastID, u.g.ReadLimit, func(ev sseEvent) error {
		progressed = true
		*lastID = ev.id
		if ev.retry > 0 {
			*delay = ev.retry
		}
		if len(ev.data) == 0 || (ev.name != "" && ev.name != "message") {
			return nil
		}
		msg, err := jsonrpc.DecodeMessage(ev.data)
		if err != nil {
			log.Warn("gateway: skipped an undecodable event on the standalone stream", "err", err, "bytes", len(ev.data))
			return nil
		}
		select {
		case u.extra <- msg:
			return nil
		case <-u.ctx.Done():
			return u.ctx.Err()
		}
	})
	if err != nil && u.ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		log.Info("gateway: standalone stream interrupted; resuming", "err", err, "lastEventID", *lastID)
	}
	return progressed, false
}

// stampTransport adds the -upstream-header headers to every request and,
// once negotiated, MCP-Protocol-Version (go-sdk's raw connection sends it
// only when its own ClientSession told it the version).
type stampTransport struct {
	base    http.RoundTripper
	headers http.Header
	version func() string
}

func (t *stampTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	for k, v := range t.headers {
		r.Header[k] = v
	}
	if v := t.version(); v != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
		r.Header.Set("Mcp-Protocol-Version", v)
	}
	return t.base.RoundTrip(r)
}
