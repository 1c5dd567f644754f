package bridge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// FuzzProbeID checks the depth-bounded scanner behind an undecodable frame
// (issue 14 §3): on any input, however deep, it returns without overflowing
// the stack, and on a valid JSON object whose top-level "id" is an integer it
// finds that id whenever what precedes it nests less than the bound.
func FuzzProbeID(f *testing.F) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","id":"12","error":{"code":-32603,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"contents":` + deep + `}}`,
		`{"x":` + deep + `,"id":4}`,
		strings.Repeat("[", 1<<16),
		strings.Repeat(`{"a":`, 5000),
		`{"id":1e3}`, `{"id":-1}`, `{"id":null}`, `{}`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, errRaw, ok := probeID(data)
		if len(errRaw) >= 1<<16 {
			t.Fatalf("error member of %d bytes kept", len(errRaw))
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return
		}
		raw, has := m["id"]
		if !has {
			return
		}
		want, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return
		}
		if depth(data) >= maxDepth {
			return // the scanner may stop at what it cannot scan
		}
		if dup := strings.Count(string(data), `"id"`); dup > 1 {
			return // duplicate keys: encoding/json keeps the last
		}
		if !ok || id != want {
			t.Fatalf("probeID(%q) = %d, %v; want %d", data, id, ok, want)
		}
	})
}

// depth is the deepest nesting of data's arrays and objects, strings aside.
func depth(data []byte) int {
	d, most, inStr, esc := 0, 0, false, false
	for _, c := range data {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}
