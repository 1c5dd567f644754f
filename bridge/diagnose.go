//go:build !js

package bridge

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"path"
	"strconv"
	"strings"
)

// A verdict is the front door's answer to a request: a refusal (401, 403,
// 503; 400 for a missing subprotocol) or 200. It is also the JSON body of
// the diagnosis ({"code", "reason", "fix"}).
type verdict struct {
	Code   int    `json:"code"`
	Reason string `json:"reason"`
	Fix    string `json:"fix,omitempty"`
	// retryAfter is the 503's Retry-After, in seconds.
	retryAfter int
}

// Bounds of the front door's answers.
const (
	// maxDiagEcho is the most bytes of a client's input (Origin, Host) that
	// a reason, fix or log line repeats.
	maxDiagEcho = 200
	// capRetryAfter is the Retry-After, in seconds, of a 503 for a full
	// connection cap.
	capRetryAfter = 5
)

// checkHost is the DNS-rebinding guard: on a loopback listener, or on any
// listener once AllowedHosts is set, the Host the page used must be a
// loopback name or address or match AllowedHosts (any IP address too on a
// listener that is not loopback).
func (e *endpoint) checkHost(r *http.Request, rv *requestView) *verdict {
	loopback, known := false, false
	if la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr); la != nil {
		host, _, err := net.SplitHostPort(la.String())
		if err != nil {
			host = la.String()
		}
		ip := net.ParseIP(host)
		known, loopback = true, ip != nil && ip.IsLoopback()
	}
	if !loopback && (len(e.o.AllowedHosts) == 0 || !known) {
		return nil
	}
	if HostIsLoopback(rv.host) || hostMatches(e.o.AllowedHosts, rv.host) {
		return nil
	}
	name := hostName(rv.host)
	if !loopback {
		if _, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
			return nil
		}
	}
	where := ""
	if loopback {
		where = " on a loopback listener"
	}
	return &verdict{Code: http.StatusForbidden,
		Reason: fmt.Sprintf("host %q is not allowed%s (DNS rebinding guard)", truncateBytes(rv.host, maxDiagEcho), where),
		Fix:    "start mcphost with -allowed-hosts " + truncateBytes(name, maxDiagEcho) + proxyHint(rv)}
}

// checkOrigin applies the same-origin rule (scheme and host[:port]) plus
// the origin patterns.
func (e *endpoint) checkOrigin(r *http.Request, rv *requestView) *verdict {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	if origin == "null" {
		return &verdict{Code: http.StatusForbidden, Reason: `origin "null" is never allowed`,
			Fix: `serve the page from an http:// or https:// origin (a sandboxed iframe, a file:// page or a data: URL has the origin "null")`}
	}
	scheme, host, ok := parseOrigin(origin)
	if !ok {
		return &verdict{Code: http.StatusForbidden,
			Reason: fmt.Sprintf("origin %q is not a valid origin", truncateBytes(origin, maxDiagEcho)),
			Fix:    "send an Origin of the form scheme://host[:port]"}
	}
	self := canonicalHost(rv.scheme, rv.host)
	if scheme == rv.scheme && host == self {
		return nil
	}
	for _, p := range e.origins {
		if p.match(scheme, host) {
			return nil
		}
	}
	canon := truncateBytes(scheme+"://"+host, maxDiagEcho)
	v := &verdict{Code: http.StatusForbidden,
		Reason: fmt.Sprintf("origin %q is not allowed", canon),
		Fix:    "start mcphost with -origin " + canon}
	if host == self && !rv.proxied {
		// Same host, other scheme: a page served over https through a
		// TLS-terminating proxy that is not trusted (or sets no
		// X-Forwarded-Proto) reaches us over http.
		v.Reason += fmt.Sprintf(" (the request reached mcphost over %s)", rv.scheme)
		v.Fix = fmt.Sprintf("behind a TLS-terminating reverse proxy, start mcphost with -trusted-proxy %s and have the proxy set X-Forwarded-Proto; otherwise start mcphost with -origin %s",
			remotePrefix(rv), canon)
		return v
	}
	v.Fix += proxyHint(rv)
	return v
}

