//go:build !js

package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// EndpointOptions configures the server side of the wire contract. The zero
// value is usable: same-origin only, loopback Host names only on a loopback
// listener, 64 MiB read limit, no authentication, no connection cap, no
// trusted proxy, and the default send queue, write deadline, first-request
// deadline, idle timeout and ping interval.
type EndpointOptions struct {
	// OriginPatterns lists extra origins allowed besides the same origin
	// (same scheme and host[:port]). A pattern with a scheme
	// ("http://localhost:5173", "http://127.0.0.1:*") matches that scheme
	// and host[:port]; one without ("*.example.com") matches the host[:port]
	// under any scheme. * is the wildcard; [CheckOriginPattern] says which
	// patterns are valid (an invalid one never matches and is logged). A
	// request without Origin (not a browser) is allowed; the "null" origin
	// never is.
	OriginPatterns []string
	// AllowedHosts lists Host header values (host names or host:port, with
	// * as the wildcard) accepted besides loopback names and addresses. On
	// a loopback listener any other Host gets 403: DNS rebinding would
	// otherwise pass the same-origin check. On another listener the check
	// applies once AllowedHosts is set (IP addresses are then accepted too:
	// a rebinding page always uses a name).
	AllowedHosts []string
	// TrustedProxies lists the remote addresses (reverse proxies) whose
	// X-Forwarded-Proto and X-Forwarded-Host (or, for a field they lack,
	// RFC 7239 Forwarded proto= and host=) are believed: the Origin and
	// Host checks then see the scheme and host the page used. From any other
	// address those headers are ignored.
	TrustedProxies []netip.Prefix
	// ReadLimit is the largest message accepted, in bytes. Defaults to
	// [DefaultReadLimit] (64 MiB).
	ReadLimit int64
	// Authenticate, when set, requires a "mcp.token.<token>" subprotocol
	// entry and maps the token to a principal; a missing or refused token
	// gets 401 before the upgrade.
	Authenticate func(token string) (principal string, ok bool)
	// MaxConns caps concurrent connections (0 = no cap); past it, 503 with
	// Retry-After.
	MaxConns int
	// Logger receives refusals and undecodable messages. Defaults to slog.Default().
	Logger *slog.Logger

	// MaxQueue bounds the bytes queued for sending to one peer: frames are
	// written by the connection's own writer goroutine, so that a writer
	// (a notification fan-out, say) waits for a slow peer only when its
	// queue is full, and never longer than WriteTimeout. The frames waiting
	// behind the one being written hold at most MaxQueue bytes, or a single
	// frame of any size; a write that finds no room for WriteTimeout
	// disconnects the peer ([ErrSlowPeer]). Defaults to [DefaultMaxQueue].
	MaxQueue int64
	// WriteTimeout bounds the write of each frame; a peer that does not
	// take a frame within it is disconnected ([ErrSlowPeer]). Defaults to
	// [DefaultWriteTimeout].
	WriteTimeout time.Duration
	// FirstRequestTimeout closes a connection (1008) whose peer has not sent
	// a valid JSON-RPC request within it of the handler's first read (the
	// upgrade, unless the handler starts something first, as a stdio
	// gateway starts its child) ([ErrIdle]); there is no initialize in the
	// 2026-07-28 revision to wait for. Defaults to
	// [DefaultFirstRequestTimeout]; negative disables it.
	FirstRequestTimeout time.Duration
	// IdleTimeout closes a connection (1001) with no traffic either way
	// for that long ([ErrIdle]). When it has been quiet for half of it, the
	// server sends a WebSocket ping, and the pong counts as traffic: a live
	// peer holding a quiet subscription stays. Defaults to
	// [DefaultIdleTimeout]; negative disables it.
	IdleTimeout time.Duration
	// PingInterval is the longest the server stays silent on a connection:
	// when it has sent nothing for that long it sends a WebSocket ping (the
	// 2026-07-28 revision has no MCP ping), so that a reverse proxy's idle
	// timeout (nginx's proxy_read_timeout, 60 s by default) never closes a
	// quiet connection. Independent of IdleTimeout. Defaults to
	// [DefaultPingInterval]; negative disables it.
	PingInterval time.Duration
	// RelayTimeout bounds one exchange of the relay door ([RelayDoor]) once
	// its ask has arrived: reaching the source, its answer and sending the
	// frame. Past it the ask is not served (a close with no message).
	// Defaults to [DefaultRelayTimeout].
	RelayTimeout time.Duration
}

// Defaults of [EndpointOptions].
const (
	DefaultMaxQueue            = 8 << 20
	DefaultWriteTimeout        = 30 * time.Second
	DefaultFirstRequestTimeout = 10 * time.Second
	DefaultIdleTimeout         = 2 * time.Minute
	DefaultPingInterval        = 25 * time.Second
	DefaultRelayTimeout        = 30 * time.Second
)

