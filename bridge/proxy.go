//go:build !js

package bridge

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// A requestView is what the front-door checks see of a request: the scheme
// and Host the page used. Behind a trusted reverse proxy (see
// [EndpointOptions].TrustedProxies) they come from its forwarding headers;
// from anyone else those headers are ignored.
type requestView struct {
	scheme string // "http" or "https"
	host   string // host[:port], as the page addressed it
	remote netip.Addr
	// proxied: the request came from a trusted proxy. ignored: it carried
	// forwarding headers from an address that is not trusted.
	proxied, ignored bool
}

// viewRequest applies the trusted-proxy rule to r.
func viewRequest(r *http.Request, trusted []netip.Prefix) requestView {
	v := requestView{scheme: "http", host: r.Host}
	if r.TLS != nil {
		v.scheme = "https"
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		v.remote = ap.Addr().Unmap()
	} else if a, err := netip.ParseAddr(r.RemoteAddr); err == nil {
		v.remote = a.Unmap()
	}
	hasForwarding := r.Header.Get("Forwarded") != "" || r.Header.Get("X-Forwarded-Proto") != "" ||
		r.Header.Get("X-Forwarded-Host") != ""
	if !hasForwarding {
		return v
	}
	if !v.remote.IsValid() || !inPrefixes(trusted, v.remote) {
		v.ignored = true
		return v
	}
	v.proxied = true
	fwd := lastForwarded(r.Header.Values("Forwarded"))
	// Per field, X-Forwarded-* first (what nginx, HAProxy, Caddy and
	// Traefik set), then the RFC 7239 Forwarded element the nearest proxy
	// added. The proxy must set the one it uses and drop the other.
	proto := lastListValue(r.Header.Values("X-Forwarded-Proto"))
	if proto == "" {
		proto = fwd["proto"]
	}
	if p := strings.ToLower(proto); p == "http" || p == "https" {
		v.scheme = p
	}
	host := lastListValue(r.Header.Values("X-Forwarded-Host"))
	if host == "" {
		host = fwd["host"]
	}
	if validHostport(host) {
		v.host = host
	}
	return v
}

func inPrefixes(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// lastListValue returns the last element of a comma-separated header (the
// one the nearest proxy appended).
func lastListValue(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	v := vals[len(vals)-1]
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}

// lastForwarded parses the last element of RFC 7239 Forwarded headers
// (pairs "name=value" separated by ";", values possibly quoted) into its
// lower-cased names. Quoted values with commas or semicolons are not split.
func lastForwarded(vals []string) map[string]string {
	if len(vals) == 0 {
		return nil
	}
	elems := splitQuoted(vals[len(vals)-1], ',')
	if len(elems) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, pair := range splitQuoted(elems[len(elems)-1], ';') {
		k, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val = strings.ReplaceAll(val[1:len(val)-1], `\`, "")
		}
		out[strings.ToLower(strings.TrimSpace(k))] = val
	}
	return out
}

// splitQuoted splits s at sep outside double quotes.
func splitQuoted(s string, sep byte) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			quoted = !quoted
		case sep:
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// validHostport reports whether s is a plausible Host value: a name, an IPv4
// address or a bracketed IPv6 address, with an optional numeric port.
func validHostport(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	host := s
	if h, port, err := net.SplitHostPort(s); err == nil {
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return false
		}
		host = h
		if strings.Contains(h, ":") {
			_, err := netip.ParseAddr(h)
			return err == nil
		}
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		_, err := netip.ParseAddr(s[1 : len(s)-1])
		return err == nil
	}
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// ParseTrustedProxy parses a -trusted-proxy value: a CIDR prefix
// ("10.0.0.0/8", "::1/128") or a single address (taken as /32 or /128).
func ParseTrustedProxy(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q: want a CIDR prefix such as 10.0.0.0/8 or 127.0.0.1/32, or an address", s)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}
