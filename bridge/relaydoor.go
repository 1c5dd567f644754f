//go:build !js

package bridge

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxRelayAsk is the largest ask the relay door reads: the params of one
// resources/read (a URI and its _meta) need far less. A larger one closes
// the socket with 1009 and is not served.
const maxRelayAsk = 64 << 10

// relayClient is the clientInfo the relay door's in-process client sends to
// the source.
var relayClient = Implementation{Name: "mcphost-relay", Version: "0.1.0"}

// Reasons of the relay door's closes; the codes are all 1000 except an ask
// over maxRelayAsk (1009). They name what was wrong with the ask, never
// what the source said.
const (
	relayReasonNoAsk     = "relay: no ask in time"
	relayReasonBinary    = "relay: the ask must be a text message"
	relayReasonEmpty     = "relay: empty ask"
	relayReasonMalformed = "relay: malformed ask"
	relayReasonNotServed = "relay: not served"
)

// RelayDoor returns the relay door of h, which must be a handler returned
// by [Endpoint] (RelayDoor panics otherwise): a WebSocket on which
// a provider relay asks for one resource and gets the relay frame back.
// Mount it at /mcp/read-resource/{channel}.
//
// The door applies h's checks, in the same order and with the same
// answers (Host, Origin, the "mcp.token.<token>" subprotocol entry,
// the connection cap, which it shares with h; a plain GET with
// Accept: application/json is the same diagnosis), but requires no
// subprotocol ("mcp" is selected when offered). Then:
//
//  1. one text message comes in, the ask: the JSON of resources/read
//     params ([DecodeRelayAsk]), at most 64 KiB, within
//     [EndpointOptions].FirstRequestTimeout (RelayTimeout when that is
//     disabled);
//  2. the door runs h's serve function over an in-process
//     connection carrying the requester's principal, as if the requester
//     had connected to /mcp, and is its MCP client: initialize (2025-11-25),
//     then one resources/read with the ask as its params (a source that
//     refuses that initialize with -32022 or -32601 is asked again on a new
//     connection in 2026-07-28: server/discover, then the read with the
//     revision's _meta set beside the ask's own);
//  3. exactly one binary message goes out, the frame ([EncodeRelayAnswer]):
//     tag 0 and the result as the source sent it, or tag 1 and the
//     source's JSON-RPC error, code, message and data unchanged (so a read
//     the principal may not make gets whatever /mcp answers it, which for the
//     documents server is the not-found answer, byte for byte); then a
//     normal close (1000).
//
// An ask that cannot be served gets a close with no message before it: a
// binary or empty ask, one that is not a params object with a "uri" string,
// no ask in time, a source that cannot be reached, fails the handshake, does
// not answer within [EndpointOptions].RelayTimeout or answers something
// that is not a result object or an error. The channel path segment is only
// logged.
func RelayDoor(h http.Handler) http.Handler {
	e, ok := h.(*endpoint)
	if !ok {
		panic("bridge: RelayDoor needs a handler returned by Endpoint")
	}
	return &relayDoor{e: e}
}

type relayDoor struct{ e *endpoint }

func (d *relayDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := d.e
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	if !e.admit(w, r, upgrade, "this is the relay door: one resources/read ask (a text message) over WebSocket, answered by one binary relay frame") {
		return
	}
	principal, ok := e.claim(w, r, offeredSubprotocols(r))
	if !ok {
		return
	}
	defer e.conns.Add(-1)
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:       []string{Subprotocol},
		InsecureSkipVerify: true, // Origin was checked above
	})
	if err != nil {
		e.o.Logger.Warn("bridge: relay door: websocket accept failed", "err", err)
		return
	}
	defer ws.CloseNow()
	log := e.o.Logger.With("channel", truncateBytes(r.PathValue("channel"), 64), "remote", r.RemoteAddr)
	notServed := func(reason string, err error) {
		log.Info("bridge: relay ask not served", "reason", reason, "err", err)
		ws.Close(websocket.StatusNormalClosure, reason)
	}

	ask, reason, err := readRelayAsk(ws, e.o.FirstRequestTimeout, e.o.RelayTimeout)
	if reason != "" || err != nil {
		if reason != "" {
			notServed(reason, err)
		} else {
			log.Info("bridge: relay ask not served", "err", err)
		}
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), e.o.RelayTimeout)
	defer cancel()
	answer, release, err := e.relayRead(ctx, principal, ask)
	// The source is let go while the requester is answered; the
	// connection counts against the cap until serve has returned.
	released := make(chan struct{})
	go func() { release(); close(released) }()
	defer func() { <-released }()
	var frame []byte
	if err == nil {
		frame, err = EncodeRelayAnswer(answer)
	}
	if err != nil {
		notServed(relayReasonNotServed, err)
		return
	}
	wctx, wcancel := context.WithTimeout(context.Background(), e.o.WriteTimeout)
	defer wcancel()
	if err := ws.Write(wctx, websocket.MessageBinary, frame); err != nil {
		log.Info("bridge: relay answer not delivered", "err", err)
		return
	}
	ws.Close(websocket.StatusNormalClosure, "")
}

