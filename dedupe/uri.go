package dedupe

import "strings"

// normalizeURI applies RFC 3986 syntax-based normalisation (§6.2.2) and
// the scheme-based rules of §6.2.3 for http, https, ws and wss:
//   - scheme and host are lowercased;
//   - percent-encodings of unreserved characters are decoded, the others
//     get uppercase hex digits;
//   - an empty or default port is removed, and an empty path becomes "/"
//     for those four schemes.
//
// It never removes dot-segments or resolves anything, and leaves parts it
// cannot parse (a string without a scheme, an invalid host or port, a
// stray '%') as they are. It is idempotent.
func normalizeURI(s string) string {
	i := schemeEnd(s)
	if i < 0 {
		// Not an absolute URI: nothing to normalise against.
		return s
	}
	scheme := strings.ToLower(s[:i])
	rest := s[i+1:]
	var b strings.Builder
	b.Grow(len(s) + 1)
	b.WriteString(scheme)
	b.WriteByte(':')
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		auth := rest[:end]
		rest = rest[end:]
		b.WriteString("//")
		userinfo, hostport := "", auth
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			userinfo, hostport = auth[:at+1], auth[at+1:]
		}
		host, port, hasPort := hostport, "", false
		if c := strings.LastIndexByte(hostport, ':'); c >= 0 && !strings.Contains(hostport[c:], "]") {
			host, port, hasPort = hostport[:c], hostport[c+1:], true
		}
		def := defaultPort(scheme)
		if hasPort && !allDigits(port) || !validHost(host) {
			// Not a host and port: do not guess what it is.
			b.WriteString(auth)
		} else {
			b.WriteString(pctNormalize(userinfo))
			b.WriteString(lowerOutsideEscapes(pctNormalize(host)))
			if hasPort && port != "" && port != def {
				b.WriteByte(':')
				b.WriteString(port)
			}
			if def != "" && (rest == "" || rest[0] != '/') {
				b.WriteByte('/')
			}
		}
	}
	b.WriteString(pctNormalize(rest))
	return b.String()
}

// schemeEnd returns the index of the ':' ending a valid scheme
// (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )), or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c):
		case i > 0 && (isDigit(c) || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// validHost rejects a host with a colon outside an IP literal, which the
// port split would otherwise misread.
func validHost(h string) bool {
	if strings.HasPrefix(h, "[") {
		return strings.HasSuffix(h, "]") && strings.Count(h, "[") == 1 && strings.Count(h, "]") == 1
	}
	return !strings.ContainsAny(h, ":[]")
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	}
	return ""
}

// pctNormalize decodes percent-encoded unreserved characters and uppercases
// the hex digits of the remaining percent-encodings. A string with a
// malformed '%' is not a valid URI component and is returned unchanged
// (decoding next to a stray '%' could even create a new escape).
func pctNormalize(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return s
			}
			i += 2
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				const hexdigits = "0123456789ABCDEF"
				b.WriteByte('%')
				b.WriteByte(hexdigits[v>>4])
				b.WriteByte(hexdigits[v&15])
			}
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// lowerOutsideEscapes lowercases ASCII letters except the hex digits of
// percent-encodings, which pctNormalize has made uppercase.
func lowerOutsideEscapes(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			if b != nil {
				b = append(b, s[i:i+3]...)
			}
			i += 2
			continue
		}
		if 'A' <= c && c <= 'Z' {
			if b == nil {
				b = append(make([]byte, 0, len(s)), s[:i]...)
			}
			c += 'a' - 'A'
		}
		if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isUnreserved(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