// Endpoint returns an http.Handler that upgrades requests satisfying the
// contract (subprotocol "mcp", allowed Origin and Host, valid token) and calls
// serve with the connection. serve runs on the request's goroutine; the
// connection is closed when it returns. An undecodable text frame is answered
// with a -32700 parse error and the connection goes on.
func Endpoint(opts *EndpointOptions, serve func(ctx context.Context, c *Conn)) http.Handler {
	o := EndpointOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = DefaultMaxQueue
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.FirstRequestTimeout == 0 {
		o.FirstRequestTimeout = DefaultFirstRequestTimeout
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.PingInterval == 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.RelayTimeout <= 0 {
		o.RelayTimeout = DefaultRelayTimeout
	}
	e := &endpoint{o: o, serve: serve}
	for _, p := range o.OriginPatterns {
		op, err := parseOriginPattern(p)
		if err != nil {
			o.Logger.Warn("bridge: origin pattern ignored", "err", err)
			continue
		}
		e.origins = append(e.origins, op)
	}
	return e
}

type endpoint struct {
	o       EndpointOptions
	origins []originPattern
	serve   func(context.Context, *Conn)
	conns   atomic.Int64
}

func (e *endpoint) refuse(w http.ResponseWriter, r *http.Request, v *verdict) {
	e.o.Logger.Warn("bridge: refused connection", "status", v.Code, "reason", v.Reason, "fix", v.Fix,
		"origin", truncateBytes(r.Header.Get("Origin"), maxDiagEcho), "host", truncateBytes(r.Host, maxDiagEcho), "remote", r.RemoteAddr)
	if v.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(v.retryAfter))
	}
	body := v.Reason
	if v.Fix != "" {
		body += ": " + v.Fix
	}
	http.Error(w, body, v.Code)
}

// admit runs the checks every door of the endpoint shares, in order: a
// diagnosis GET is answered, then Host, Origin, and a plain request is told
// to upgrade (notUpgrade says what the door speaks). It reports false when
// the request has been answered.
func (e *endpoint) admit(w http.ResponseWriter, r *http.Request, upgrade bool, notUpgrade string) bool {
	if !upgrade && (r.Method == http.MethodGet || r.Method == http.MethodHead) && acceptsJSON(r) {
		e.diagnose(w, r)
		return false
	}
	rv := viewRequest(r, e.o.TrustedProxies)
	if v := e.checkHost(r, &rv); v != nil {
		e.refuse(w, r, v)
		return false
	}
	if v := e.checkOrigin(r, &rv); v != nil {
		e.refuse(w, r, v)
		return false
	}
	if !upgrade {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, notUpgrade, http.StatusUpgradeRequired)
		return false
	}
	return true
}

// claim checks the offered token and takes a connection slot (release it
// with e.conns.Add(-1)); ok is false when the request has been refused.
func (e *endpoint) claim(w http.ResponseWriter, r *http.Request, offered []string) (principal string, ok bool) {
	principal, v := e.checkToken(offeredToken(offered))
	if v != nil {
		e.refuse(w, r, v)
		return "", false
	}
	if n := e.conns.Add(1); e.o.MaxConns > 0 && n > int64(e.o.MaxConns) {
		e.conns.Add(-1)
		e.refuse(w, r, e.capVerdict())
		return "", false
	}
	return principal, true
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	if !upgrade && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		e.preflight(w, r)
		return
	}
	if !e.admit(w, r, upgrade, "this endpoint speaks MCP over WebSocket (subprotocol \"mcp\"); GET it with Accept: application/json for a diagnosis") {
		return
	}
	offered := offeredSubprotocols(r)
	if !contains(offered, Subprotocol) {
		e.refuse(w, r, &verdict{Code: http.StatusBadRequest, Reason: `subprotocol "mcp" is required`,
			Fix: `offer the WebSocket subprotocol "mcp"`})
		return
	}
	principal, ok := e.claim(w, r, offered)
	if !ok {
		return
	}
	defer e.conns.Add(-1)

	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{Subprotocol},
		// Origin was checked above with the same-origin rule plus patterns.
		InsecureSkipVerify: true,
	})
	if err != nil {
		e.o.Logger.Warn("bridge: websocket accept failed", "err", err)
		return
	}
	c := newConn(coderSocket{ws}, e.o.ReadLimit)
	c.principal = principal
	c.boundErrors = true
	c.out = newOutbound(e.o.MaxQueue, e.o.WriteTimeout)
	var undecodable atomic.Int64
	c.onUndecodable = func(data []byte, err error) {
		// Logged a few times per connection, then counted: a client
		// cannot flood the log.
		if undecodable.Add(1) <= maxUndecodableLogs {
			e.o.Logger.Warn("bridge: undecodable message", "err", truncateBytes(err.Error(), 200), "bytes", len(data))
		}
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`,
			CodeParseError, truncateBytes("parse error: "+err.Error(), maxEcho))
		c.WriteRaw(context.Background(), []byte(msg))
	}
	go c.out.run(c)
	go watch(c, e.o.FirstRequestTimeout, e.o.IdleTimeout, e.o.PingInterval)
	defer func() {
		if n := undecodable.Load(); n > maxUndecodableLogs {
			e.o.Logger.Warn("bridge: undecodable messages not logged", "count", n-maxUndecodableLogs)
		}
		if err := c.Err(); errors.Is(err, ErrSlowPeer) || errors.Is(err, ErrIdle) {
			e.o.Logger.Info("bridge: connection dropped", "remote", r.RemoteAddr, "why", err)
		}
	}()
	defer c.Close()
	e.serve(r.Context(), c)
}

// offeredToken returns the token of the first "mcp.token.<token>" entry.
func offeredToken(offered []string) (token string, found bool) {
	for _, p := range offered {
		if t, ok := strings.CutPrefix(p, TokenPrefix); ok {
			return t, true
		}
	}
	return "", false
}

func offeredSubprotocols(r *http.Request) []string {
	var out []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// HostIsLoopback reports whether a Host header value names this machine:
// localhost, *.localhost, or a loopback address, with or without a port.
func HostIsLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
