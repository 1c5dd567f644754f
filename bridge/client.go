package bridge

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcphost/mcphost/internal/pace"
	"github.com/mcphost/mcphost/internal/xsync"
)

// ProtocolVersion is the MCP revision the client asks for.
const ProtocolVersion = "2025-11-25"

// SupportedVersions are the revisions the client accepts from a server; any
// other answer to initialize ends the session. 2026-07-28 is not among them:
// it has no initialize and no resources/subscribe.
var SupportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Default limits of a [Session].
const (
	DefaultTimeout     = 5 * time.Second
	DefaultToolTimeout = 60 * time.Second
	DefaultPageCap     = 1000
	// DefaultMaxDescriptors bounds the entries one listing gathers.
	DefaultMaxDescriptors = 100_000
	// DefaultMaxListBytes bounds the bytes of the pages one listing reads.
	DefaultMaxListBytes = 64 << 20
)

// Options configures [Dial]. A nil *Options means defaults.
type Options struct {
	// ClientInfo is sent in initialize. Defaults to {Name: "mcphost", Version: "0.1.0"}.
	ClientInfo Implementation
	// Capabilities is the client's capabilities object. Defaults to {}: a
	// resources client declares nothing it cannot serve.
	Capabilities stdjson.RawMessage
	// ReadLimit is the largest message accepted. Defaults to 64 MiB.
	ReadLimit int64
	// Timeout bounds each resources/*, completion and list call that has no
	// deadline of its own. Defaults to 5 s.
	Timeout time.Duration
	// ToolTimeout bounds tools/call. Defaults to 60 s.
	ToolTimeout time.Duration
	// PageCap is the most pages one listing follows. Defaults to 1,000.
	PageCap int
	// MaxDescriptors is the most entries one listing gathers (default
	// 100,000) and MaxListBytes the most bytes of pages it reads (default
	// 64 MiB): a listing past either stops with what it has, Truncated, and
	// a KindLimit error naming the bound, so a huge catalogue cannot exhaust
	// the page's memory.
	MaxDescriptors int
	MaxListBytes   int64
	// Token is sent as the subprotocol entry "mcp.token.<token>".
	Token string
	// Protocol is the revision to speak: [ProtocolAuto] (the default:
	// server/discover, falling back to initialize at 2025-11-25 on any
	// error), [ProtocolModern] (2026-07-28 only: connecting to a legacy-only
	// server fails with kind unsupported) or [ProtocolLegacy] (initialize
	// only, as before 2026-07-28).
	Protocol string
	// OnResourceUpdated receives notifications/resources/updated. Unlike the
	// other handlers it runs on the read loop, in order with responses, so a
	// host can tell that a read whose response arrives after an update may
	// hold a stale snapshot. It must return quickly and must not call the
	// Session synchronously.
	OnResourceUpdated func(uri string)
	// Watcher receives the outcome of [Session.Watch] and the resource
	// notifications (updated, list_changed), besides the handlers above.
	Watcher Watcher
	// OnListChanged receives notifications/{resources,tools,prompts}/list_changed
	// with "resources", "tools" or "prompts".
	OnListChanged func(list string)
	// OnNotification receives every other notification (progress, logging...).
	OnNotification func(method string, params stdjson.RawMessage)
	// OnProtocolError is told about messages the client could not use: an
	// undecodable frame, a response with an unknown or duplicate id. The
	// session goes on.
	OnProtocolError func(err error)
}

// A Session is an initialized MCP client session over a WebSocket. All
// methods are safe for concurrent use. Handlers in [Options] run one at a
// time, in arrival order, on a goroutine of their own, so they may call the
// Session.
type Session struct {
	conn *Conn
	o    Options
	init InitializeResult

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan *envelope
	err     *Error        // why the session ended
	done    chan struct{} // closed when the session ends

	notes *xsync.Queue
	subs  subs

	answers        chan []byte // answers to server requests, written by writeAnswers
	answersDropped atomic.Int64

	modern   bool // 2026-07-28: _meta on every request, listens, no ping
	metaOnce sync.Once
	metaJSON []byte
	listens  listens

	pre present // frames the page sent before the session ran (presend.go)
}

