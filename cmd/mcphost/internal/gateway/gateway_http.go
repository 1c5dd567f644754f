//go:build !js

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
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
	Transport http.RoundTripper // nil means one of its own: [NewTransport](0, MaxInFlight)
	Retry     time.Duration     // first reconnect delay of the standalone stream
	Log       *slog.Logger
	// MaxInFlight bounds the requests of one connection in flight upstream
	// at once (-max-upstream-requests), each from when it is sent until its
	// answer comes back or the browser cancels it (its POST is then
	// closed): a request past it is not sent but answered at once with -32603, data
	// {"retryable":true,"limit":N}. The gateway never stops reading the
	// browser, so its cancellations, its answers to the server's requests
	// and its departure always get through. Notifications and answers are
	// sent one at a time, in order. 0 means [DefaultMaxInFlight].
	MaxInFlight int

	transportOnce sync.Once
	transport     http.RoundTripper
}

// DefaultMaxInFlight is [HTTP].MaxInFlight's default: far more than an
// MCP client keeps in flight (a browser's HTTP/1.1 fetches take 6 at once).
const DefaultMaxInFlight = 32

// ResponseHeaderTimeout is how long [NewTransport]'s transport waits for
// an upstream's response headers: a request without them by then fails
// (answered as the upstream's failure), so a server that never answers
// cannot hold a request slot forever. It ends at the headers: an SSE
// answer, a listen or the standalone GET stream then lasts as long as the
// server sends it.
const ResponseHeaderTimeout = 5 * time.Minute

// NewTransport returns a transport for an HTTP gateway of its own, for at
// most maxConns connections with maxInFlight requests each (0: the
// default): http.DefaultTransport's settings (proxy from the environment,
// dial and TLS handshake timeouts, HTTP/2 over TLS) with at most maxConns ×
// (maxInFlight + 2) connections to one host (with HTTP/1.1 each request in
// flight and each SSE stream takes one: a connection's requests, its
// standalone stream and one notification; maxConns 0: no cap), idle
// connections kept for one connection's requests, and
// [ResponseHeaderTimeout].
func NewTransport(maxConns, maxInFlight int) *http.Transport {
	t, ok := http.DefaultTransport.(*http.Transport)
	if ok {
		t = t.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true,
			TLSHandshakeTimeout: 10 * time.Second, IdleConnTimeout: 90 * time.Second}
	}
	if maxInFlight <= 0 {
		maxInFlight = DefaultMaxInFlight
	}
	perConn := maxInFlight + 2
	if maxConns > 0 && maxConns <= math.MaxInt32/perConn {
		t.MaxConnsPerHost = maxConns * perConn
	}
	t.MaxIdleConnsPerHost = perConn
	t.ResponseHeaderTimeout = ResponseHeaderTimeout
	return t
}

func (g *HTTP) maxInFlight() int {
	if g.MaxInFlight > 0 {
		return g.MaxInFlight
	}
	return DefaultMaxInFlight
}

func (g *HTTP) roundTripper() http.RoundTripper {
	if g.Transport != nil {
		return g.Transport
	}
	g.transportOnce.Do(func() { g.transport = NewTransport(0, g.MaxInFlight) })
	return g.transport
}

