//go:build !js

package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// A pump relays JSON-RPC messages between the browser's WebSocket and one
// upstream go-sdk connection, unchanged in meaning both ways: requests,
// notifications, responses and errors of any method (server/discover,
// server→client requests...) pass as decoded by go-sdk's jsonrpc codec.
// Closing either side closes the other.
type pump struct {
	log     *slog.Logger
	browser *bridge.Conn
	up      mcp.Connection
	// concurrent makes each browser→upstream write run on its own goroutine
	// (Streamable HTTP: a POST waiting for its answer must not hold up a
	// ping). initialize and notifications/initialized stay in order.
	concurrent bool
	// terminal reports whether an upstream Read error ends the session;
	// other errors (one undecodable message) are logged and skipped.
	terminal func(error) bool
	// endReason, when set, says why the upstream ended (exit status, last
	// stderr line); it goes into the errors answering pending requests. An
	// empty answer means the default.
	endReason func() string
	// route, when set, takes browser messages the upstream handles itself
	// (Streamable HTTP: requests of the 2026-07-28 revision, and their
	// cancellation). It runs in the browser's read order and must not block.
	route func(jsonrpc.Message) bool
	// explain, when set, turns the error of a failed upstream write into
	// the JSON-RPC error answering req (nil: the default).
	explain func(req *jsonrpc.Request, err error) *jsonrpc.Error

	// ended is set once the upstream has ended: requests that arrive
	// afterwards (a browser that sent initialize just after a child died
	// at start) are answered with why, during a short linger, instead of
	// meeting a closed socket.
	ended atomic.Bool

	// maxInFlight bounds the browser's requests in flight upstream at once
	// (concurrent only; 0: no bound); see [HTTP].MaxInFlight.
	maxInFlight int

	mu       sync.Mutex
	pending  map[jsonrpc.ID]string // browser requests without an answer yet → method
	inFlight int                   // requests holding a slot of maxInFlight
	held     map[jsonrpc.ID]int    // the requests holding them, by id

	writes sync.WaitGroup // upstream writes under way
}

// run relays until either side ends or ctx is done, then closes both sides
// and waits for every upstream write. The browser's end counts even while
// nothing reads it (an idle timeout, a slow peer, a write that failed): the
// session ends with the connection, however long the upstream holds a
// request or a child leaves its stdin unread, since closing the upstream
// cancels its requests (Streamable HTTP) or closes the child's stdin.
func (p *pump) run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); defer cancel(); p.down(ctx) }()
	go func() { defer wg.Done(); defer cancel(); p.upward(ctx, cancel) }()
	select {
	case <-ctx.Done():
	case <-p.browser.Done():
	}
	cancel()
	// Unblock both loops and every write: the browser Read, the upstream
	// Read, writes held by the upstream.
	p.browser.Close()
	p.up.Close()
	wg.Wait()
	p.writes.Wait()
}

// upward relays browser → upstream. The read loop never waits for the
// upstream: messages go in read order through a short queue (queueItems
// messages, queueBytes bytes besides the first) to the dispatcher, so
// that the browser's departure is seen while the upstream holds a message
// (a child that leaves its stdin unread, a held POST); only a full queue
// stops the reading. The dispatcher writes each request on its own
// goroutine (concurrent; at most maxInFlight in flight, counted from the
// read: a request past it is refused at once), everything else in order on
// the serial writer, the handshake (initialize, notifications/initialized)
// waited for, so that nothing overtakes it.
func (p *pump) upward(ctx context.Context, cancel context.CancelFunc) {
	q := newMsgQueue()
	p.writes.Add(1)
	go func() { defer p.writes.Done(); p.dispatch(ctx, cancel, q) }()
	for {
		msg, err := p.browser.Read(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, bridge.ErrClosed) {
				p.log.Info("gateway: browser side ended", "err", err)
			}
			return
		}
		req, _ := msg.(*jsonrpc.Request)
		if req != nil && req.IsCall() {
			p.mu.Lock()
			if p.pending == nil {
				p.pending = map[jsonrpc.ID]string{}
			}
			p.pending[req.ID] = req.Method
			p.mu.Unlock()
		} else if req != nil && req.Method == "notifications/cancelled" {
			// The browser expects no answer to a request it cancelled, and
			// its slot is free at once (here, in read order, so a request
			// read after the cancellation finds it): the request's POST is
			// closed as the cancellation is dispatched (route).
			if id, ok := cancelledID(req); ok {
				p.answered(id)
				p.release(id)
			}
		}
		if p.slotted(msg) {
			if !p.acquire() {
				if !p.refuse(ctx, req) {
					return
				}
				continue
			}
			p.hold(req.ID) // until its answer comes down, or it fails or ends unanswered
		}
		if !q.push(ctx, msg) {
			return
		}
	}
}

// slotted reports whether msg is a request that takes a slot of
// maxInFlight: one written concurrently.
func (p *pump) slotted(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.IsCall() && p.concurrent && !isHandshake(msg)
}

