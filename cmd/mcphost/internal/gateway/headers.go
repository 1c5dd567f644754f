//go:build !js

package gateway

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The request metadata headers of the 2026-07-28 Streamable HTTP transport
// (basic/transports/streamable-http.mdx, "Request Metadata").
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerParamPrefix     = "Mcp-Param-"
	base64Prefix          = "=?base64?"
	base64Suffix          = "?="
)

// revisionModern is the first revision with per-request metadata.
const revisionModern = "2026-07-28"

// metaProtocolVersion is the _meta key naming a request's revision.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// modernVersion returns the revision a browser request names in
// params._meta (2026-07-28 or later), or "" for a request of the legacy,
// session-based revisions. server/discover is always modern.
func modernVersion(req *jsonrpc.Request) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var v string
	if len(req.Params) > 0 && json.Unmarshal(req.Params, &p) == nil {
		if raw, ok := p.Meta[metaProtocolVersion]; ok && json.Unmarshal(raw, &v) != nil {
			v = ""
		}
	}
	if v < revisionModern { // dates compare as strings; "" is legacy
		v = ""
	}
	if v == "" && req.Method == "server/discover" {
		v = revisionModern
	}
	return v
}

// nameOf returns the value Mcp-Name carries for req: the tool or prompt
// name, or the URI of resources/read.
func nameOf(req *jsonrpc.Request) (string, bool) {
	var p struct {
		Name *string `json:"name"`
		URI  *string `json:"uri"`
	}
	switch req.Method {
	case "tools/call", "prompts/get", "resources/read":
	default:
		return "", false
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return "", false
	}
	v := p.Name
	if req.Method == "resources/read" {
		v = p.URI
	}
	if v == nil {
		return "", false
	}
	return *v, true
}

// encodeHeaderValue applies the revision's value encoding: a value that is
// not plain header-safe ASCII (control or non-ASCII characters, leading or
// trailing blanks) or that looks like the sentinel itself is sent as
// =?base64?{base64 of its UTF-8}?=.
func encodeHeaderValue(s string) string {
	if !needsBase64(s) {
		return s
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + base64Suffix
}

func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return true
		}
	}
	return strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix)
}

// sendableRaw reports whether s can go into a header unencoded at all (Go's
// HTTP client refuses control characters).
func sendableRaw(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// A paramBinding mirrors the argument at path (a chain of properties keys)
// into the header Mcp-Param-{header}.
type paramBinding struct {
	path   []string
	header string
}

// paramBindings returns the x-mcp-header bindings of a tool's inputSchema,
// or an error when an annotation breaks the revision's constraints (the
// tool must then be left out of tools/list): a non-empty token name, unique
// ignoring case, on a string, integer or boolean property reachable from the
// root through properties keys only.
func paramBindings(schema json.RawMessage) ([]paramBinding, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	var out []paramBinding
	seen := map[string]bool{}
	if err := walkSchema(root, nil, true, seen, &out); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].header < out[j].header })
	return out, nil
}

// notSchemas are keywords whose values are data, not subschemas.
var notSchemas = map[string]bool{"default": true, "examples": true, "const": true, "enum": true}

