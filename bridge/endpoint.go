//go:build !js

package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// EndpointOptions configures the server side of the wire contract. The zero
// value is usable: same-origin only, loopback Host names only on a loopback
// listener, 64 MiB read limit, no authentication, no connection cap, and the
// default send queue, write deadline, first-request deadline and idle
// timeout.
type EndpointOptions struct {
	// OriginPatterns lists extra origins allowed besides the same origin.
	// Each is matched (path.Match, case-insensitive) against the full origin
	// "scheme://host[:port]" and against its host[:port] alone, so
	// "http://localhost:5173" and "*.example.com" both work. A request
	// without Origin (not a browser) is allowed; the "null" origin never is.
	OriginPatterns []string
	// AllowedHosts lists Host header values (path.Match patterns) accepted on
	// a loopback listener besides loopback names and addresses. Any other
	// Host gets 403: DNS rebinding would otherwise pass the same-origin check.
	AllowedHosts []string
	// ReadLimit is the largest message accepted, in bytes. Defaults to
	// [DefaultReadLimit] (64 MiB).
	ReadLimit int64
	// Authenticate, when set, requires a "mcp.token.<token>" subprotocol
	// entry and maps the token to a principal; a missing or refused token
	// gets 401 before the upgrade.
	Authenticate func(token string) (principal string, ok bool)
	// MaxConns caps concurrent connections (0 = no cap); past it, 503.
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
	// a valid JSON-RPC request within it of the upgrade ([ErrIdle]); there
	// is no initialize in the 2026-07-28 revision to wait for. Defaults to
	// [DefaultFirstRequestTimeout]; negative disables it.
	FirstRequestTimeout time.Duration
	// IdleTimeout closes a connection (1001) with no traffic either way
	// for that long ([ErrIdle]). When it has been quiet for half of it, the
	// server sends a WebSocket ping (the 2026-07-28 revision has no MCP
	// ping), and the pong counts as traffic: a live peer holding a quiet
	// subscription stays. Defaults to [DefaultIdleTimeout]; negative
	// disables it.
	IdleTimeout time.Duration
}

// Defaults of [EndpointOptions].
const (
	DefaultMaxQueue            = 8 << 20
	DefaultWriteTimeout        = 30 * time.Second
	DefaultFirstRequestTimeout = 10 * time.Second
	DefaultIdleTimeout         = 2 * time.Minute
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
	return &endpoint{o: o, serve: serve}
}

type endpoint struct {
	o     EndpointOptions
	serve func(context.Context, *Conn)
	conns atomic.Int64
}

func (e *endpoint) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	e.o.Logger.Warn("bridge: refused connection", "status", status, "reason", why,
		"origin", r.Header.Get("Origin"), "host", r.Host, "remote", r.RemoteAddr)
	http.Error(w, why, status)
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !isLoopbackHostAllowed(r, e.o.AllowedHosts) {
		e.refuse(w, r, http.StatusForbidden, fmt.Sprintf("host %q is not allowed on a loopback listener", r.Host))
		return
	}
	if ok, why := originAllowed(r, e.o.OriginPatterns); !ok {
		e.refuse(w, r, http.StatusForbidden, why)
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "this endpoint speaks MCP over WebSocket (subprotocol \"mcp\")", http.StatusUpgradeRequired)
		return
	}
	offered := offeredSubprotocols(r)
	if !contains(offered, Subprotocol) {
		e.refuse(w, r, http.StatusBadRequest, `subprotocol "mcp" is required`)
		return
	}
	principal := ""
	if e.o.Authenticate != nil {
		token, found := "", false
		for _, p := range offered {
			if t, ok := strings.CutPrefix(p, TokenPrefix); ok {
				token, found = t, true
				break
			}
		}
		if !found {
			e.refuse(w, r, http.StatusUnauthorized, `a token is required: offer subprotocol "mcp.token.<token>" alongside "mcp"`)
			return
		}
		p, ok := e.o.Authenticate(token)
		if !ok {
			e.refuse(w, r, http.StatusUnauthorized, "the token was not accepted")
			return
		}
		principal = p
	}
	if n := e.conns.Add(1); e.o.MaxConns > 0 && n > int64(e.o.MaxConns) {
		e.conns.Add(-1)
		e.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("too many connections (max %d)", e.o.MaxConns))
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
	go watch(c, e.o.FirstRequestTimeout, e.o.IdleTimeout)
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

// originAllowed applies the same-origin rule plus patterns.
func originAllowed(r *http.Request, patterns []string) (bool, string) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true, ""
	}
	if origin == "null" {
		return false, `origin "null" is not allowed`
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false, fmt.Sprintf("origin %q is not a valid origin", origin)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true, ""
	}
	full := strings.ToLower(u.Scheme + "://" + u.Host)
	for _, p := range patterns {
		p = strings.ToLower(p)
		if m, _ := path.Match(p, full); m {
			return true, ""
		}
		if m, _ := path.Match(p, strings.ToLower(u.Host)); m {
			return true, ""
		}
	}
	return false, fmt.Sprintf("origin %q is not allowed (same origin or -origin patterns only)", origin)
}

// isLoopbackHostAllowed implements the DNS-rebinding guard: on a loopback
// listener the Host must be a loopback name or address, or allowed.
func isLoopbackHostAllowed(r *http.Request, allowed []string) bool {
	la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if la == nil {
		return true
	}
	host, _, err := net.SplitHostPort(la.String())
	if err != nil {
		host = la.String()
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return true
	}
	return HostIsLoopback(r.Host) || matchAny(allowed, r.Host)
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

func matchAny(patterns []string, s string) bool {
	s = strings.ToLower(s)
	for _, p := range patterns {
		if m, _ := path.Match(strings.ToLower(p), s); m {
			return true
		}
	}
	return false
}
