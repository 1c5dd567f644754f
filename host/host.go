package host

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
)

// Defaults of [Options].
const (
	DefaultRefreshDeadline = 800 * time.Millisecond
	DefaultBackoffMin      = 100 * time.Millisecond
	DefaultBackoffMax      = 5 * time.Second
	// DefaultHealthyAfter is how long a connection must last before the
	// reconnect backoff starts again from BackoffMin.
	DefaultHealthyAfter = 10 * time.Second
	retryAttempts       = 3
)

// Options configures [Connect]. A nil *Options means defaults.
type Options struct {
	// Timeout and ToolTimeout bound calls without their own deadline
	// (defaults 5 s and 60 s), not connecting.
	Timeout, ToolTimeout time.Duration
	// ConnectTimeout bounds one connection window: dialling and the
	// handshake (initialize, or server/discover in 2026-07-28), retryable
	// failures retried inside it with the backoff below (default 30 s).
	// Connect fails when its window fails; reconnecting opens windows until
	// one connects. A refusal (kind refused) or a failure whose data says
	// retryable false is never retried. See connect.go for the policy.
	ConnectTimeout time.Duration
	// RefreshDeadline bounds Refresh and the confirming reads of tool
	// results (default 800 ms).
	RefreshDeadline time.Duration
	// Attach configures attachments (accepted image types, remote images,
	// size limits, the Markdown renderer). Attachments are made without
	// any lock of the host held, so Attach.Markdown may block (the wasm
	// module's waits for the page's render Worker); the host remembers the
	// last rendering of each part URI and does not render the same text
	// twice.
	Attach attach.Options
	// ClientInfo is sent in initialize.
	ClientInfo bridge.Implementation
	// Token is sent as the subprotocol entry "mcp.token.<token>".
	Token string
	// ReadLimit is the largest message accepted (default 64 MiB).
	ReadLimit int64
	// PageCap bounds listing (default 1,000 pages); MaxDescriptors the
	// entries it gathers (default 100,000), reported as truncated.
	PageCap, MaxDescriptors int
	// NoReconnect disables reconnection after a lost connection.
	NoReconnect bool
	// BackoffMin and BackoffMax bound the reconnection and retry delays
	// (defaults 100 ms and 5 s).
	BackoffMin, BackoffMax time.Duration
	// HealthyAfter is how long a connection must stay up before a later
	// reconnect starts from BackoffMin again (default 10 s), so a peer that
	// fails right after each handshake cannot cause a tight loop.
	HealthyAfter time.Duration
	// Protocol is the MCP revision to speak: "auto" (the default: probe with
	// server/discover, fall back to 2025-11-25), "2026-07-28" or
	// "2025-11-25". The revision found is reused when reconnecting.
	Protocol string
	// MaxModelTokens bounds the estimated tokens ([ModelTokens]) of one
	// part sent to the model (default [DefaultMaxModelTokens], 100,000; a
	// negative value means no bound). A part over it is attached with
	// Withheld [WithheldTooLarge]: not for the model, with a warning, until
	// [Host.Include].
	MaxModelTokens int64
	// Digest computes the stable part digests of snapshots and restores
	// (SHA-256, lowercase hex). Natively nil means crypto/sha256; the
	// wasm module passes the page's WebCrypto, so that crypto/sha256 is
	// not linked into it.
	Digest DigestFunc
	// Dedupe configures the ledger.
	Dedupe dedupe.Options
	// OnEvent receives events, one at a time, in order.
	OnEvent func(Event)
}

// States of an attachment.
const (
	StateFresh      = "fresh"
	StateStale      = "stale"
	StateGone       = "gone"
	StateSuperseded = "superseded"
)

// ForModel reports whether a part belongs in the next model request: fresh
// and stale parts do (stale with a warning); gone, superseded and error parts
// do not, and neither do withheld ones (MCP App views, parts over
// MaxModelTokens) until [Host.Include].
func ForModel(a *attach.Attachment) bool {
	return a.Kind != attach.KindError && a.Withheld == "" && (a.State == StateFresh || a.State == StateStale)
}

