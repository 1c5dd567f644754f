package bridge

import (
	stdjson "encoding/json"
	"unicode/utf8"
)

// The client's own frames are written by hand, without encoding/json: its
// reflection (building an encoder per type on first use) was the largest
// cost of a page's handshake, where nothing else uses it yet. Each writer
// produces exactly what json.Marshal would (jsonenc_test.go compares them,
// FuzzAppendJSONString too): the page's early frames (web/mcphost.js) must
// match the session's byte for byte.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as json.Marshal writes a string: HTML
// characters and U+2028/U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendImplementation appends impl as json.Marshal writes it (fields in
// declaration order, empty optional ones left out); icons, rare here, go
// through encoding/json.
func appendImplementation(dst []byte, impl Implementation) []byte {
	if len(impl.Icons) > 0 {
		b, _ := stdjson.Marshal(impl) // strings and a slice of plain structs always encode
		return append(dst, b...)
	}
	dst = append(dst, `{"name":`...)
	dst = appendJSONString(dst, impl.Name)
	dst = append(dst, `,"version":`...)
	dst = appendJSONString(dst, impl.Version)
	for _, f := range [...]struct{ key, v string }{{"title", impl.Title}, {"description", impl.Description}, {"websiteUrl", impl.WebsiteURL}} {
		if f.v != "" {
			dst = append(dst, `,"`...)
			dst = append(dst, f.key...)
			dst = append(dst, `":`...)
			dst = appendJSONString(dst, f.v)
		}
	}
	return append(dst, '}')
}