// Dial opens a WebSocket to url with subprotocol "mcp", performs initialize
// (protocol [ProtocolVersion]) and sends notifications/initialized. ctx bounds
// dialling and the handshake; without a deadline, each is bounded by
// Options.Timeout. An upgrade the server refuses with HTTP 401 or 403 fails
// with kind [KindRefused] (Code the status, Data {reason, fix}); with 503,
// kind unavailable and [Error].RetryAfter set from its Retry-After.
func Dial(ctx context.Context, url string, opts *Options) (*Session, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = Implementation{Name: "mcphost", Version: "0.1.0"}
	}
	if len(o.Capabilities) == 0 {
		o.Capabilities = stdjson.RawMessage(`{}`)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ToolTimeout <= 0 {
		o.ToolTimeout = DefaultToolTimeout
	}
	if o.PageCap <= 0 {
		o.PageCap = DefaultPageCap
	}
	if o.MaxDescriptors <= 0 {
		o.MaxDescriptors = DefaultMaxDescriptors
	}
	if o.MaxListBytes <= 0 {
		o.MaxListBytes = DefaultMaxListBytes
	}
	protos := []string{Subprotocol}
	if o.Token != "" {
		if err := validToken(o.Token); err != nil {
			return nil, err
		}
		protos = append(protos, TokenPrefix+o.Token)
	}
	dctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	ws, err := dialSocket(dctx, url, protos)
	if err != nil {
		if r, ok := err.(*refusal); ok {
			return nil, refusalError(url, r)
		}
		if errors.Is(err, errInvalidURL) {
			return nil, newError(KindInvalid, err, "", "", "dial %s: %v", url, err)
		}
		if dctx.Err() != nil {
			e := fromContext(dctx, "", "")
			e.Message = fmt.Sprintf("dial %s: %s", url, e.Message)
			return nil, e
		}
		return nil, newError(KindUnavailable, fmt.Errorf("%w: %v", ErrConnectionLost, err), "", "", "dial %s: %v", url, err)
	}
	return startSession(ctx, url, ws, o)
}

// startSession runs the handshake on a dialled socket.
func startSession(ctx context.Context, url string, ws socket, o Options) (*Session, error) {
	if p := ws.subprotocol(); p != Subprotocol {
		ws.close(statusPolicyViolation, "subprotocol mcp required")
		return nil, newError(KindProtocol, ErrProtocol, "", "", "dial %s: server did not select subprotocol %q (got %q)", url, Subprotocol, p)
	}
	var src transcripted
	if t, ok := ws.(transcripted); ok && t.early() {
		src = t
	}
	s := newSessionPresent(newConn(ws, o.ReadLimit), o, src)
	if err := s.handshake(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func validToken(t string) error {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '~' || c == '-') {
			return newError(KindInvalid, nil, "", "", "token has character %q at offset %d; allowed: [A-Za-z0-9._~-]", c, i)
		}
	}
	return nil
}

// A transcripted socket was opened, and is written to, by the page's glue
// besides the session: transcript returns the frames it sent since the
// last call (see presend.go), and more = false once the glue has said it
// sends no more: the session then stops asking (each ask is a crossing into
// JavaScript, which every later request paid for nothing).
type transcripted interface {
	early() bool // the glue wrote to it
	transcript() (frames [][]byte, more bool)
}

func newSession(c *Conn, o Options) *Session { return newSessionPresent(c, o, nil) }

// newSessionPresent starts a session on a socket the page's glue also
// writes to (src; nil: none).
func newSessionPresent(c *Conn, o Options, src transcripted) *Session {
	s := &Session{conn: c, o: o, pending: map[int64]chan *envelope{}, done: make(chan struct{}), notes: xsync.NewQueue(),
		answers: make(chan []byte, 256)}
	if src != nil {
		s.setPresent(src)
	}
	go s.readLoop()
	go s.notes.Run()
	go s.writeAnswers()
	return s
}

// InitializeResult returns what the server said in initialize: protocol
// version, capabilities, serverInfo and instructions.
func (s *Session) InitializeResult() InitializeResult { return s.init }