// dispatch hands the browser's messages upstream in read order (see
// upward).
func (p *pump) dispatch(ctx context.Context, cancel context.CancelFunc, q *msgQueue) {
	serial := make(chan serialWrite)
	p.writes.Add(1)
	go func() {
		defer p.writes.Done()
		for {
			select {
			case w := <-serial:
				ok := p.send(ctx, w.msg)
				if w.done != nil {
					w.done <- ok
				}
				if !ok {
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		msg, ok := q.pop(ctx)
		if !ok {
			return
		}
		if p.route != nil && p.route(msg) {
			continue // a routed request releases its slot when it ends
		}
		if p.slotted(msg) {
			p.writes.Add(1)
			go func() { defer p.writes.Done(); p.send(ctx, msg) }()
			continue
		}
		// Notifications and answers hold no slot and go in order, not
		// waited for: a cancellation or the answer to a server request
		// must not wait behind requests.
		w := serialWrite{msg: msg}
		if p.concurrent && isHandshake(msg) {
			w.done = make(chan bool, 1)
		}
		select {
		case serial <- w:
		case <-ctx.Done():
			return
		}
		if w.done != nil {
			select {
			case <-w.done:
			case <-ctx.Done():
				return
			}
		}
	}
}

// The bounds of upward's queue: a few messages, so that the browser's
// departure is seen behind a held one, without holding more than one large
// message (the first is always taken, whatever its size).
const (
	queueItems = 16
	queueBytes = 1 << 20
)

// A msgQueue is upward's FIFO from the read loop to the dispatcher.
type msgQueue struct {
	mu    sync.Mutex
	items []jsonrpc.Message
	bytes int
	ready chan struct{} // a message was pushed
	room  chan struct{} // a message was popped
}

func newMsgQueue() *msgQueue {
	return &msgQueue{ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// push appends msg, waiting while the queue is full; false when ctx ended.
func (q *msgQueue) push(ctx context.Context, msg jsonrpc.Message) bool {
	n := msgSize(msg)
	for {
		q.mu.Lock()
		if len(q.items) == 0 || len(q.items) < queueItems && q.bytes+n <= queueBytes {
			q.items = append(q.items, msg)
			q.bytes += n
			q.mu.Unlock()
			wake(q.ready)
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-ctx.Done():
			return false
		}
	}
}

// pop takes the oldest message, waiting for one; false when ctx ended.
func (q *msgQueue) pop(ctx context.Context) (jsonrpc.Message, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			msg := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			q.bytes -= msgSize(msg)
			q.mu.Unlock()
			wake(q.room)
			return msg, true
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-ctx.Done():
			return nil, false
		}
	}
}

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// msgSize is about how many bytes msg holds.
func msgSize(msg jsonrpc.Message) int {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return 64 + len(m.Method) + len(m.Params)
	case *jsonrpc.Response:
		n := 64 + len(m.Result)
		if we, ok := m.Error.(*jsonrpc.Error); ok {
			n += len(we.Message) + len(we.Data)
		}
		return n
	}
	return 64
}

// acquire takes a request slot, reporting false when maxInFlight are
// taken.
func (p *pump) acquire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.maxInFlight > 0 && p.inFlight >= p.maxInFlight {
		return false
	}
	p.inFlight++
	return true
}

// hold records that the answer to id (or its failure) releases a slot.
func (p *pump) hold(id jsonrpc.ID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = map[jsonrpc.ID]int{}
	}
	p.held[id]++
}

// release gives back the slot id holds, if it holds one: its answer came
// down, or it failed or ended without one.
func (p *pump) release(id jsonrpc.ID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch n := p.held[id]; n {
	case 0:
		return
	case 1:
		delete(p.held, id)
	default:
		p.held[id] = n - 1
	}
	p.inFlight--
}

// refuse answers a request that found every slot taken, at once and
// without sending it: a gateway that stopped reading instead would leave
// the browser's cancellations, its answers to the server's requests (which
// the calls in flight may be waiting for) and its departure unread. It
// reports false when the browser is gone.
func (p *pump) refuse(ctx context.Context, req *jsonrpc.Request) bool {
	p.answered(req.ID)
	p.log.Warn("gateway: refused a request: too many in flight upstream", "method", req.Method, "limit", p.maxInFlight)
	return p.browser.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
		Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("mcphost gateway: %d requests of this connection are already in flight upstream "+
			"(-max-upstream-requests); %s was not sent: retry once one has been answered", p.maxInFlight, req.Method),
		Data: failureData{Retryable: true, Limit: p.maxInFlight}.raw(),
	}}) == nil
}

// A serialWrite is a message for the serial writer; done, when set,
// receives send's result.
type serialWrite struct {
	msg  jsonrpc.Message
	done chan bool
}

func isHandshake(msg jsonrpc.Message) bool {
	r, ok := msg.(*jsonrpc.Request)
	return ok && (r.Method == "initialize" || r.Method == "notifications/initialized")
}