// Serve runs one connection until either side ends. Requests of the
// 2026-07-28 revision (per-request _meta, server/discover) are independent
// POSTs with the revision's headers, each under its own context, no session
// and no GET stream. Legacy requests get a session of their own upstream
// (go-sdk sends DELETE at the end), relayed concurrently, with
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
	p := &pump{log: g.Log, browser: c, up: u, concurrent: true, terminal: func(error) bool { return true },
		route: u.route, explain: u.explain, endReason: u.endReason, maxInFlight: g.maxInFlight()}
	u.ended = p.release
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

	modern  *http.Client // 2026-07-28 POSTs: the gateway's own, without go-sdk's session
	tools   toolSchemas
	endWhy  atomic.Pointer[string]
	ended   func(jsonrpc.ID)           // a routed request ended (its slot, if still held, is free)
	closed  bool                       // under mu: Close has begun
	calls   map[jsonrpc.ID]*modernCall // under mu: 2026-07-28 requests in flight
	legacy  map[jsonrpc.ID]*legacyCall // under mu: 2025-11-25 requests awaiting their answer
	answers map[jsonrpc.ID]*httpAnswer // under mu: legacy requests refused by HTTP status
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func (g *HTTP) connect(ctx context.Context) (*httpUpstream, error) {
	u := &httpUpstream{g: g, incoming: make(chan readResult), extra: make(chan jsonrpc.Message), failed: make(chan error, 1)}
	u.ctx, u.cancel = context.WithCancel(context.WithoutCancel(ctx))
	base := g.roundTripper()
	u.client = &http.Client{Transport: &stampTransport{base: base, headers: g.Header, version: u.protocolVersion, u: u}}
	u.modern = &http.Client{Transport: base}
	u.calls, u.answers = map[jsonrpc.ID]*modernCall{}, map[jsonrpc.ID]*httpAnswer{}
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
// outlive any one call), a request under a context of its own that its
// answer or the browser's cancellation ends (see route). After
// notifications/initialized has been accepted, it opens the standalone
// stream.
func (u *httpUpstream) Write(_ context.Context, msg jsonrpc.Message) error {
	req, isReq := msg.(*jsonrpc.Request)
	ctx := u.ctx
	var call *legacyCall
	if isReq && req.IsCall() {
		u.mu.Lock()
		if req.Method == "initialize" {
			u.initID = req.ID
		}
		call = u.legacy[req.ID]
		u.mu.Unlock()
		if call == nil || call.req != req {
			// route registers every request in read order: this one was
			// cancelled, or its id reused, before it could be sent.
			return errWithdrawn
		}
		ctx = call.ctx
	}
	if err := u.inner.Write(ctx, msg); err != nil {
		if call != nil {
			u.mu.Lock()
			mine := u.legacy[req.ID] == call
			if mine {
				delete(u.legacy, req.ID)
			}
			u.mu.Unlock()
			call.cancel()
			if !mine && u.ctx.Err() == nil {
				return errWithdrawn // cancelled, or its id reused, while it was sent
			}
		}
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
		if resp, ok := m.(*jsonrpc.Response); ok {
			u.endLegacy(resp.ID)
		}
		return m, nil
	case r := <-u.incoming:
		if r.err != nil {
			return nil, r.err
		}
		u.observe(r.msg)
		if resp, ok := r.msg.(*jsonrpc.Response); ok {
			u.endLegacy(resp.ID)
		}
		return r.msg, nil
	}
}

// A legacyCall is a 2025-11-25 request awaiting its answer: its POST and
// the SSE stream that carries the answer live under ctx.
type legacyCall struct {
	req    *jsonrpc.Request // this request, not another that reused its id
	ctx    context.Context
	cancel context.CancelFunc
}

// errWithdrawn is Write's error for a request whose slot and answer are
// settled already: the browser cancelled it, or sent another request with
// its id, before or while it was sent.
var errWithdrawn = errors.New("mcphost gateway: the request was withdrawn by the browser")

// startLegacy registers the 2025-11-25 request req (route, in the
// browser's read order, before it is written).
func (u *httpUpstream) startLegacy(req *jsonrpc.Request) {
	ctx, cancel := context.WithCancel(u.ctx)
	u.mu.Lock()
	if u.legacy == nil {
		u.legacy = map[jsonrpc.ID]*legacyCall{}
	}
	prev := u.legacy[req.ID]
	u.legacy[req.ID] = &legacyCall{req, ctx, cancel}
	u.mu.Unlock()
	if prev != nil {
		// The browser reused an id in flight: the newer request wins, and
		// the older one's slot is free (it will get no answer).
		prev.cancel()
		u.ended(req.ID)
	}
}

// endLegacy ends the context of the 2025-11-25 request id, if one is in
// flight, reporting whether one was: its answer came (its stream has ended
// already), its POST failed, or it was cancelled (its POST and stream are
// closed).
func (u *httpUpstream) endLegacy(id jsonrpc.ID) bool {
	u.mu.Lock()
	call := u.legacy[id]
	delete(u.legacy, id)
	u.mu.Unlock()
	if call != nil {
		call.cancel()
	}
	return call != nil
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

// Close ends the session: it cancels every request in flight and the
// standalone stream first (an upstream that holds a POST must not hold the
// session), then go-sdk sends DELETE (under its own context, at most 5 s).
func (u *httpUpstream) Close() error {
	u.mu.Lock()
	u.closed = true
	u.mu.Unlock()
	u.cancel()
	err := u.inner.Close()
	u.wg.Wait()
	return err
}

// endReason says why the connection ended when the upstream session is
// gone, else "".
func (u *httpUpstream) endReason() string {
	if w := u.endWhy.Load(); w != nil {
		return *w
	}
	return ""
}

// explain answers a legacy request that go-sdk's transport failed: with the
// upstream's HTTP answer when there was one (its JSON-RPC error, or its
// status and text), else nil (the default: could not be reached).
func (u *httpUpstream) explain(req *jsonrpc.Request, _ error) *jsonrpc.Error {
	u.mu.Lock()
	a := u.answers[req.ID]
	delete(u.answers, req.ID)
	u.mu.Unlock()
	if a == nil {
		return nil
	}
	if a.sessionGone {
		// go-sdk ends the connection too; say so in any case, so that the
		// browser reconnects and initializes again.
		select {
		case u.failed <- errors.New(u.endReason()):
		default:
		}
	}
	return a.rpcError(req.Method)
}

// refused records the HTTP answer of a legacy request go-sdk will report
// as a failed write.
func (u *httpUpstream) refused(id jsonrpc.ID, method string, a *httpAnswer, sid string) {
	if a.sessionGone {
		why := fmt.Sprintf("the upstream session %s is gone (HTTP 404: %s); reconnect to initialize again", sid, a.reason)
		u.endWhy.CompareAndSwap(nil, &why)
		u.g.Log.Warn("gateway: " + why)
	} else {
		u.g.Log.Warn("gateway: the upstream refused a request", "method", method, "status", a.status, "reason", a.reason)
	}
	if !id.IsValid() {
		return
	}
	u.mu.Lock()
	u.answers[id] = a
	u.mu.Unlock()
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
		why := err.Error() + "; reconnect to initialize again"
		u.endWhy.CompareAndSwap(nil, &why)
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

// notMCP checks a 2xx answer to a legacy POST: it must be 202 (a
// notification or response accepted), an SSE stream, or one JSON value. An
// answer that is none of these (an HTML page from a web server, a body that
// is not JSON) is read and returned as an httpAnswer naming its status and
// what is wrong, so that the browser is told what the upstream answered
// (go-sdk would report a decoding failure, or end the connection); nil when
// the answer is fine (its body then passes on unread, or re-wrapped).
func (t *stampTransport) notMCP(resp *http.Response) *httpAnswer {
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "text/event-stream":
		return nil
	case "application/json":
		limit := t.u.g.ReadLimit
		if limit <= 0 {
			limit = 64 << 20
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(data))
		if err != nil || int64(len(data)) > limit {
			return nil // go-sdk reports the read failure or the limit itself
		}
		if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
			return nil
		}
		return &httpAnswer{status: resp.StatusCode,
			reason: "the body is not a JSON-RPC message: " + oneLine(truncateRunes(string(data), 100))}
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	why := fmt.Sprintf("Content-Type %q is neither application/json nor text/event-stream", truncateRunes(ct, 100))
	if ct == "" {
		why = "no Content-Type (want application/json or text/event-stream)"
	}
	if isText(ct, body) && len(bytes.TrimSpace(body)) > 0 {
		why += ": " + oneLine(truncateRunes(string(body), 100))
	}
	return &httpAnswer{status: resp.StatusCode, reason: why + " (is the -upstream URL a Streamable HTTP MCP endpoint?)"}
}

// stampTransport carries go-sdk's legacy requests. It adds the
// -upstream-header headers to every request and, once negotiated,
// MCP-Protocol-Version (go-sdk's raw connection sends it only when its own
// ClientSession told it the version). A POST the upstream refuses (HTTP
// 4xx/5xx) is recorded with its status and text for the answer to the
// browser, and its body replaced, where go-sdk would otherwise fail the
// whole connection over one refusal, by a JSON-RPC error (a request) or a
// 202 (a notification, logged). A 404 to a request carrying a session id
// passes as is: the session is gone, and go-sdk ends the connection.
type stampTransport struct {
	base    http.RoundTripper
	headers http.Header
	version func() string
	u       *httpUpstream
}

func (t *stampTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	for k, v := range t.headers {
		r.Header[k] = v
	}
	if v := t.version(); v != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
		r.Header.Set("Mcp-Protocol-Version", v)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost || resp.StatusCode < 200 {
		return resp, err
	}
	var a *httpAnswer
	sid := r.Header.Get("Mcp-Session-Id")
	if resp.StatusCode < 400 {
		if a = t.notMCP(resp); a == nil {
			return resp, nil
		}
	} else {
		a = readAnswer(resp, sid != "")
	}
	var id jsonrpc.ID
	method := "a request"
	if r.GetBody != nil {
		if b, err := r.GetBody(); err == nil {
			data, _ := io.ReadAll(io.LimitReader(b, 64<<20))
			b.Close()
			if m, err := jsonrpc.DecodeMessage(data); err == nil {
				if rq, ok := m.(*jsonrpc.Request); ok {
					id, method = rq.ID, rq.Method
				}
			}
		}
	}
	t.u.refused(id, method, a, sid)
	body := a.body
	switch {
	case a.sessionGone:
	case !id.IsValid():
		resp.StatusCode, resp.Status, body = http.StatusAccepted, "202 Accepted", nil
	case a.wire == nil:
		body, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: a.rpcError(method)})
		resp.Header = resp.Header.Clone()
		resp.Header.Set("Content-Type", "application/json")
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}