// A Host is one connection to one MCP server with its own context. All
// methods are safe for concurrent use.
//
// Every goroutine a Host starts (read workers, listings, the reconnect loop)
// is counted in wg and ends by Close, which waits for them.
type Host struct {
	url  string
	o    Options
	dial dialer

	ctx    context.Context // ends at Close; every call the host makes derives from it
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// spare hands work to a host goroutine waiting for it (goLocked);
	// spares counts those waiting.
	spare  chan func()
	spares atomic.Int32

	mu    sync.Mutex
	sess  session
	gen   uint64 // generation of sess: bumped by each (re)connect
	proto string // the revision to ask for: Options.Protocol, then the one found
	// owed counts, per URI, the watch additions sess has not answered yet:
	// only the answer to the latest addition may let a read start.
	owed    map[string]int
	since   time.Time // when sess connected
	backoff time.Duration
	atts    map[string]*entry
	order   []string // attach order (pending entries included)
	closed  bool
	// down, once set, is why the host will not connect again (reconnect
	// off, or the server refused the next connection for good): calls fail
	// with it, not as if a reconnect were coming.
	down error

	index  *attach.Index
	ledger *dedupe.Ledger
	events *eventQueue

	lst     listing
	prompts promptState

	// trace, when set (tests only), is told each time a race window the
	// engine must handle opens; called with h.mu held or not.
	trace func(window string)
	// traceApplied, when set (tests only), sees every applied copy (the
	// first part's text) and, with gone set, every gone event as it is
	// emitted. Called with h.mu held.
	traceApplied func(uri string, text *string, gone bool)
}

func (h *Host) tr(window string) {
	if h.trace != nil {
		h.trace(window)
	}
}

// Connect dials url, initializes, and starts listing resources and templates
// into the picker index in the background. Dialling and the handshake are
// retried within Options.ConnectTimeout (ctx may end it sooner); it fails
// with the last error.
func Connect(ctx context.Context, url string, opts *Options) (*Host, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	return connect(ctx, url, bridgeDialer(url, &o), &o)
}

