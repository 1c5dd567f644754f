//go:build !js

package docserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// The documents server delivers the notifications of 2026-07-28
// subscriptions/listen requests itself, to work around go-sdk v1.8.0: its
// server keeps subscriptions by URI and session and list-changed interest by
// session, and a listen that ends (even one the client cancelled)
// unsubscribes its URIs and deletes the session's list-changed interest
// unconditionally, so the other listens of the connection silently stop
// receiving both; it fails a whole listen when one URI is refused; and it
// answers a cancelled listen with a result.
//
// Here, each open listen of a connection is a [listen] with its own filter:
// a receiving middleware filters the URIs the principal may read (a refused
// one is left out of the acknowledged filter, the others go on), go-sdk's
// handler still acknowledges the listen and waits for its end, a sending
// middleware learns the listen's id from that acknowledgement and drops
// go-sdk's own change notifications to listens, and the documents server
// sends every updated and list_changed to each open listen that asked for
// it, stamped with that listen's subscriptionId. So a URI stays watched
// while any listen for it is open, whatever ends. [cancelFilter] drops the
// answer to any request the client cancelled.

// A listen is one open subscriptions/listen of a connection.
type listen struct {
	uris                  map[string]bool
	resources, tools, prm bool // list_changed kinds asked for (and offered)

	mu    sync.Mutex // orders the acknowledgement before any notification
	acked bool
	id    any // the listen's request id, as go-sdk stamps it
}

type listenKey struct{}

// listens holds the open listens of one connection and sends their
// notifications.
type listens struct {
	log     *slog.Logger
	mu      sync.Mutex
	open    map[*listen]bool
	session *mcp.ServerSession
	send    mcp.MethodHandler // go-sdk's sending handler, below the middleware
}

func (ls *listens) add(l *listen, ss *mcp.ServerSession) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.open == nil {
		ls.open = map[*listen]bool{}
	}
	ls.open[l] = true
	ls.session = ss
}

func (ls *listens) remove(l *listen) {
	ls.mu.Lock()
	delete(ls.open, l)
	ls.mu.Unlock()
}

func (ls *listens) snapshot() ([]*listen, *mcp.ServerSession, mcp.MethodHandler) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	out := make([]*listen, 0, len(ls.open))
	for l := range ls.open {
		out = append(out, l)
	}
	return out, ls.session, ls.send
}

// updated sends notifications/resources/updated for uri to every open
// listen watching it.
func (ls *listens) updated(uri string) {
	ls.each(func(l *listen) bool { return l.uris[uri] }, "notifications/resources/updated", func() mcp.Params {
		return &mcp.ResourceUpdatedNotificationParams{URI: uri}
	})
}

// listChanged sends notifications/{kind}/list_changed to every open listen
// that asked for it.
func (ls *listens) listChanged(kind string) {
	want := func(l *listen) bool {
		switch kind {
		case "resources":
			return l.resources
		case "tools":
			return l.tools
		}
		return l.prm
	}
	ls.each(want, "notifications/"+kind+"/list_changed", func() mcp.Params {
		switch kind {
		case "resources":
			return &mcp.ResourceListChangedParams{}
		case "tools":
			return &mcp.ToolListChangedParams{}
		}
		return &mcp.PromptListChangedParams{}
	})
}

func (ls *listens) each(want func(*listen) bool, method string, params func() mcp.Params) {
	open, ss, send := ls.snapshot()
	if ss == nil || send == nil {
		return
	}
	for _, l := range open {
		if !want(l) {
			continue
		}
		l.mu.Lock()
		if l.acked {
			p := params()
			p.SetMeta(map[string]any{mcp.MetaKeySubscriptionID: l.id})
			send(context.Background(), method, &mcp.ServerRequest[mcp.Params]{Session: ss, Params: p})
		}
		l.mu.Unlock()
	}
}