func (s *Session) initialize(ctx context.Context, version string) error {
	params, err := s.initializeParams(version)
	if err != nil {
		return newError(KindInvalid, err, "initialize", "", "encode params: %v", err)
	}
	var raw stdjson.RawMessage
	if err := s.callRaw(ctx, "initialize", "", params, &raw, false); err != nil {
		return err
	}
	var res InitializeResult
	if len(raw) == 0 {
		return newError(KindProtocol, ErrProtocol, "initialize", "", "response has no result")
	}
	if !decodeInitializeFast(raw, &res) {
		res = InitializeResult{}
		if err := stdjson.Unmarshal(raw, &res); err != nil {
			return newError(KindProtocol, fmt.Errorf("%w: %v", ErrProtocol, err), "initialize", "", "malformed result: %v", err)
		}
	}
	if !contains(SupportedVersions, res.ProtocolVersion) {
		return newError(KindProtocol, ErrProtocol, "initialize", "",
			"server answered protocol version %q to our %q; this client supports %v", res.ProtocolVersion, version, SupportedVersions)
	}
	if err := decodeCapabilities(res.RawCapabilities, &res.Capabilities); err != nil {
		return newError(KindProtocol, ErrProtocol, "initialize", "", "capabilities: %v", err)
	}
	s.init = res
	return s.notify("notifications/initialized", nil)
}

// initializeParams encodes initialize's params as json.Marshal writes the
// map {protocolVersion, capabilities, clientInfo} (keys sorted), by hand
// for compact capabilities (jsonenc.go says why).
func (s *Session) initializeParams(version string) ([]byte, error) {
	caps := s.o.Capabilities
	if !bytes.Equal(caps, []byte(`{}`)) {
		// Anything but the default goes through encoding/json, which
		// validates and compacts it (and names what is wrong).
		return stdjson.Marshal(map[string]any{"protocolVersion": version, "capabilities": caps, "clientInfo": s.o.ClientInfo})
	}
	b := make([]byte, 0, 128+len(caps))
	b = append(b, `{"capabilities":`...)
	b = append(b, caps...)
	b = append(b, `,"clientInfo":`...)
	b = appendImplementation(b, s.o.ClientInfo)
	b = append(b, `,"protocolVersion":`...)
	b = appendJSONString(b, version)
	return append(b, '}'), nil
}

// Close ends the session; pending calls fail with [ErrClosed]. It is
// idempotent and safe to call concurrently.
func (s *Session) Close() error {
	// Record the reason first, so pending and later calls say "closed"
	// rather than "connection lost" when the read loop sees the close.
	s.end(newError(KindUnavailable, ErrClosed, "", "", "session closed"))
	s.conn.Close()
	s.subs.stop()
	s.listens.stop()
	return nil
}

// Done is closed when the session ends, by Close or by losing the connection.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err returns why the session ended, or nil while it is open.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return nil
	}
	return s.err
}

// end fails every pending call at once with err and marks the session done.
func (s *Session) end(err *Error) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = err
	pending := s.pending
	s.pending = map[int64]chan *envelope{}
	close(s.done)
	s.mu.Unlock()
	for _, ch := range pending {
		close(ch) // a closed channel means: the session ended
	}
	s.notes.Close()
}

func (s *Session) connErr() *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Session) readLoop() {
	for {
		data, err := s.conn.ReadRaw(context.Background())
		if err != nil {
			switch {
			case errors.Is(err, ErrClosed):
				s.end(newError(KindUnavailable, ErrClosed, "", "", "session closed"))
			case errors.Is(err, ErrTooBig):
				s.end(newError(KindLimit, err, "", "", "%v", err))
			default:
				s.end(newError(KindUnavailable, err, "", "", "connection lost: %v", err))
			}
			return
		}
		env, err := parseEnvelope(data)
		if err != nil {
			s.undecodable(data, err)
			continue
		}
		switch {
		case env.method == "":
			s.deliver(env)
		case env.id != nil:
			s.answer(env)
		case env.method == "notifications/resources/updated":
			s.updated(env)
		case env.method == "notifications/subscriptions/acknowledged":
			s.acknowledged(env.params)
		case env.method == "notifications/cancelled":
			s.serverCancelled(env.params)
		case s.o.OnNotification == nil && !strings.HasSuffix(env.method, "/list_changed"):
			// Nobody listens: a flood of notifications/message costs no queue.
		default:
			s.notes.Push(func() { s.dispatch(env) })
		}
	}
}