// readRelayAsk reads and decodes the ask, waiting at most first (or, when
// first is negative, fallback). reason is set when the ask is refused with
// a close; err alone when the socket failed (it is already closed).
func readRelayAsk(ws *websocket.Conn, first, fallback time.Duration) (ask RelayAsk, reason string, err error) {
	if first <= 0 {
		first = fallback
	}
	ws.SetReadLimit(maxRelayAsk)
	// A Read whose context ends closes the socket with a policy violation;
	// a timer closes it cleanly instead.
	late := time.AfterFunc(first, func() { ws.Close(websocket.StatusNormalClosure, relayReasonNoAsk) })
	typ, data, err := ws.Read(context.Background())
	if !late.Stop() {
		return ask, "", errors.New(relayReasonNoAsk)
	}
	switch {
	case err != nil:
		return ask, "", err
	case typ != websocket.MessageText:
		return ask, relayReasonBinary, nil
	}
	ask, err = DecodeRelayAsk(data)
	switch {
	case errors.Is(err, ErrRelayEmpty):
		return ask, relayReasonEmpty, err
	case err != nil:
		return ask, relayReasonMalformed, err
	}
	return ask, "", nil
}

// relayRead serves one ask from the endpoint's own serve function, for
// principal, over an in-process connection, and returns the source's answer.
// A JSON-RPC error from the source is an answer; anything else that goes
// wrong is an error. release ends the connection and waits for serve to
// return; it must be called once, whatever the outcome.
//
// The door speaks 2025-11-25 to the source, so that a source speaking both
// revisions answers it as it answers a 2025-11-25 client on /mcp; a source
// that refuses that revision's initialize with -32022, or has no such
// method (-32601: 2026-07-28 dropped it), as a 2026-07-28-only upstream
// behind the gateway does, is asked again on a new connection, in
// 2026-07-28.
func (e *endpoint) relayRead(ctx context.Context, principal string, ask RelayAsk) (answer RelayAnswer, release func(), err error) {
	s, release := e.relaySource(principal, ProtocolLegacy)
	err = s.handshake(ctx)
	if c := ErrorCode(err); c == CodeUnsupportedProtocolVersn || c == CodeMethodNotFound {
		release()
		s, release = e.relaySource(principal, ProtocolModern)
		err = s.handshake(ctx)
	}
	if err != nil {
		return answer, release, err
	}
	params, err := relayParams(s, ask)
	if err != nil {
		return answer, release, err
	}
	var raw stdjson.RawMessage
	err = s.callRaw(ctx, "resources/read", ask.URI, params, &raw, s.modern)
	var we *jsonrpc.Error
	switch {
	case err == nil:
		if raw == nil {
			return answer, release, errors.New("bridge: relay: the source's response has no result")
		}
		return RelayAnswer{Result: raw}, release, nil
	case errors.As(err, &we):
		return RelayAnswer{Error: we}, release, nil
	}
	return answer, release, err
}

// relaySource starts h's serve function for principal on an in-process
// connection and returns the door's client session on it, speaking
// protocol; release ends both and waits for serve to return.
func (e *endpoint) relaySource(principal, protocol string) (*Session, func()) {
	cs, ss := newPipe()
	sc := newConn(ss, e.o.ReadLimit)
	sc.principal = principal
	sc.boundErrors = true // what /mcp would answer
	sctx, scancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		defer sc.Close()
		e.serve(sctx, sc)
	}()
	s := newSession(newConn(cs, max(e.o.ReadLimit, DefaultReadLimit)), Options{
		ClientInfo: relayClient, Capabilities: stdjson.RawMessage(`{}`), Protocol: protocol,
		Timeout: e.o.RelayTimeout, ToolTimeout: e.o.RelayTimeout,
	})
	return s, func() {
		s.Close()
		scancel()
		<-served
	}
}

// relayParams encodes the ask as the read's params: as it came in
// 2025-11-25; in 2026-07-28 with the revision's request metadata set in its
// _meta, beside the ask's own keys (the session's values win).
func relayParams(s *Session, ask RelayAsk) ([]byte, error) {
	if !s.modern {
		return stdjson.Marshal(ask)
	}
	meta := map[string]stdjson.RawMessage{}
	if len(ask.Meta) > 0 {
		if err := stdjson.Unmarshal(ask.Meta, &meta); err != nil {
			return nil, err
		}
	}
	var rev map[string]stdjson.RawMessage
	if err := stdjson.Unmarshal(s.metaObject(), &rev); err != nil {
		return nil, err
	}
	for k, v := range rev {
		meta[k] = v
	}
	m, err := stdjson.Marshal(meta)
	if err != nil {
		return nil, err
	}
	ask.Meta = m
	return stdjson.Marshal(ask)
}