// receiving is the receiving middleware of a connection's server: it
// decides the tools on the first request (see decideTools) and takes
// subscriptions/listen requests as described above. visible reports
// whether the principal may read a URI.
func (ls *listens) receiving(decide func(method string, req mcp.Request), visible func(string) bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			decide(method, req)
			lr, ok := req.(*mcp.SubscriptionsListenRequest)
			if method != "subscriptions/listen" || !ok || lr.Params == nil || lr.Params.Notifications == nil {
				return next(ctx, method, req)
			}
			n := *lr.Params.Notifications
			l := &listen{uris: map[string]bool{}, resources: n.ResourcesListChanged, tools: n.ToolsListChanged, prm: n.PromptsListChanged}
			var kept []string
			asked := len(n.ResourceSubscriptions)
			for _, uri := range n.ResourceSubscriptions {
				if visible(uri) && !l.uris[uri] {
					l.uris[uri] = true
					kept = append(kept, uri)
				}
			}
			n.ResourceSubscriptions = kept
			params := *lr.Params
			params.Notifications = &n
			ls.add(l, lr.Session)
			res, err := next(context.WithValue(ctx, listenKey{}, l), method,
				&mcp.SubscriptionsListenRequest{Session: lr.Session, Params: &params, Extra: lr.Extra})
			ls.remove(l)
			ls.log.Debug("docs: listen ended", "id", l.id, "uris", len(kept), "refused", asked-len(kept))
			return res, err
		}
	}
}