// send writes one message upstream. A request that cannot be delivered is
// answered with a JSON-RPC error, so the browser's call never hangs. It
// reports false when the upstream is gone.
func (p *pump) send(ctx context.Context, msg jsonrpc.Message) bool {
	err := p.up.Write(ctx, msg)
	if err == nil || errors.Is(err, errWithdrawn) {
		return true // withdrawn: its slot and its answer are settled already
	}
	req, ok := msg.(*jsonrpc.Request)
	if ok && req.IsCall() {
		p.release(req.ID) // no answer will come
	}
	if ctx.Err() != nil {
		return false
	}
	if !ok || !req.IsCall() {
		p.log.Warn("gateway: could not deliver a message upstream", "kind", describeMsg(msg), "err", err)
		return !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, mcp.ErrConnectionClosed)
	}
	if !p.answered(req.ID) {
		// Answered meanwhile (the upstream ended), or cancelled: its POST
		// was closed for it.
		p.log.Debug("gateway: a request nobody waits for ended unanswered", "method", req.Method, "id", req.ID.Raw(), "err", err)
		return true
	}
	p.log.Warn("gateway: upstream request failed", "method", req.Method, "id", req.ID.Raw(), "err", err)
	if why := p.why(); p.ended.Load() && why != "" {
		return p.browser.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("mcphost gateway: %s before answering %s", why, req.Method),
			Data:    retryableData,
		}}) == nil
	}
	var we *jsonrpc.Error
	if p.explain != nil {
		we = p.explain(req, err)
	}
	if we == nil {
		we = errorFor(err)
	}
	if werr := p.browser.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: we}); werr != nil {
		return false
	}
	return true
}

// why is the upstream's end reason, or "" for the default.
func (p *pump) why() string {
	if p.endReason == nil {
		return ""
	}
	return p.endReason()
}

// errorFor is the JSON-RPC error carried by err when the upstream sent one
// (an HTTP error body), else -32603 naming the failure: "could not be
// reached" only when no answer came at all (a network error).
func errorFor(err error) *jsonrpc.Error {
	if we := upstreamWireError(err); we != nil {
		return &jsonrpc.Error{Code: we.Code, Message: we.Message, Data: we.Data}
	}
	var ue *url.Error
	var ne net.Error
	if errors.As(err, &ue) || errors.As(err, &ne) {
		return unreachable(err)
	}
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("mcphost gateway: the upstream request failed: %v", err),
		Data:    retryableData,
	}
}

// down relays upstream → browser.
func (p *pump) down(ctx context.Context) {
	for {
		msg, err := p.up.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if p.terminal(err) {
				p.log.Info("gateway: upstream ended", "err", err)
				p.ended.Store(true)
				p.failPending(ctx)
				select {
				case <-time.After(upstreamLinger):
				case <-ctx.Done():
				}
				return
			}
			p.log.Warn("gateway: skipped an undecodable message from upstream", "err", err)
			continue
		}
		if resp, ok := msg.(*jsonrpc.Response); ok {
			p.release(resp.ID)
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && !p.answered(resp.ID) {
			// An answer to a request the browser cancelled (or that was
			// already answered for the upstream's end): it expects none.
			p.log.Debug("gateway: dropped an answer nobody waits for", "id", resp.ID.Raw())
			continue
		}
		if err := p.browser.Write(ctx, msg); err != nil {
			return
		}
	}
}

// answered forgets a browser request, reporting whether it was waiting.
func (p *pump) answered(id jsonrpc.ID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.pending[id]
	delete(p.pending, id)
	return ok
}

// upstreamLinger is how long the browser side stays open after the
// upstream ended, so requests already on their way get an answer.
const upstreamLinger = time.Second

// failPending answers every browser request still waiting when the
// upstream ends, so no call waits for its timeout.
func (p *pump) failPending(ctx context.Context) {
	p.mu.Lock()
	pending := p.pending
	p.pending = nil
	p.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	why := p.why()
	if why == "" {
		why = "the upstream server closed the connection"
	}
	for id, method := range pending {
		p.browser.Write(ctx, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("mcphost gateway: %s before answering %s", why, method),
			Data:    retryableData,
		}})
	}
}

// cancelledID is the request id a notifications/cancelled names.
func cancelledID(n *jsonrpc.Request) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(n.Params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil && id.IsValid()
}

func describeMsg(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			return "request " + m.Method
		}
		return "notification " + m.Method
	case *jsonrpc.Response:
		return fmt.Sprintf("response %v", m.ID.Raw())
	}
	return fmt.Sprintf("%T", msg)
}

// codeRejected is go-sdk's internal "rejected by transport" marker
// (jsonrpc2.ErrRejected), wrapped into transient HTTP failures. It is not
// the upstream's answer and never goes to the browser.
const codeRejected = -32005

// upstreamWireError finds a JSON-RPC error the upstream itself sent (an HTTP
// error response with a JSON-RPC body) in err's tree.
func upstreamWireError(err error) *jsonrpc.Error {
	if err == nil {
		return nil
	}
	if we, ok := err.(*jsonrpc.Error); ok && we.Code != codeRejected {
		return we
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return upstreamWireError(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if we := upstreamWireError(e); we != nil {
				return we
			}
		}
	}
	return nil
}