// undecodable handles a frame that is not a JSON-RPC message. When it still
// carries the id of a pending call (an error response with an odd shape, a
// result that is not JSON-RPC 2.0), that call fails with a protocol error
// rather than waiting for its timeout.
func (s *Session) undecodable(data []byte, derr error) {
	perr := fmt.Errorf("%w: undecodable message (%d bytes): %v", ErrProtocol, len(data), derr)
	// The probe is the depth-bounded scanner, never a second full parse:
	// a frame of 20,000 nested arrays must cost a bounded scan, not the
	// stack (it killed the runtime before, natively and in the page).
	if id, errRaw, ok := probeID(data); ok {
		if ch := s.take(id); ch != nil {
			env := &envelope{local: &Error{Kind: KindProtocol, Code: CodeParseError, Message: perr.Error(), Err: perr}}
			var we wireError
			if len(errRaw) > 0 && stdjson.Unmarshal(errRaw, &we) == nil {
				env = &envelope{err: &we}
			}
			ch <- env
			return
		}
		if s.keepEarly(id, &envelope{local: &Error{Kind: KindProtocol, Code: CodeParseError, Message: perr.Error(), Err: perr}}) {
			return
		}
	}
	s.protocolError(perr)
}

func (s *Session) protocolError(err error) {
	if s.o.OnProtocolError != nil {
		s.notes.Push(func() { s.o.OnProtocolError(err) })
	}
}

// probeID finds the top-level "id" (a number, or a string of digits) and
// "error" of a frame the envelope parser refused, scanning with the depth
// bound; what follows a value it cannot scan is not looked at.
func probeID(data []byte) (id int64, errRaw []byte, ok bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return 0, nil, false
	}
	var idRaw []byte
	scanObject(data, i, 1, func(key []byte, vs, ve int) error {
		switch {
		case keyIs(key, "id"):
			idRaw = data[vs:ve]
		case keyIs(key, "error"):
			if ve-vs < 1<<16 { // an error object, not a payload
				errRaw = data[vs:ve]
			}
		}
		return nil
	})
	if len(idRaw) == 0 {
		return 0, nil, false
	}
	if idRaw[0] == '"' {
		idRaw = bytes.Trim(idRaw, `"`)
	}
	n, err := strconv.ParseInt(string(idRaw), 10, 64)
	return n, errRaw, err == nil
}

func (s *Session) take(id int64) chan *envelope {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.pending[id]
	delete(s.pending, id)
	return ch
}

func (s *Session) deliver(r *envelope) {
	id, ok := idValue(r.id)
	var ch chan *envelope
	if ok {
		ch = s.take(id)
	}
	if ch == nil && ok && s.keepEarly(id, r) {
		return // an answer to a request of the page's transcript
	}
	if ch == nil {
		// Late responses to cancelled calls land here too; they are expected.
		s.protocolError(fmt.Errorf("%w: response with unknown or duplicate id %s", ErrProtocol, r.id))
		return
	}
	ch <- r
}

// answer replies to a server→client request: ping gets {}, everything else
// -32601, never silence.
func (s *Session) answer(r *envelope) {
	var msg string
	if r.method == "ping" && !s.modern { // 2026-07-28 has no ping
		msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, r.id)
	} else {
		m, _ := stdjson.Marshal("method not found: " + r.method + " (this client implements no server-to-client requests but ping)")
		msg = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, r.id, CodeMethodNotFound, m)
	}
	select {
	case s.answers <- []byte(msg):
	default:
		// A server flooding requests (100k pings) must not cost a goroutine
		// or a buffer each: past the bound, requests go unanswered,
		// reported once.
		if s.answersDropped.Add(1) == 1 {
			s.protocolError(fmt.Errorf("%w: the server sent more than %d requests awaiting an answer; later ones go unanswered", ErrProtocol, cap(s.answers)))
		}
	}
}

// writeAnswers sends the answers to server requests, one at a time. In the
// browser it gives the page its thread back between answers once Go has
// held the task for pace.Slice: the reader stops at its slice, but a
// backlog of answers it queued was sent in the same task after it (256
// sends behind 100,000 pings: tasks of 100–220 ms in Chromium here).
func (s *Session) writeAnswers() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.done
		cancel()
	}()
	for {
		select {
		case msg := <-s.answers:
			pace.Yield(ctx)
			s.conn.WriteRaw(ctx, msg)
		case <-s.done:
			return
		}
	}
}