// checkToken applies Authenticate to the token the page offered.
func (e *endpoint) checkToken(token string, found bool) (string, *verdict) {
	if e.o.Authenticate == nil {
		return "", nil
	}
	if !found {
		return "", &verdict{Code: http.StatusUnauthorized, Reason: "this server requires a token",
			Fix: `pass connect(url, { token }) with a token of the server's -token-file (offered as subprotocol "mcp.token.<token>")`}
	}
	p, ok := e.o.Authenticate(token)
	if !ok {
		return "", &verdict{Code: http.StatusUnauthorized, Reason: "the token was refused",
			Fix: "pass connect(url, { token }) with a token listed in the server's -token-file"}
	}
	return p, nil
}

// capVerdict is the 503 of a full connection cap.
func (e *endpoint) capVerdict() *verdict {
	return &verdict{Code: http.StatusServiceUnavailable, retryAfter: capRetryAfter,
		Reason: fmt.Sprintf("too many connections (max %d)", e.o.MaxConns),
		Fix:    fmt.Sprintf("retry after %d s (a connection frees a slot when it ends), or start mcphost with a higher -max-conns", capRetryAfter)}
}

// diagnose answers a plain GET with Accept: application/json: the verdict
// an upgrade from this page would get, checked in the upgrade's order (Host,
// Origin, token from "Authorization: Bearer <token>", connection cap),
// never MCP. Browsers hide a refused upgrade's status behind a 1006 close;
// this is how a page learns why, and what to change.
func (e *endpoint) diagnose(w http.ResponseWriter, r *http.Request) {
	rv := viewRequest(r, e.o.TrustedProxies)
	v := e.checkHost(r, &rv)
	if v == nil {
		v = e.checkOrigin(r, &rv)
	}
	if v == nil {
		auth := r.Header.Get("Authorization")
		token, found := "", false
		if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			token, found = strings.TrimSpace(auth[7:]), true
		}
		_, v = e.checkToken(token, found)
	}
	if v == nil && e.o.MaxConns > 0 && e.conns.Load() >= int64(e.o.MaxConns) {
		v = e.capVerdict()
	}
	if v == nil {
		v = &verdict{Code: http.StatusOK, Reason: "this page may connect"}
	}
	h := w.Header()
	e.cors(h, r)
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if v.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(v.retryAfter))
	}
	body, _ := json.Marshal(v)
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(v.Code)
	if r.Method != http.MethodHead {
		w.Write(append(body, '\n'))
	}
}

// preflight answers a CORS preflight of the diagnosis (a page that sends
// its token as Authorization needs one).
func (e *endpoint) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	e.cors(h, r)
	h.Set("Access-Control-Allow-Methods", "GET")
	h.Set("Access-Control-Allow-Headers", "authorization")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// cors lets the requesting origin, whichever it is, read the diagnosis: it
// tells a refused page why, and nothing an upgrade would not.
func (e *endpoint) cors(h http.Header, r *http.Request) {
	h.Add("Vary", "Origin")
	if o := r.Header.Get("Origin"); o != "" && len(o) <= 2048 {
		h.Set("Access-Control-Allow-Origin", o)
		h.Set("Access-Control-Expose-Headers", "Retry-After")
	}
}

func acceptsJSON(r *http.Request) bool {
	for _, a := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(a), "application/json") {
			return true
		}
	}
	return false
}

// hostMatches reports whether host[:port] or its host alone matches one of
// the patterns (* is the wildcard).
func hostMatches(patterns []string, hostport string) bool {
	hp := strings.ToLower(hostport)
	name := hostName(hp)
	for _, p := range patterns {
		p = strings.ToLower(p)
		if m, _ := path.Match(p, hp); m {
			return true
		}
		if m, _ := path.Match(p, name); m {
			return true
		}
	}
	return false
}

// hostName is host[:port] without its port.
func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return hostport
}

// remotePrefix is the request's remote address as a -trusted-proxy value.
func remotePrefix(rv *requestView) string {
	if !rv.remote.IsValid() {
		return "<proxy address>"
	}
	return netip.PrefixFrom(rv.remote, rv.remote.BitLen()).String()
}

// proxyHint is added to a fix when forwarding headers were ignored.
func proxyHint(rv *requestView) string {
	if !rv.ignored {
		return ""
	}
	return fmt.Sprintf(" (X-Forwarded-*/Forwarded headers from %s were ignored: if that is your reverse proxy, also pass -trusted-proxy %s)",
		rv.remote, remotePrefix(rv))
}
