//go:build !js

package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestEncodeHeaderValue checks the spec's encoding table
// (basic/transports/streamable-http.mdx, Value Encoding).
func TestEncodeHeaderValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"us-west1":           "us-west1",
		"Hello, 世界":          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":           "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":       "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"file:///a b.md":     "file:///a b.md",
		"":                   "",
	} {
		if got := encodeHeaderValue(in); got != want {
			t.Errorf("encodeHeaderValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParamBindings checks the x-mcp-header constraints (server/tools.mdx)
// and the header values taken from arguments.
func TestParamBindings(t *testing.T) {
	t.Parallel()
	b, err := paramBindings(json.RawMessage(regionSchema))
	if err != nil || len(b) != 2 || b[0].header != "Region" || b[1].header != "Shard" || strings.Join(b[1].path, ".") != "opts.shard" {
		t.Fatalf("bindings of regionSchema = %+v, %v", b, err)
	}
	h := paramHeaders(b, json.RawMessage(`{"name":"route","arguments":{"region":"eu","opts":{"shard":-42}}}`))
	if h.Get("Mcp-Param-Region") != "eu" || h.Get("Mcp-Param-Shard") != "-42" {
		t.Errorf("headers = %v", h)
	}
	for args, want := range map[string]string{
		`{"region":null}`:                   "",
		`{}`:                                "",
		`{"region":true}`:                   "true",
		`{"region":12.5}`:                   "",
		`{"region":9007199254740993}`:       "",
		`{"region":" x"}`:                   "=?base64?IHg=?=",
		`{"region":{"nested":"object"}}`:    "",
		`{"region":"a","opts":"notobj"}`:    "a",
		`{"region":"a","opts":{"x":1}}`:     "a",
		`{"region":"a","opts":{"shard":1}}`: "a",
	} {
		h := paramHeaders(b, json.RawMessage(`{"arguments":`+args+`}`))
		if got := h.Get("Mcp-Param-Region"); got != want {
			t.Errorf("arguments %s: Mcp-Param-Region %q, want %q", args, got, want)
		}
	}
	invalid := map[string]string{
		"number":         `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`,
		"untyped":        `{"type":"object","properties":{"n":{"x-mcp-header":"N"}}}`,
		"empty":          `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":""}}}`,
		"not a token":    `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"A B"}}}`,
		"CRLF":           `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"A\r\nB"}}}`,
		"duplicate":      `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`,
		"through items":  `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`,
		"through oneOf":  `{"type":"object","oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"through $defs":  `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`,
		"on the root":    `{"type":"string","x-mcp-header":"R"}`,
		"not a string":   `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":7}}}`,
		"nested in then": `{"type":"object","if":{},"then":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`,
	}
	for name, schema := range invalid {
		if _, err := paramBindings(json.RawMessage(schema)); err == nil {
			t.Errorf("%s: accepted %s", name, schema)
		}
	}
	if b, err := paramBindings(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","default":{"x-mcp-header":"no"}}}}`)); err != nil || len(b) != 0 {
		t.Errorf("an x-mcp-header key inside a default value is data: %v %v", b, err)
	}

	var ts toolSchemas
	res := `{"tools":[{"name":"good","inputSchema":` + regionSchema + `},{"name":"bad","inputSchema":` + invalid["number"] + `}],"nextCursor":""}`
	out, rejected, next := ts.learn(json.RawMessage(res))
	if len(rejected) != 1 || !strings.HasPrefix(rejected[0], "bad: ") || next == nil || *next != "" {
		t.Fatalf("learn: rejected %v, next %v", rejected, next)
	}
	var got struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if json.Unmarshal(out, &got) != nil || len(got.Tools) != 1 || got.Tools[0].Name != "good" || !strings.Contains(string(out), `"nextCursor":""`) {
		t.Errorf("learned result = %s", out)
	}
	if len(ts.bindings("good")) != 2 || ts.bindings("bad") != nil {
		t.Errorf("bindings after learn: good %v, bad %v", ts.bindings("good"), ts.bindings("bad"))
	}
}

// TestModernVersion: which browser requests take the 2026-07-28 path.
func TestModernVersion(t *testing.T) {
	t.Parallel()
	for params, want := range map[string]string{
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`: "2026-07-28",
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}`: "2027-01-01",
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`: "",
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`:            "",
		`{"_meta":{}}`: "",
		``:             "",
	} {
		id, _ := jsonrpc.MakeID(float64(1))
		req := &jsonrpc.Request{ID: id, Method: "resources/list", Params: json.RawMessage(params)}
		if got := modernVersion(req); got != want {
			t.Errorf("%s: %q, want %q", params, got, want)
		}
	}
	id, _ := jsonrpc.MakeID(float64(1))
	if v := modernVersion(&jsonrpc.Request{ID: id, Method: "server/discover"}); v != "2026-07-28" {
		t.Errorf("server/discover without _meta: %q", v)
	}
}