func connect(ctx context.Context, url string, d dialer, opts *Options) (*Host, error) {
	o := *opts
	if o.RefreshDeadline <= 0 {
		o.RefreshDeadline = DefaultRefreshDeadline
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = DefaultBackoffMin
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.HealthyAfter <= 0 {
		o.HealthyAfter = DefaultHealthyAfter
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	o.Attach.Markdown = cachedMarkdown(o.Attach.Markdown)
	h := &Host{
		url: url, o: o, dial: d, atts: map[string]*entry{}, backoff: o.BackoffMin, owed: map[string]int{},
		index: attach.NewIndex(), ledger: dedupe.New(o.Dedupe), events: newEventQueue(o.OnEvent),
	}
	h.spare = make(chan func())
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.gen, h.proto = 1, o.Protocol
	s, err := h.dialWindow(ctx, 1)
	if err != nil {
		h.cancel()
		h.events.close()
		return nil, err
	}
	h.mu.Lock()
	h.sess, h.since, h.proto = s, time.Now(), s.InitializeResult().ProtocolVersion
	h.goLocked(func() { h.watch(s, 1) })
	h.mu.Unlock()
	h.startListing()
	return h, nil
}

// goLocked starts f as a goroutine of the host, unless the host is closed.
// h.mu must be held: Close sets closed under it before it waits, so no
// goroutine is added once Close waits.
//
// A goroutine that finished its f waits for the next one (at most
// maxSpare of them wait, until Close) instead of ending: under js/wasm a
// new goroutine's stack grows by copying, which walks every frame's stack
// map (runtime.copystack, slow in wasm), several times until it is as deep
// as a read's worker needs. That was ~0.3 ms of every re-read of an image
// (a CPU profile of 40 re-reads, Chromium 156), a worker starting per read.
func (h *Host) goLocked(f func()) bool {
	if h.closed {
		return false
	}
	select {
	case h.spare <- f:
		return true
	default:
	}
	h.wg.Add(1)
	go h.serve(f)
	return true
}

// maxSpare bounds the host's goroutines waiting for work.
const maxSpare = 4

// serve runs f, then whatever goLocked hands it while it waits, until Close.
func (h *Host) serve(f func()) {
	defer h.wg.Done()
	for {
		f()
		f = nil
		if h.spares.Add(1) > maxSpare {
			h.spares.Add(-1)
			return
		}
		select {
		case f = <-h.spare:
			h.spares.Add(-1)
		case <-h.ctx.Done():
			h.spares.Add(-1)
			return
		}
	}
}

func (h *Host) goRun(f func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.goLocked(f)
}

// session returns the live session or an unavailable error.
func (h *Host) session() (session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessionLocked()
}

func (h *Host) sessionLocked() (session, error) {
	if h.closed {
		return nil, &bridge.Error{Kind: bridge.KindUnavailable, Message: "host closed", Err: bridge.ErrClosed}
	}
	if h.sess == nil || h.sess.Err() != nil {
		if h.down != nil {
			return nil, h.down
		}
		return nil, errReconnecting
	}
	return h.sess, nil
}

// errReconnecting is what a call made between a lost connection and the
// next one gets: retryable, the host is reconnecting.
var errReconnecting = &bridge.Error{Kind: bridge.KindUnavailable, Message: "not connected (reconnecting)", Err: bridge.ErrConnectionLost}

// notReconnecting is the error calls get once the host has given up
// connecting, for why (the loss or the refusal). Kind unavailable, as every
// lost connection, but data.retryable is false: the same call on this host
// cannot succeed any more (MCPError.retryable is false); connect() again.
func notReconnecting(why string) error {
	return &bridge.Error{Kind: bridge.KindUnavailable, Message: "not connected, not reconnecting: " + why,
		Data: []byte(`{"retryable":false}`), Err: bridge.ErrConnectionLost}
}

// errClosed is what a call pending or made after Close gets.
func errClosed() error {
	return &bridge.Error{Kind: bridge.KindCancelled, Message: "host closed", Err: bridge.ErrClosed}
}

// afterClose turns the failure of a call cut short by Close into kind
// cancelled, as the JavaScript API promises.
func (h *Host) afterClose(err error) error {
	if err == nil {
		return nil
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return errClosed()
	}
	return err
}

// InitializeResult returns what the server said at the last initialize.
func (h *Host) InitializeResult() bridge.InitializeResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sess.InitializeResult()
}

// Server is the namespace of this host's documents in the ledger (its URL).
func (h *Host) Server() string { return h.url }

// Close ends the session and stops reconnecting. Pending attaches reject
// with kind cancelled; it returns once every goroutine the host started has
// ended. It is idempotent.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	s := h.sess
	for _, u := range h.order {
		h.atts[u].drop(errClosed())
	}
	h.mu.Unlock()
	h.cancel()
	if s != nil {
		s.Close()
	}
	h.wg.Wait()
	h.events.close()
	return nil
}

// emit queues an event. Called with h.mu held, so events are in the order of
// the state changes they report.
func (h *Host) emit(e Event) { h.events.push(e) }

func (h *Host) callTimeout() time.Duration {
	if h.o.Timeout > 0 {
		return h.o.Timeout
	}
	return bridge.DefaultTimeout
}

// Tools lists the server's tools (every page).
func (h *Host) Tools(ctx context.Context) ([]bridge.Tool, error) {
	s, err := h.session()
	if err != nil {
		return nil, err
	}
	l, err := s.ListTools(ctx)
	if l == nil {
		return nil, h.afterClose(err)
	}
	return l.Items, h.afterClose(err)
}

// Mention queries the picker index (synchronous; never touches the network).
func (h *Host) Mention(q string, opts attach.QueryOptions) []attach.Match {
	return h.index.Query(q, opts)
}

// Index returns the picker index.
func (h *Host) Index() *attach.Index { return h.index }

// Listed waits until the listing in progress (after Connect, the first
// one) has finished, or ctx is done (a KindTimeout error, as
// [Host.Resources] returns). It copies nothing: the page's module uses it to
// tell when its startup is over (wasm/gcpace_js.go).
func (h *Host) Listed(ctx context.Context) error { return h.waitList(ctx) }

// Complete asks the server for completion values of a template argument.
func (h *Host) Complete(ctx context.Context, uriTemplate, name, value string, args map[string]string) (*bridge.Completion, error) {
	s, err := h.session()
	if err != nil {
		return nil, err
	}
	c, err := s.Complete(ctx, uriTemplate, name, value, args)
	return c, h.afterClose(err)
}

// Figures returns this session's dedupe figures.
func (h *Host) Figures() dedupe.Figures { return h.ledger.Figures() }
