package bridge

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// envelope is one incoming JSON-RPC message as the client sees it. Params
// and Result are views of the frame.
type envelope struct {
	id     []byte // raw id (number or string), nil when absent or null
	method string
	params []byte
	result []byte
	err    *wireError
	// local is the error the client itself found in a frame meant as this
	// response (it did not decode): kind protocol, not the server's word.
	local *Error
}

// parseEnvelope decodes a frame with the same acceptance rules as
// jsonrpc.DecodeMessage: "jsonrpc":"2.0" is required, a "method" makes a
// request or notification, anything else is a response that needs an id.
func parseEnvelope(d []byte) (*envelope, error) {
	i := skipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		return nil, fmt.Errorf("not a JSON-RPC object")
	}
	var e envelope
	var version, method, errRaw []byte
	var verEsc, methEsc bool
	end, err := scanObject(d, i, 1, func(key []byte, vs, ve int) error {
		v := d[vs:ve]
		switch {
		case keyIs(key, "jsonrpc"):
			if v[0] != '"' {
				return fmt.Errorf(`"jsonrpc" is not a string`)
			}
			version = v
			_, verEsc, _ = scanString(v, 0)
		case keyIs(key, "id"):
			if string(v) != "null" {
				e.id = v
			}
		case keyIs(key, "method"):
			if v[0] != '"' {
				return fmt.Errorf(`"method" is not a string`)
			}
			method = v
			_, methEsc, _ = scanString(v, 0)
		case keyIs(key, "params"):
			e.params = v
		case keyIs(key, "result"):
			e.result = v
		case keyIs(key, "error"):
			if string(v) != "null" {
				errRaw = v
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := checkEnd(d, end); err != nil {
		return nil, err
	}
	if version == nil || decodeString(version, verEsc) != "2.0" {
		return nil, fmt.Errorf(`invalid message version tag; expected "2.0"`)
	}
	if e.id != nil && e.id[0] != '"' && e.id[0] != '-' && (e.id[0] < '0' || e.id[0] > '9') {
		return nil, fmt.Errorf("invalid id %s", e.id)
	}
	if method != nil {
		e.method = decodeString(method, methEsc)
		return &e, nil
	}
	if e.id == nil {
		return nil, fmt.Errorf("response without an id")
	}
	if errRaw != nil {
		var we wireError
		if !decodeWireErrorFast(errRaw, &we) {
			we = wireError{}
			if err := stdjson.Unmarshal(errRaw, &we); err != nil {
				return nil, fmt.Errorf("malformed error object: %v", err)
			}
		}
		e.err = &we
	}
	return &e, nil
}

// idValue returns the numeric value of a raw id (a number, or a string of
// digits as some peers echo it).
func idValue(raw []byte) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	if raw[0] == '"' {
		_, esc, err := scanString(raw, 0)
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseInt(decodeString(raw, esc), 10, 64)
		return n, err == nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return int64(f), err == nil && float64(int64(f)) == f
}

// decodeContentsFast decodes a resources/read result on the fast path. ok is
// false when the result is not the plain expected shape (then the caller
// uses the full decoder, which reports what is wrong).
func decodeContentsFast(d []byte) (out []ResourceContents, ok bool) {
	i := skipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		return nil, false
	}
	found := false
	bad := false
	end, err := scanObject(d, i, 1, func(key []byte, vs, ve int) error {
		if !keyIs(key, "contents") {
			return nil
		}
		if d[vs] != '[' {
			bad = true
			return nil
		}
		found = true
		out = out[:0]
		_, err := scanArray(d, vs, 2, func(_ int, ps, pe int) error {
			if d[ps] != '{' {
				bad = true
				return nil
			}
			var c ResourceContents
			_, err := scanObject(d, ps, 3, func(k []byte, s, e int) error {
				v := d[s:e]
				str := func(dst *string) {
					if v[0] != '"' {
						bad = true
						return
					}
					// scanObject validated v with scanString already; a
					// backslash in it is an escape. (Scanning a 1 MB text a
					// second time cost ~6 ms under wasm.)
					*dst = decodeString(v, bytes.IndexByte(v, '\\') >= 0)
				}
				switch {
				case keyIs(k, "uri"):
					str(&c.URI)
				case keyIs(k, "mimeType"):
					if string(v) != "null" {
						str(&c.MIMEType)
					}
				case keyIs(k, "text"):
					if string(v) != "null" {
						c.Text = new(string)
						str(c.Text)
					}
				case keyIs(k, "blob"):
					if string(v) != "null" {
						c.Blob = new(string)
						str(c.Blob)
					}
				case keyIs(k, "_meta"):
					if string(v) != "null" {
						c.Meta = stdjson.RawMessage(v)
					}
				case hasEscape(k) || foldsToKnown(k):
					bad = true // encoding/json would match it case-insensitively or unescaped
				}
				return nil
			})
			out = append(out, c)
			return err
		})
		return err
	})
	if err != nil || bad || !found || checkEnd(d, end) != nil {
		return nil, false
	}
	if out == nil {
		out = []ResourceContents{}
	}
	return out, true
}

func foldsToKnown(k []byte) bool {
	name := string(k[1 : len(k)-1])
	for _, known := range []string{"uri", "mimeType", "text", "blob", "_meta"} {
		if strings.EqualFold(name, known) {
			return true
		}
	}
	return false
}

func hasEscape(k []byte) bool {
	for _, c := range k {
		if c == '\\' {
			return true
		}
	}
	return false
}
