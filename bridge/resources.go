package bridge

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcphost/mcphost/internal/blob"
	"github.com/mcphost/mcphost/internal/pace"
)

// A List is what a paginated listing gathered. It is returned even when the
// listing stopped early, together with the error that stopped it.
type List[T any] struct {
	Items []T
	// Pages is the number of pages received.
	Pages int
	// Invalid reports each malformed entry that was skipped (missing uri or
	// name, wrong types); the valid entries of the same page are kept.
	Invalid []error
	// Truncated is set when the listing stopped before the server's last
	// page (a repeated cursor, the page cap, or a failed page).
	Truncated bool
	// TTL and CacheScope are the last page's ttlMs and cacheScope
	// (2026-07-28; zero and "" otherwise).
	TTL        time.Duration
	CacheScope string
}

// A PageFunc sees each page as it arrives, so a UI can stream a long list.
type PageFunc[T any] func(page []T, invalid []error)

// gate fails locally, without a round trip, when the server did not declare
// what a method needs.
func (s *Session) gate(method, uri string) error {
	c := s.init.Capabilities
	ok := true
	need := ""
	switch method {
	case "resources/list", "resources/templates/list", "resources/read":
		ok, need = c.Resources != nil, "resources"
	case "resources/subscribe", "resources/unsubscribe":
		ok, need = c.Resources != nil && c.Resources.Subscribe, "resources.subscribe"
	case "completion/complete":
		ok, need = c.Completions != nil || s.init.ProtocolVersion == "2024-11-05", "completions"
	case "tools/list", "tools/call":
		ok, need = c.Tools != nil, "tools"
	case "prompts/list", "prompts/get":
		ok, need = c.Prompts != nil, "prompts"
	}
	if ok {
		return nil
	}
	return newError(KindUnsupported, ErrNotSupported, method, uri, "the server did not declare the %q capability; nothing was sent", need)
}

// Supports reports whether the server's capabilities allow method (the same
// rule the typed calls apply before sending).
func (s *Session) Supports(method string) bool { return s.gate(method, "") == nil }

// ListResources follows nextCursor through every page of resources/list.
func (s *Session) ListResources(ctx context.Context, onPage PageFunc[Resource]) (*List[Resource], error) {
	return listAll(ctx, s, "resources/list", "resources", validResource, onPage)
}

// ListTemplates follows nextCursor through every page of resources/templates/list.
func (s *Session) ListTemplates(ctx context.Context, onPage PageFunc[ResourceTemplate]) (*List[ResourceTemplate], error) {
	return listAll(ctx, s, "resources/templates/list", "resourceTemplates", validTemplate, onPage)
}

// ListTools follows nextCursor through every page of tools/list.
func (s *Session) ListTools(ctx context.Context) (*List[Tool], error) {
	return listAll(ctx, s, "tools/list", "tools", validTool, nil)
}

func validResource(r *Resource) error {
	switch {
	case r.URI == "":
		return errors.New(`missing "uri"`)
	case r.Name == "":
		return fmt.Errorf(`resource %q: missing "name"`, r.URI)
	}
	return nil
}

func validTemplate(t *ResourceTemplate) error {
	switch {
	case t.URITemplate == "":
		return errors.New(`missing "uriTemplate"`)
	case t.Name == "":
		return fmt.Errorf(`template %q: missing "name"`, t.URITemplate)
	}
	return nil
}

func validTool(t *Tool) error {
	if t.Name == "" {
		return errors.New(`missing "name"`)
	}
	return nil
}