// sending is the sending middleware: it keeps go-sdk's sending handler for
// the documents server's own notifications, learns each listen's id from
// its acknowledgement, and drops go-sdk's change notifications to listens
// (those stamped with a subscriptionId), which the defect makes unreliable.
func (ls *listens) sending() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		ls.mu.Lock()
		ls.send = next
		ls.mu.Unlock()
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch {
			case method == "notifications/subscriptions/acknowledged":
				if l, ok := ctx.Value(listenKey{}).(*listen); ok {
					l.mu.Lock()
					defer l.mu.Unlock()
					if p := req.GetParams(); p != nil {
						l.id = p.GetMeta()[mcp.MetaKeySubscriptionID]
					}
					res, err := next(ctx, method, req)
					l.acked = err == nil
					return res, err
				}
			case method == "notifications/resources/updated" || strings.HasSuffix(method, "/list_changed"):
				if p := req.GetParams(); p != nil {
					if _, stamped := p.GetMeta()[mcp.MetaKeySubscriptionID]; stamped {
						return nil, nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// A cancelFilter is the connection as the go-sdk server sees it: it drops
// the answer to a request the client cancelled (notifications/cancelled),
// which the client expects none for (go-sdk v1.8.0 answers a cancelled
// listen with a result, and any handler that returns after cancellation
// with something).
//
// It also bounds the calls a client has in flight: it reads no further
// message while maxCallsPerConn calls (subscriptions/listen aside, which
// stay open) are unanswered, an answer counting from when the connection's
// send queue took it. go-sdk runs every request at once, so without this a
// client that sends hundreds of reads and stops reading would pin an
// encoded answer per read.
//
// And it bounds the listens a connection holds open: past
// maxListensPerConn, a subscriptions/listen is answered here with an error
// naming the bound and never reaches go-sdk.
type cancelFilter struct {
	*bridge.Conn
	mu        sync.Mutex
	inflight  map[jsonrpc.ID]bool // calls not yet answered → cancelled
	counted   map[jsonrpc.ID]bool // calls holding a slot
	listening map[jsonrpc.ID]bool // subscriptions/listen not yet answered
	slots     chan struct{}       // capacity maxCallsPerConn
}

// maxCallsPerConn is how many calls of one connection may be unanswered
// (subscriptions/listen aside) before it reads no further message. Each
// answer waiting for room in a stalled client's send queue pins about three
// copies of itself (go-sdk's result, its encoding, the frame), so this,
// with -max-queue, bounds what a client that stops reading can hold: with a
// 4.3 MB document, ~30 MB of live heap, however many reads it sent.
const maxCallsPerConn = 2

// maxListensPerConn is how many subscriptions/listen one connection may
// hold open. Each open listen costs ~16 KB (go-sdk's handler goroutine and
// its stack, the listen's state); without a bound, 150,000 listens on one
// connection took the process from 26 MB to 1.84 GB. The module's client
// (bridge.Session.Watch) opens one listen per watched URI, that is one per
// attachment of the conversation, plus one for list changes: 256 covers a
// conversation of 255 attachments and holds one connection's listens to
// ~4 MB, the order of -max-request and -max-queue.
const maxListensPerConn = 256

// codeTooManyListens answers a listen past maxListensPerConn: -32603, which
// clients take as "unavailable, may succeed later" (once a listen ends).
const codeTooManyListens = jsonrpc.CodeInternalError

func (f *cancelFilter) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, refused, err := f.read(ctx)
		if refused == nil {
			return msg, err
		}
		if err := f.Conn.Write(ctx, refused); err != nil {
			return nil, err
		}
	}
}

// read reads one message; a listen past maxListensPerConn is not returned
// but comes back as the answer to send it instead.
func (f *cancelFilter) read(ctx context.Context) (_ jsonrpc.Message, refused *jsonrpc.Response, _ error) {
	select {
	case f.slots <- struct{}{}:
	case <-f.Conn.Done():
		return nil, nil, f.Conn.Err()
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	msg, err := f.Conn.Read(ctx)
	req, ok := msg.(*jsonrpc.Request)
	if !ok || err != nil || !req.IsCall() || req.Method == "subscriptions/listen" {
		<-f.slots
	}
	if ok && err == nil {
		f.mu.Lock()
		defer f.mu.Unlock()
		if req.IsCall() && req.Method == "subscriptions/listen" && !f.listening[req.ID] && len(f.listening) >= maxListensPerConn {
			return nil, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: codeTooManyListens,
				Message: fmt.Sprintf("too many open subscriptions/listen on this connection (at most %d): end one before opening another", maxListensPerConn)}}, nil
		}
		if req.IsCall() {
			f.inflight[req.ID] = false
			if req.Method == "subscriptions/listen" {
				f.listening[req.ID] = true
			} else {
				f.counted[req.ID] = true
			}
		} else if req.Method == "notifications/cancelled" {
			if id, ok := cancelledID(req); ok {
				if _, known := f.inflight[id]; known {
					f.inflight[id] = true
				}
			}
		}
	}
	return msg, nil, err
}

func (f *cancelFilter) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return f.Conn.Write(ctx, msg)
	}
	f.mu.Lock()
	cancelled := f.inflight[resp.ID]
	delete(f.inflight, resp.ID)
	counted := f.counted[resp.ID]
	delete(f.counted, resp.ID)
	delete(f.listening, resp.ID)
	f.mu.Unlock()
	if counted {
		defer func() { <-f.slots }()
	}
	if cancelled {
		return nil
	}
	return f.Conn.Write(ctx, msg)
}

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

type filterTransport struct{ f *cancelFilter }

func (t filterTransport) Connect(context.Context) (mcp.Connection, error) { return t.f, nil }

// serve runs srv over c (as [bridge.Serve] does) through a cancelFilter.
func serve(ctx context.Context, c *bridge.Conn, srv *mcp.Server) error {
	f := &cancelFilter{Conn: c, inflight: map[jsonrpc.ID]bool{}, counted: map[jsonrpc.ID]bool{},
		listening: map[jsonrpc.ID]bool{}, slots: make(chan struct{}, maxCallsPerConn)}
	ss, err := srv.Connect(ctx, filterTransport{f}, nil)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { ss.Wait(); close(done) }()
	select {
	case <-done:
	case <-c.Done():
		ss.Close()
		<-done
	case <-ctx.Done():
		ss.Close()
		<-done
	}
	return nil
}
