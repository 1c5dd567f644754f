//go:build !js

package bridge

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// An originPattern is a parsed entry of [EndpointOptions].OriginPatterns.
type originPattern struct {
	scheme string // "" matches any scheme
	host   string // a path.Match pattern over the lower-case host[:port]
}

// originForms ends every pattern error: what is accepted instead.
const originForms = "accepted forms: scheme://host[:port] (http://localhost:5173, https://*.example.com, http://127.0.0.1:*) " +
	"or host[:port] alone, any scheme (*.example.com, localhost:5173); * is the wildcard; no path, trailing slash, query or fragment"

// CheckOriginPattern reports whether p is a valid entry of
// [EndpointOptions].OriginPatterns: "scheme://host[:port]" (matching that
// scheme only) or "host[:port]" (any scheme), with * as the wildcard
// (any run of characters), and nothing after the authority. The error names the pattern,
// what is wrong and the accepted forms.
func CheckOriginPattern(p string) error {
	_, err := parseOriginPattern(p)
	return err
}

func parseOriginPattern(p string) (originPattern, error) {
	shown := truncateBytes(p, maxDiagEcho)
	bad := func(format string, args ...any) (originPattern, error) {
		return originPattern{}, fmt.Errorf("origin pattern %q %s; %s", shown, fmt.Sprintf(format, args...), originForms)
	}
	if strings.TrimSpace(p) == "" {
		return bad("is empty")
	}
	if strings.ContainsAny(p, " \t\r\n") {
		return bad("contains white space")
	}
	lower := strings.ToLower(p)
	if lower == "null" {
		return bad(`is the "null" origin, which is never allowed (sandboxed frames, file:// pages)`)
	}
	var op originPattern
	rest := lower
	if i := strings.Index(lower, "://"); i >= 0 {
		op.scheme, rest = lower[:i], lower[i+3:]
		if !validScheme(op.scheme) {
			return bad("has an invalid scheme %q", op.scheme)
		}
	} else if strings.HasPrefix(lower, "http:") || strings.HasPrefix(lower, "https:") {
		return bad(`has a scheme without "//"`)
	}
	authority := rest
	if i := strings.IndexAny(rest, "/#"); i >= 0 {
		authority = rest[:i]
		suggest := p[:len(p)-len(rest)+i]
		switch {
		case rest[i:] == "/":
			return bad("has a trailing slash (an origin has no path: use %s)", suggest)
		case rest[i] == '/':
			return bad("has a path (an origin has no path: use %s)", suggest)
		default:
			return bad("has a fragment (use %s)", suggest)
		}
	}
	if i := strings.IndexByte(authority, '?'); i >= 0 {
		return bad("has a query (use %s)", p[:len(p)-len(rest)+i])
	}
	if strings.Contains(authority, "@") {
		return bad("has user information")
	}
	host, port := authority, ""
	switch {
	case strings.HasPrefix(authority, "["):
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return bad("has an unterminated IPv6 address")
		}
		a, err := netip.ParseAddr(authority[1:end])
		if err != nil || !a.Is6() {
			return bad("has an invalid IPv6 address %q", authority[1:end])
		}
		host = `\[` + authority[1:end] + `\]`
		if tail := authority[end+1:]; tail != "" {
			if tail[0] != ':' {
				return bad("has %q after the IPv6 address", tail)
			}
			port = tail[1:]
			if port == "" {
				return bad("has an empty port")
			}
		}
	case strings.Contains(authority, ":"):
		i := strings.LastIndexByte(authority, ':')
		host, port = authority[:i], authority[i+1:]
		if port == "" {
			return bad("has an empty port")
		}
	}
	if host == "" {
		return bad("has no host")
	}
	if !strings.HasPrefix(host, `\[`) {
		for _, c := range host {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '*') {
				return bad("has an invalid host %q (character %q)", truncateBytes(host, maxDiagEcho), c)
			}
		}
	}
	if port != "" {
		if strings.Trim(port, "0123456789*") != "" {
			return bad("has an invalid port %q", truncateBytes(port, maxDiagEcho))
		}
		if n, err := strconv.Atoi(port); err == nil && (n <= 0 || n > 65535) {
			return bad("has a port out of range (%s)", port)
		}
		if (op.scheme == "http" && port == "80") || (op.scheme == "https" && port == "443") {
			port = "" // browsers leave the default port out of Origin
		}
	}
	op.host = host
	if port != "" {
		op.host += ":" + port
	}
	if _, err := path.Match(op.host, ""); err != nil {
		return bad("is not a valid wildcard pattern")
	}
	return op, nil
}

func validScheme(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// match reports whether the origin with scheme and canonical host matches.
func (op originPattern) match(scheme, host string) bool {
	if op.scheme != "" && op.scheme != scheme {
		return false
	}
	m, _ := path.Match(op.host, host)
	return m
}

// canonicalHost lower-cases host[:port] and drops the scheme's default port.
func canonicalHost(scheme, hostport string) string {
	h := strings.ToLower(hostport)
	if host, port, err := net.SplitHostPort(h); err == nil &&
		((scheme == "http" || scheme == "ws") && port == "80" || (scheme == "https" || scheme == "wss") && port == "443") {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return h
}

// parseOrigin splits an Origin header value into its scheme and canonical
// host; ok is false for anything but "scheme://host[:port]".
func parseOrigin(origin string) (scheme, host string, ok bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", "", false
	}
	scheme = strings.ToLower(u.Scheme)
	return scheme, canonicalHost(scheme, u.Host), true
}