func listAll[T any](ctx context.Context, s *Session, method, field string, valid func(*T) error, onPage PageFunc[T]) (*List[T], error) {
	out := &List[T]{}
	if err := s.gate(method, ""); err != nil {
		return out, err
	}
	seen := map[string]bool{}
	cursor := ""
	var bytesRead int64
	for {
		if out.Pages >= s.o.PageCap {
			out.Truncated = true
			return out, newError(KindLimit, nil, method, "", "stopped after the page cap of %d pages; returning the %d entries gathered", s.o.PageCap, len(out.Items))
		}
		var params []byte // {"cursor":...} as json.Marshal writes it (jsonenc.go)
		if out.Pages > 0 {
			// In the browser, give the page its thread back between pages
			// when Go has held it long (the next page's answer waits behind it).
			pace.Yield(ctx)
			params = append(appendJSONString(append(params, `{"cursor":`...), cursor), '}')
		}
		var raw stdjson.RawMessage
		if _, err := s.callMeta(ctx, method, "", params, &raw); err != nil {
			out.Truncated = out.Pages > 0
			return out, err
		}
		if bytesRead += int64(len(raw)); bytesRead > s.o.MaxListBytes && out.Pages > 0 {
			out.Truncated = true
			return out, newError(KindLimit, nil, method, "", "stopped after %d bytes of pages (the bound is %d); returning the %d entries gathered", bytesRead, s.o.MaxListBytes, len(out.Items))
		}
		items, array, rawCursor, fast := scanPage(raw, field)
		if !fast {
			// Not the plain shape: encoding/json decides, and names what is wrong.
			var fields map[string]stdjson.RawMessage
			if err := stdjson.Unmarshal(raw, &fields); err != nil {
				out.Truncated = true
				return out, newError(KindProtocol, ErrProtocol, method, "", "malformed result: %v", err)
			}
			var items []stdjson.RawMessage
			if f, ok := fields[field]; !ok {
				out.Truncated = true
				return out, newError(KindProtocol, ErrProtocol, method, "", "result has no %q array", field)
			} else if err := stdjson.Unmarshal(f, &items); err != nil {
				out.Truncated = true
				return out, newError(KindProtocol, ErrProtocol, method, "", "%q is not an array: %v", field, err)
			}
			array, rawCursor, items = fields[field], fields["nextCursor"], nil
			if string(rawCursor) == "null" {
				rawCursor = nil
			}
		}
		var nextCursor string
		hasNext := false
		if rawCursor != nil {
			if rawCursor[0] != '"' {
				out.Truncated = true
				return out, newError(KindProtocol, ErrProtocol, method, "", "nextCursor is not a string: %s", rawCursor)
			}
			fastString(rawCursor, &nextCursor)
			// 2026-07-28: an empty-string cursor is a cursor, not the end.
			hasNext = nextCursor != "" || s.modern
		}
		if s.modern {
			m, _ := scanResultMeta(raw)
			out.TTL, out.CacheScope = m.ttl, m.cacheScope
		}
		out.Pages++
		good, bad := decodePage(array, items, method, out.Pages, valid)
		if room := s.o.MaxDescriptors - len(out.Items); len(good) > room {
			good = good[:max(room, 0)]
			out.Items = append(out.Items, good...)
			out.Invalid = append(out.Invalid, bad...)
			out.Truncated = true
			if onPage != nil {
				onPage(good, bad)
			}
			return out, newError(KindLimit, nil, method, "", "stopped at %d entries (the maxDescriptors bound); the server has more", s.o.MaxDescriptors)
		}
		out.Items = append(out.Items, good...)
		out.Invalid = append(out.Invalid, bad...)
		if onPage != nil {
			onPage(good, bad)
		}
		if !hasNext {
			return out, nil
		}
		if seen[nextCursor] {
			out.Truncated = true
			return out, newError(KindProtocol, ErrProtocol, method, "", "the server repeated cursor %q; stopped with the %d entries gathered", nextCursor, len(out.Items))
		}
		seen[nextCursor] = true
		cursor = nextCursor
	}
}

// A PartsError reports parts of a read that did not decode. The contents
// slice returned with it keeps its order: each bad index holds a part with
// only its URI (when readable) and must be shown as an error.
type PartsError struct {
	URI   string
	Parts map[int]error
}

func (e *PartsError) Error() string {
	return fmt.Sprintf("resources/read %q: %d malformed part(s)", e.URI, len(e.Parts))
}

