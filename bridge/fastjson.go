package bridge

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A small validating JSON scanner for the client's hot path. Under wasm,
// reflection-based decoders read a 2.4 MB resources/read message at 15–45
// MB/s; this scanner finds the envelope and the contents parts by skipping
// values byte by byte and takes long unescaped strings (base64 blobs) as
// zero-copy views of the frame. It validates everything it skips, so it
// accepts exactly the JSON that encoding/json accepts (checked by a fuzz
// test); anything it does not expect sends the caller to the slow path.

var errSyntax = errors.New("invalid JSON")

func skipWS(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString returns the index just past the string starting at d[i] == '"'
// and whether it contains escapes.
func scanString(d []byte, i int) (int, bool, error) {
	i++ // opening quote
	escaped := false
	for {
		// Eight bytes at a time while none is '"', '\\' or a control
		// byte (SWAR: base64 and most text are long runs of plain bytes),
		// then byte by byte.
		for i+8 <= len(d) && plain8(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < len(d) {
			c := d[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			i++
		}
		if i >= len(d) {
			return 0, false, errSyntax
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c < 0x20:
			return 0, false, errSyntax
		}
		// Backslash.
		escaped = true
		if i+1 >= len(d) {
			return 0, false, errSyntax
		}
		switch d[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(d) {
				return 0, false, errSyntax
			}
			for _, h := range d[i+2 : i+6] {
				if !isHex(h) {
					return 0, false, errSyntax
				}
			}
			i += 6
		default:
			return 0, false, errSyntax
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plain8 reports whether none of the eight bytes in w is '"', '\\' or below
// 0x20 (bytes >= 0x80 are plain: UTF-8 is checked separately).
func plain8(w uint64) bool {
	// hasZero and the "less than" test are the classic exact existence
	// tests: a borrow can only mark bytes above a byte that matched.
	hasZero := func(x uint64) uint64 { return (x - lsb) &^ x & msb }
	below20 := (w - 0x20*lsb) &^ w & msb
	return hasZero(w^(0x22*lsb))|hasZero(w^(0x5c*lsb))|below20 == 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

const maxDepth = 1000

// skipValue returns the index just past the JSON value at d[i].
func skipValue(d []byte, i, depth int) (int, error) {
	i = skipWS(d, i)
	if i >= len(d) {
		return 0, errSyntax
	}
	switch c := d[i]; {
	case c == '"':
		end, _, err := scanString(d, i)
		return end, err
	case c == '{':
		if depth >= maxDepth {
			return 0, errSyntax
		}
		return scanObject(d, i, depth+1, nil)
	case c == '[':
		if depth >= maxDepth {
			return 0, errSyntax
		}
		return scanArray(d, i, depth+1, nil)
	case c == 't':
		return lit(d, i, "true")
	case c == 'f':
		return lit(d, i, "false")
	case c == 'n':
		return lit(d, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(d, i)
	}
	return 0, errSyntax
}

func lit(d []byte, i int, s string) (int, error) {
	if len(d)-i >= len(s) && string(d[i:i+len(s)]) == s {
		return i + len(s), nil
	}
	return 0, errSyntax
}

func scanNumber(d []byte, i int) (int, error) {
	if d[i] == '-' {
		i++
	}
	if i >= len(d) {
		return 0, errSyntax
	}
	switch {
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return 0, errSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == start {
			return 0, errSyntax
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == start {
			return 0, errSyntax
		}
	}
	return i, nil
}

// scanObject walks the object at d[i] == '{'. For each member it calls fn
// with the raw key (including quotes) and the value's bounds; fn may be nil.
func scanObject(d []byte, i, depth int, fn func(key []byte, vs, ve int) error) (int, error) {
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	for {
		i = skipWS(d, i)
		if i >= len(d) || d[i] != '"' {
			return 0, errSyntax
		}
		ke, _, err := scanString(d, i)
		if err != nil {
			return 0, err
		}
		key := d[i:ke]
		i = skipWS(d, ke)
		if i >= len(d) || d[i] != ':' {
			return 0, errSyntax
		}
		vs := skipWS(d, i+1)
		ve, err := skipValue(d, vs, depth)
		if err != nil {
			return 0, err
		}
		if fn != nil {
			if err := fn(key, vs, ve); err != nil {
				return 0, err
			}
		}
		i = skipWS(d, ve)
		if i >= len(d) {
			return 0, errSyntax
		}
		switch d[i] {
		case ',':
			i++
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// scanArray walks the array at d[i] == '['; fn (may be nil) sees each element's bounds.
func scanArray(d []byte, i, depth int, fn func(idx, vs, ve int) error) (int, error) {
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		vs := skipWS(d, i)
		ve, err := skipValue(d, vs, depth)
		if err != nil {
			return 0, err
		}
		if fn != nil {
			if err := fn(n, vs, ve); err != nil {
				return 0, err
			}
		}
		i = skipWS(d, ve)
		if i >= len(d) {
			return 0, errSyntax
		}
		switch d[i] {
		case ',':
			i++
		case ']':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// checkEnd requires only whitespace after a top-level value.
func checkEnd(d []byte, i int) error {
	if skipWS(d, i) != len(d) {
		return errSyntax
	}
	return nil
}

// keyIs compares a raw quoted key with name. Keys with escapes never match
// (the caller then takes the slow path if it matters).
func keyIs(key []byte, name string) bool {
	return len(key) == len(name)+2 && string(key[1:len(key)-1]) == name
}

// decodeString returns the string value of the raw JSON string s (with its
// quotes). An unescaped string is a view of the frame (no copy): callers
// keep the frame alive as long as the string, which is fine because frames
// are never reused. Escapes are decoded as encoding/json does (invalid
// surrogates become U+FFFD). Invalid UTF-8 is replaced as encoding/json does.
func decodeString(s []byte, escaped bool) string {
	body := s[1 : len(s)-1]
	if escaped {
		return decodeEscaped(body)
	}
	if utf8.Valid(body) {
		if len(body) == 0 {
			return ""
		}
		return unsafe.String(&body[0], len(body))
	}
	return string([]rune(string(body))) // replaces invalid bytes with U+FFFD
}

// decodeEscaped decodes the body of a string with escapes. It is a function
// of its own so that decodeString, called for every string of every
// descriptor, stays small: V8 recompiles a hot wasm function whole with its
// optimizing tier, on a background thread that a cold start on two cores
// shares with the page, and with the escape decoder inlined decodeString was
// 7.2 KB of code whose recompilation took 15–31 ms during a cold listing.
func decodeEscaped(body []byte) string {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		// The run up to the next escape goes in one copy: byte by byte, a
		// 1 MB Markdown text (an escaped newline or quote every few dozen
		// bytes) took 16 ms to decode under wasm.
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			j = len(body) - i
		}
		if j > 0 {
			run := body[i : i+j]
			if utf8.Valid(run) {
				out = append(out, run...)
			} else {
				for k := 0; k < len(run); {
					r, size := utf8.DecodeRune(run[k:])
					out = utf8.AppendRune(out, r)
					k += size
				}
			}
			i += j
			continue
		}
		switch body[i+1] {
		case '"', '\\', '/':
			out = append(out, body[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := rune(hex4(body[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if r2 := utf16.DecodeRune(r, rune(hex4(body[i+2:i+6]))); r2 != utf8.RuneError {
						out = utf8.AppendRune(out, r2)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		}
		i += 2
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}

func hex4(b []byte) uint16 {
	n, _ := strconv.ParseUint(string(b), 16, 16)
	return uint16(n)
}