// updated handles notifications/resources/updated on the read loop.
func (s *Session) updated(r *envelope) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := stdjson.Unmarshal(r.params, &p); err != nil || p.URI == "" {
		s.protocolError(fmt.Errorf("%w: notifications/resources/updated without a uri: %s", ErrProtocol, r.params))
		return
	}
	if s.modern && !s.fromListen(r.params) {
		return // from a listen this session cancelled
	}
	if s.o.OnResourceUpdated != nil {
		s.o.OnResourceUpdated(p.URI)
	}
	if s.o.Watcher != nil {
		s.o.Watcher.Updated(p.URI)
	}
}

func (s *Session) dispatch(r *envelope) {
	switch r.method {
	case "notifications/resources/list_changed":
		if s.o.OnListChanged != nil {
			s.o.OnListChanged("resources")
		}
		if s.o.Watcher != nil {
			s.o.Watcher.ListChanged()
		}
	case "notifications/tools/list_changed":
		if s.o.OnListChanged != nil {
			s.o.OnListChanged("tools")
		}
	case "notifications/prompts/list_changed":
		if s.o.OnListChanged != nil {
			s.o.OnListChanged("prompts")
		}
	default:
		if s.o.OnNotification != nil {
			s.o.OnNotification(r.method, stdjson.RawMessage(r.params))
		}
	}
}

func (s *Session) notify(method string, params any) error {
	var raw []byte
	if params != nil {
		var err error
		if raw, err = stdjson.Marshal(params); err != nil {
			return newError(KindInvalid, err, method, "", "encode params: %v", err)
		}
	}
	frame := encodeRequest(nil, method, raw)
	if s.adoptNotification(frame) {
		return nil // the page sent it already
	}
	if err := s.conn.WriteRaw(context.Background(), frame); err != nil {
		return newError(KindUnavailable, err, method, "", "send: %v", err)
	}
	return nil
}

// Call sends any request and decodes its result into result (which may be
// nil or a *json.RawMessage). It applies the default timeout when ctx has no
// deadline, but no capability gate: prefer the typed methods.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.call(ctx, method, "", params, result)
}

func (s *Session) timeoutFor(method string) time.Duration {
	if method == "tools/call" {
		return s.o.ToolTimeout
	}
	return s.o.Timeout
}

// call performs one request. uri names the resource for error messages.
func (s *Session) call(ctx context.Context, method, uri string, params, result any) error {
	var raw []byte
	if params != nil {
		var err error
		if raw, err = stdjson.Marshal(params); err != nil {
			return newError(KindInvalid, err, method, uri, "encode params: %v", err)
		}
	}
	_, err := s.callMeta(ctx, method, uri, raw, result)
	return err
}

// callMeta performs one request with encoded params, adding the per-request
// metadata in the 2026-07-28 revision and following input_required rounds,
// and returns the revision fields of the result.
func (s *Session) callMeta(ctx context.Context, method, uri string, params []byte, result any) (resultMeta, error) {
	if s.modern {
		params = s.withMeta(params)
	}
	var meta resultMeta
	err := s.callRaw(ctx, method, uri, params, result, s.modern, &meta)
	return meta, err
}

// callRaw performs a request whose params are already encoded (nil: none).
// With modern, results follow the 2026-07-28 rules (resultType, MRTR); meta,
// when not nil, receives the result's revision fields.
func (s *Session) callRaw(ctx context.Context, method, uri string, params []byte, result any, modern bool, meta ...*resultMeta) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeoutFor(method))
		defer cancel()
	}
	for round := 0; ; round++ {
		raw, err := s.roundTrip(ctx, method, uri, params)
		if err != nil {
			return err
		}
		if modern {
			m, err := scanResultMeta(raw)
			if err != nil {
				return newError(KindProtocol, fmt.Errorf("%w: %v", ErrProtocol, err), method, uri, "malformed result: %v", err)
			}
			again, err := checkResult(method, uri, m)
			if err != nil {
				return err
			}
			if again {
				if round+1 >= maxInputRounds {
					return newError(KindProtocol, errInputRounds, method, uri, "still input_required after %d rounds", maxInputRounds)
				}
				// A new id, the state echoed verbatim.
				params = withRequestState(params, m.requestState)
				continue
			}
			if len(meta) > 0 && meta[0] != nil {
				*meta[0] = m
			}
		}
		if result == nil {
			return nil
		}
		if r, ok := result.(*stdjson.RawMessage); ok {
			*r = raw
			return nil
		}
		if len(raw) == 0 {
			return newError(KindProtocol, ErrProtocol, method, uri, "response has no result")
		}
		if err := stdjson.Unmarshal(raw, result); err != nil {
			return newError(KindProtocol, fmt.Errorf("%w: %v", ErrProtocol, err), method, uri, "malformed result: %v", err)
		}
		return nil
	}
}