// ReadResource reads uri and returns every part of contents, in order, with
// the presence of text and blob kept. A result without a contents array is a
// protocol error. Malformed parts are reported in a [*PartsError] alongside
// the good ones.
func (s *Session) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	r, err := s.Read(ctx, uri)
	if r == nil {
		return nil, err
	}
	return r.Contents, err
}

// A ReadResult is a resources/read result with its caching fields.
type ReadResult struct {
	Contents []ResourceContents
	// TTL is how long the result may be reused for the same read
	// (2026-07-28 ttlMs); 0 means re-read every time. Zero in older
	// revisions, whatever the server sends.
	TTL time.Duration
	// CacheScope is the result's cacheScope: "private" (never share across
	// authorization contexts), "public" or "".
	CacheScope string
}

// Read is [Session.ReadResource] with the result's caching fields. The
// error may be a [*PartsError] with a result.
func (s *Session) Read(ctx context.Context, uri string) (*ReadResult, error) {
	const method = "resources/read"
	if err := s.gate(method, uri); err != nil {
		return nil, err
	}
	var raw stdjson.RawMessage
	meta, err := s.callMeta(ctx, method, uri, readParams(uri), &raw)
	if err != nil {
		return nil, err
	}
	contents, err := DecodeReadResult(uri, raw)
	if contents == nil && err != nil {
		return nil, err
	}
	return &ReadResult{Contents: contents, TTL: meta.ttl, CacheScope: meta.cacheScope}, err
}

// readParams is resources/read's params for uri as json.Marshal writes
// {"uri": uri} (jsonenc.go): encoding/json's reflection over a map cost
// ~0.4 ms of every read in the page (a CPU profile of image re-reads).
func readParams(uri string) []byte {
	b := make([]byte, 0, len(`{"uri":""}`)+len(uri)+8)
	b = append(b, `{"uri":`...)
	return append(appendJSONString(b, uri), '}')
}

// DecodeReadResult decodes the result of resources/read for uri.
func DecodeReadResult(uri string, raw []byte) ([]ResourceContents, error) {
	out, err := decodeReadResult(uri, raw)
	claimHeld(out)
	return out, err
}

// claimHeld gives each part whose blob is a token socket.js offered
// (internal/blob) its bytes. Any other blob stays what the server sent.
func claimHeld(cs []ResourceContents) {
	for i := range cs {
		if b := cs[i].Blob; b != nil && len(*b) < 128 {
			cs[i].Held = blob.Claim(*b)
		}
	}
}

func decodeReadResult(uri string, raw []byte) ([]ResourceContents, error) {
	if out, ok := decodeContentsFast(raw); ok {
		return out, nil
	}
	var res struct {
		Contents *[]ResourceContents `json:"contents"`
	}
	if err := stdjson.Unmarshal(raw, &res); err == nil {
		if res.Contents == nil {
			return nil, newError(KindProtocol, ErrProtocol, "resources/read", uri, "result has no \"contents\" array")
		}
		return *res.Contents, nil
	}
	// Slow path: find the bad parts and keep the rest.
	var loose struct {
		Contents *[]stdjson.RawMessage `json:"contents"`
	}
	if err := stdjson.Unmarshal(raw, &loose); err != nil {
		return nil, newError(KindProtocol, ErrProtocol, "resources/read", uri, "malformed result: %v", err)
	}
	if loose.Contents == nil {
		return nil, newError(KindProtocol, ErrProtocol, "resources/read", uri, "result has no \"contents\" array")
	}
	out := make([]ResourceContents, len(*loose.Contents))
	perr := &PartsError{URI: uri, Parts: map[int]error{}}
	for i, p := range *loose.Contents {
		if err := stdjson.Unmarshal(p, &out[i]); err != nil {
			var u struct {
				URI string `json:"uri"`
			}
			stdjson.Unmarshal(p, &u)
			out[i] = ResourceContents{URI: u.URI}
			perr.Parts[i] = fmt.Errorf("part %d: %v", i, err)
		}
	}
	return out, perr
}