func walkSchema(node any, path []string, reachable bool, seen map[string]bool, out *[]paramBinding) error {
	switch n := node.(type) {
	case []any:
		for _, e := range n {
			if err := walkSchema(e, path, false, seen, out); err != nil {
				return err
			}
		}
	case map[string]any:
		if raw, ok := n["x-mcp-header"]; ok {
			where := strings.Join(path, ".")
			if !reachable || len(path) == 0 {
				return fmt.Errorf("x-mcp-header on %q, which is not reachable from the root through properties alone", where)
			}
			name, _ := raw.(string)
			if err := checkToken(name); err != nil {
				return fmt.Errorf("property %q: x-mcp-header %v", where, err)
			}
			if typ, _ := n["type"].(string); typ != "string" && typ != "integer" && typ != "boolean" {
				return fmt.Errorf("property %q: x-mcp-header on type %v (only string, integer and boolean may be mirrored)", where, n["type"])
			}
			if seen[strings.ToLower(name)] {
				return fmt.Errorf("property %q: x-mcp-header %q is used twice (ignoring case)", where, name)
			}
			seen[strings.ToLower(name)] = true
			*out = append(*out, paramBinding{path: append([]string(nil), path...), header: name})
		}
		for k, v := range n {
			if k == "properties" {
				props, _ := v.(map[string]any)
				for name, sub := range props {
					if err := walkSchema(sub, append(path[:len(path):len(path)], name), reachable, seen, out); err != nil {
						return err
					}
				}
				continue
			}
			if notSchemas[k] || strings.HasPrefix(k, "x-") {
				continue
			}
			if err := walkSchema(v, path, false, seen, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkToken checks an HTTP field-name token (RFC 9110 tchar).
func checkToken(s string) error {
	if s == "" {
		return errors.New("must be a non-empty string")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return fmt.Errorf("%q has character %q, not allowed in a header name", s, c)
	}
	return nil
}

// paramHeaders returns the Mcp-Param-* headers of a tools/call's arguments:
// one per binding whose value is present, not null, and a string, boolean
// or safe integer.
func paramHeaders(bindings []paramBinding, params json.RawMessage) http.Header {
	if len(bindings) == 0 {
		return nil
	}
	var p struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || p.Arguments == nil {
		return nil
	}
	h := http.Header{}
	for _, b := range bindings {
		raw, ok := lookup(p.Arguments, b.path)
		if !ok {
			continue
		}
		if v, ok := primitive(raw); ok {
			h.Set(headerParamPrefix+b.header, encodeHeaderValue(v))
		}
	}
	return h
}

func lookup(args map[string]json.RawMessage, path []string) (json.RawMessage, bool) {
	cur, ok := args[path[0]]
	for _, k := range path[1:] {
		if !ok {
			return nil, false
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		cur, ok = obj[k]
	}
	return cur, ok
}

// primitive formats a JSON string, boolean or integer (within ±(2^53-1)) as
// its header text.
func primitive(raw json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53-1 {
			return "", false
		}
		return strconv.FormatInt(int64(x), 10), true
	}
	return "", false
}

// toolSchemas holds the x-mcp-header bindings of the tools a connection has
// listed, learned from the tools/list results relayed (and re-listed by the
// gateway itself when the server says a call's headers do not match).
type toolSchemas struct {
	mu     sync.Mutex
	byName map[string][]paramBinding
}

func (t *toolSchemas) bindings(name string) []paramBinding {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byName[name]
}

// learn records the bindings of a tools/list result's tools and returns the
// result without the tools whose annotations are invalid (the revision
// says a client must leave them out), with their names and reasons, and
// the next cursor (nil at the end).
func (t *toolSchemas) learn(result json.RawMessage) (out json.RawMessage, rejected []string, next *string) {
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return result, nil, nil
	}
	if c, ok := res["nextCursor"]; ok {
		var s string
		if json.Unmarshal(c, &s) == nil {
			next = &s
		}
	}
	var tools []json.RawMessage
	if json.Unmarshal(res["tools"], &tools) != nil {
		return result, nil, next
	}
	kept := tools[:0:0]
	t.mu.Lock()
	if t.byName == nil {
		t.byName = map[string][]paramBinding{}
	}
	for _, raw := range tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &tool) != nil {
			kept = append(kept, raw)
			continue
		}
		b, err := paramBindings(tool.InputSchema)
		if err != nil {
			delete(t.byName, tool.Name)
			rejected = append(rejected, fmt.Sprintf("%s: %v", tool.Name, err))
			continue
		}
		t.byName[tool.Name] = b
		kept = append(kept, raw)
	}
	t.mu.Unlock()
	if len(rejected) == 0 {
		return result, nil, next
	}
	res["tools"], _ = json.Marshal(kept)
	out, err := json.Marshal(res)
	if err != nil {
		return result, rejected, next
	}
	return out, rejected, next
}