// A blobKeeper is a socket that can keep the large blobs of a
// resources/read answer out of Go (the browser's: internal/blob).
type blobKeeper interface{ expectBlobs(id int64) }

// start registers a pending request and sends it; the response arrives on
// the returned channel (closed when the session ends).
func (s *Session) start(method, uri string, params []byte) (int64, chan *envelope, error) {
	if id, ch, ok := s.adoptRequest(method, params); ok {
		return id, ch, nil // the page sent this very request already
	}
	id := s.nextID.Add(1)
	ch, err := s.send(id, method, uri, params)
	return id, ch, err
}

// send is start with an id taken earlier.
func (s *Session) send(id int64, method, uri string, params []byte) (chan *envelope, error) {
	frame := encodeRequest(strconv.AppendInt(nil, id, 10), method, params)
	ch := make(chan *envelope, 1)
	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		return nil, s.callErr(err, method, uri)
	}
	s.pending[id] = ch
	s.mu.Unlock()
	if method == "resources/read" {
		if e, ok := s.conn.ws.(blobKeeper); ok {
			e.expectBlobs(id)
		}
	}
	if err := s.conn.WriteRaw(context.Background(), frame); err != nil {
		s.take(id)
		if cerr := s.connErr(); cerr != nil {
			return nil, s.callErr(cerr, method, uri)
		}
		return nil, newError(KindUnavailable, err, method, uri, "send: %v", err)
	}
	return ch, nil
}

// roundTrip sends one request and waits for its result, cancelling it on
// the wire when ctx ends first.
func (s *Session) roundTrip(ctx context.Context, method, uri string, params []byte) ([]byte, error) {
	if err := s.connErr(); err != nil {
		return nil, s.callErr(err, method, uri)
	}
	id, ch, err := s.start(method, uri, params)
	if err != nil {
		return nil, err
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			err := s.callErr(s.connErr(), method, uri)
			if n := len(params); n >= bigRequest {
				// A server closes the connection on a message over its read
				// limit, with 1009 or (a browser still sending it) with
				// nothing the page sees: say what this call sent.
				err.Message += fmt.Sprintf(" (this request was %d bytes: a server closes the connection on a message over its read limit; the documents server's is 4 MiB)", n)
			}
			return nil, err
		}
		if resp.local != nil {
			return nil, s.callErr(resp.local, method, uri)
		}
		if resp.err != nil {
			return nil, s.fromWire(method, uri, resp.err)
		}
		return resp.result, nil
	case <-ctx.Done():
		if s.take(id) != nil && method != "initialize" {
			// Best effort, off the caller's path: the late response is ignored.
			go s.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": context.Cause(ctx).Error()})
		}
		return nil, fromContext(ctx, method, uri)
	}
}

// bigRequest is the size from which a call that loses its connection says
// how large it was (a likely cause).
const bigRequest = 1 << 20

// callErr rebinds the session's end reason to one call.
func (s *Session) callErr(err *Error, method, uri string) *Error {
	if err == nil {
		return newError(KindUnavailable, ErrConnectionLost, method, uri, "connection lost")
	}
	e := *err
	e.Method, e.URI = method, uri
	return &e
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// encodeRequest writes a request frame (a notification when id is nil). The
// client writes its frames itself, like it parses them (envelope.go): params
// are already JSON, so the frame is one append, not a second encoding.
func encodeRequest(id []byte, method string, params []byte) []byte {
	b := make([]byte, 0, 56+len(method)+len(id)+len(params))
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}