// Subscribe asks for notifications/resources/updated about uri. It is gated
// on resources.subscribe.
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if err := s.gate("resources/subscribe", uri); err != nil {
		return err
	}
	return s.call(ctx, "resources/subscribe", uri, map[string]string{"uri": uri}, nil)
}

// Unsubscribe undoes [Session.Subscribe].
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	if err := s.gate("resources/unsubscribe", uri); err != nil {
		return err
	}
	return s.call(ctx, "resources/unsubscribe", uri, map[string]string{"uri": uri}, nil)
}

// Complete asks completion/complete for values of one argument of a resource
// template (ref/resource). args holds variables already chosen.
func (s *Session) Complete(ctx context.Context, uriTemplate, name, value string, args map[string]string) (*Completion, error) {
	return s.complete(ctx, map[string]string{"type": "ref/resource", "uri": uriTemplate}, uriTemplate, name, value, args)
}

// complete performs completion/complete for ref; label names the template
// or prompt in errors.
func (s *Session) complete(ctx context.Context, ref map[string]string, label, name, value string, args map[string]string) (*Completion, error) {
	const method = "completion/complete"
	if err := s.gate(method, label); err != nil {
		return nil, err
	}
	params := map[string]any{
		"ref":      ref,
		"argument": map[string]string{"name": name, "value": value},
	}
	if len(args) > 0 {
		params["context"] = map[string]any{"arguments": args}
	}
	var res struct {
		Completion *Completion `json:"completion"`
	}
	if err := s.call(ctx, method, label, params, &res); err != nil {
		return nil, err
	}
	if res.Completion == nil {
		return nil, newError(KindProtocol, ErrProtocol, method, label, "result has no \"completion\" object")
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return res.Completion, nil
}

// CallTool calls a tool and returns its raw CallToolResult, so that content
// blocks of types this client does not know pass through untouched (the
// dedupe filter works on it). A tool's own failure comes back in-band with
// isError; JSON-RPC errors (unknown tool...) are returned as errors.
func (s *Session) CallTool(ctx context.Context, name string, args any) (stdjson.RawMessage, error) {
	const method = "tools/call"
	if err := s.gate(method, ""); err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	var raw stdjson.RawMessage
	if err := s.call(ctx, method, "", map[string]any{"name": name, "arguments": args}, &raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, newError(KindProtocol, ErrProtocol, method, "", "tool %q: result is not an object", name)
	}
	return raw, nil
}

// decodePage decodes a page's entries, skipping (and naming) the malformed
// ones. Resources and templates take the fast path entry by entry; other
// types are decoded in one encoding/json call (under wasm 4-5× faster than
// item by item), and item by item only when that fails, to find and skip
// the malformed entries. items are the array's items when scanPage found
// them (nil: found here).
func decodePage[T any](array []byte, items [][]byte, method string, page int, valid func(*T) error) (good []T, bad []error) {
	if items == nil {
		scanArray(array, 0, 1, func(_ int, vs, ve int) error { // validated already
			items = append(items, array[vs:ve])
			return nil
		})
	}
	good = make([]T, 0, len(items))
	if !hasFastItem[T]() {
		if stdjson.Unmarshal(array, &good) == nil && len(good) == len(items) {
			ok := true
			for i := range good {
				if valid(&good[i]) != nil {
					ok = false
					break
				}
			}
			if ok {
				return good, nil
			}
		}
		good = good[:0]
	}
	for i, it := range items {
		var v T
		var err error
		if !fastItem(it, &v) {
			v = *new(T)
			err = stdjson.Unmarshal(it, &v)
		}
		if err == nil {
			err = valid(&v)
		}
		if err != nil {
			bad = append(bad, fmt.Errorf("%s page %d entry %d: %v", method, page, i, err))
			continue
		}
		good = append(good, v)
	}
	return good, bad
}
