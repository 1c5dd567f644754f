//go:build !js

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// route takes the browser's requests of the 2026-07-28 revision (and their
// cancellation) away from go-sdk's session transport: each becomes an
// independent POST under a context of its own, which a notifications/cancelled
// for it cancels (the revision's cancellation over HTTP is closing the
// request's stream; nothing is forwarded). It runs in the browser's read
// order, so a cancellation always finds the request it names.
//
// A notifications/cancelled for a 2025-11-25 request is forwarded (that
// revision's cancellation), and ends the request's POST: the revision says
// a server should not answer a cancelled request (the TypeScript SDK does
// not), so its stream and its connection would otherwise be held until the
// session ends. (Its slot was freed as the cancellation was read: without
// that, -max-upstream-requests cancellations left the browser nothing.)
func (u *httpUpstream) route(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	if !req.IsCall() {
		if req.Method != "notifications/cancelled" {
			return false
		}
		id, ok := cancelledID(req)
		if !ok {
			return false
		}
		u.mu.Lock()
		call, found := u.calls[id]
		if found {
			call.byBrowser = true
		}
		u.mu.Unlock()
		if found {
			call.cancel()
			return true
		}
		u.endLegacy(id) // its slot was freed as the cancellation was read
		return false
	}
	version := modernVersion(req)
	if version == "" {
		u.startLegacy(req)
		return false
	}
	ctx, cancel := context.WithCancel(u.ctx)
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		cancel()
		u.ended(req.ID)
		return true
	}
	if prev, dup := u.calls[req.ID]; dup {
		prev.cancel() // the browser reused an id in flight: the newer request wins
	}
	call := &modernCall{cancel: cancel}
	u.calls[req.ID] = call
	u.wg.Add(1)
	u.mu.Unlock()
	go func() {
		defer u.wg.Done()
		defer cancel()
		u.relayModern(ctx, req, version)
		u.mu.Lock()
		if u.calls[req.ID] == call {
			delete(u.calls, req.ID)
		}
		byBrowser := call.byBrowser
		u.mu.Unlock()
		if !byBrowser {
			// Its slot, unless the browser's cancellation freed it as it
			// was read: a request that reused the id since holds that one.
			u.ended(req.ID)
		}
	}()
	return true
}

// A modernCall is a 2026-07-28 request in flight.
type modernCall struct {
	cancel    context.CancelFunc
	byBrowser bool // under httpUpstream.mu: the browser cancelled it (its slot is free already)
}

// An outcome is how one modern POST ended.
type outcome struct {
	resp   *jsonrpc.Response // the JSON-RPC answer, not yet delivered
	answer *httpAnswer       // an HTTP answer that carries none
	err    error             // no HTTP answer at all
}

// headerMismatch reports whether the server rejected the request's headers
// (-32020), in an HTTP error body or a JSON-RPC answer.
func (o outcome) headerMismatch() bool {
	const codeHeaderMismatch = -32020
	switch {
	case o.resp != nil:
		we := wireError(o.resp)
		return we != nil && we.Code == codeHeaderMismatch
	case o.answer != nil && o.answer.wire != nil:
		return o.answer.wire.Code == codeHeaderMismatch
	}
	return false
}

// relayModern posts req and delivers what comes back: notifications on its
// stream as they arrive, then its answer. A request the browser cancelled
// gets no answer. A header mismatch (-32020) on tools/call is retried once
// after re-listing the tools (their x-mcp-header schemas may have changed);
// a mismatch on an encoded Mcp-Name is retried once with the name as is
// (go-sdk v1.8.0 servers compare Mcp-Name without decoding the
// =?base64?...?= form).
func (u *httpUpstream) relayModern(ctx context.Context, req *jsonrpc.Request, version string) {
	h := u.modernHeaders(req, version, false)
	o := u.post(ctx, req, h)
	if ctx.Err() == nil && o.headerMismatch() {
		if req.Method == "tools/call" {
			u.relist(ctx, req, version)
		}
		if h2 := u.modernHeaders(req, version, true); !sameHeaders(h, h2) {
			u.g.Log.Info("gateway: the upstream rejected the request's headers; retrying once", "method", req.Method,
				"sent", fmt.Sprint(mcpHeaders(h)), "now", fmt.Sprint(mcpHeaders(h2)))
			o = u.post(ctx, req, h2)
		}
	}
	if ctx.Err() != nil {
		return // cancelled: the browser expects no answer; or the end
	}
	var answer *jsonrpc.Response
	switch {
	case o.resp != nil:
		answer = o.resp
		answer.ID = req.ID
		if req.Method == "tools/list" && answer.Error == nil {
			res, rejected, _ := u.tools.learn(answer.Result)
			for _, r := range rejected {
				u.g.Log.Warn("gateway: left a tool with an invalid x-mcp-header out of tools/list", "tool", r)
			}
			answer.Result = res
		}
	case o.answer != nil:
		if !o.answer.permanent() || o.answer.wire != nil {
			u.g.Log.Info("gateway: the upstream refused a request", "method", req.Method, "status", o.answer.status, "reason", o.answer.reason)
		} else {
			u.g.Log.Warn("gateway: the upstream refused a request for good", "method", req.Method, "status", o.answer.status, "reason", o.answer.reason)
		}
		answer = &jsonrpc.Response{ID: req.ID, Error: o.answer.rpcError(req.Method)}
	default:
		u.g.Log.Warn("gateway: upstream request failed", "method", req.Method, "err", o.err)
		answer = &jsonrpc.Response{ID: req.ID, Error: unreachable(o.err)}
	}
	u.deliver(ctx, answer)
}

// deliver hands msg to the browser side, unless ctx ends first.
func (u *httpUpstream) deliver(ctx context.Context, msg jsonrpc.Message) bool {
	select {
	case u.extra <- msg:
		return true
	case <-ctx.Done():
		return false
	}
}

// modernHeaders builds the revision's request headers for req: the
// -upstream-header headers, MCP-Protocol-Version equal to the request's
// _meta value, Mcp-Method, Mcp-Name (tools/call, prompts/get,
// resources/read; =?base64?...?= unless header-safe, or as is with rawName
// when that can be sent), and Mcp-Param-* for the arguments of a tools/call
// whose schema marks them with x-mcp-header. No Mcp-Session-Id.
func (u *httpUpstream) modernHeaders(req *jsonrpc.Request, version string, rawName bool) http.Header {
	h := http.Header{}
	for k, v := range u.g.Header {
		h[k] = append([]string(nil), v...)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set(headerProtocolVersion, version)
	h.Set(headerMethod, req.Method)
	if name, ok := nameOf(req); ok {
		v := encodeHeaderValue(name)
		if rawName && sendableRaw(name) {
			v = name
		}
		h.Set(headerName, v)
	}
	if req.Method == "tools/call" {
		if name, ok := nameOf(req); ok {
			for k, v := range paramHeaders(u.tools.bindings(name), req.Params) {
				h[k] = v
			}
		}
	}
	return h
}

// mcpHeaders is the Mcp-* part of h, for logs.
func mcpHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if len(k) > 4 && http.CanonicalHeaderKey(k[:4]) == "Mcp-" && len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}

func sameHeaders(a, b http.Header) bool {
	return fmt.Sprint(mcpHeaders(a)) == fmt.Sprint(mcpHeaders(b))
}

// maxRelistPages bounds the gateway's own tools/list paging.
const maxRelistPages = 50

// relist lists the upstream's tools again for their x-mcp-header schemas,
// with the _meta of req (the call that met a header mismatch). The answers
// are the gateway's own; none reaches the browser.
func (u *httpUpstream) relist(ctx context.Context, req *jsonrpc.Request, version string) {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(req.Params, &p)
	seen := map[string]bool{}
	var cursor *string
	for page := range maxRelistPages {
		params := map[string]any{}
		if len(p.Meta) > 0 {
			params["_meta"] = p.Meta
		}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		raw, _ := json.Marshal(params)
		id, _ := jsonrpc.MakeID(fmt.Sprintf("mcphost-gateway-tools-%d", page))
		list := &jsonrpc.Request{ID: id, Method: "tools/list", Params: raw}
		o := u.post(ctx, list, u.modernHeaders(list, version, false))
		if o.resp == nil || o.resp.Error != nil {
			return
		}
		_, _, next := u.tools.learn(o.resp.Result)
		if next == nil || seen[*next] {
			return
		}
		seen[*next] = true
		cursor = next
	}
}

// errNoAnswer reports a response stream that ended before its answer.
var errNoAnswer = errors.New("the response stream ended before the JSON-RPC response")

// post sends req as one POST with the headers h. Notifications on an SSE
// answer are delivered as they arrive; the answer itself is returned.
func (u *httpUpstream) post(ctx context.Context, req *jsonrpc.Request, h http.Header) outcome {
	body, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return outcome{err: err}
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u.g.URL, bytes.NewReader(body))
	if err != nil {
		return outcome{err: err}
	}
	hr.Header = h
	resp, err := u.modern.Do(hr)
	if err != nil {
		return outcome{err: err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return outcome{answer: readAnswer(resp, false)}
	}
	defer resp.Body.Close()
	broken := func(why string) outcome {
		return outcome{answer: &httpAnswer{status: resp.StatusCode, reason: why}}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, u.g.ReadLimit+1))
		if err != nil {
			if ctx.Err() != nil {
				return outcome{err: ctx.Err()}
			}
			return broken(fmt.Sprintf("reading the response body: %v", err))
		}
		if int64(len(data)) > u.g.ReadLimit {
			return broken(fmt.Sprintf("the response is over the gateway's read limit (%d bytes)", u.g.ReadLimit))
		}
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			return broken(fmt.Sprintf("the body is not one JSON-RPC message: %v", err))
		}
		r, ok := msg.(*jsonrpc.Response)
		if !ok {
			return broken("the body is a JSON-RPC request, not the response")
		}
		return outcome{resp: r}
	case "text/event-stream":
		var final *jsonrpc.Response
		errDone := errors.New("answered")
		err := readSSE(resp.Body, "", u.g.ReadLimit, func(ev sseEvent) error {
			if len(ev.data) == 0 || (ev.name != "" && ev.name != "message") {
				return nil
			}
			msg, err := jsonrpc.DecodeMessage(ev.data)
			if err != nil {
				u.g.Log.Warn("gateway: skipped an undecodable event", "method", req.Method, "err", err, "bytes", len(ev.data))
				return nil
			}
			if r, ok := msg.(*jsonrpc.Response); ok && r.ID == req.ID {
				final = r
				return errDone
			}
			if !u.deliver(ctx, msg) {
				return ctx.Err()
			}
			return nil
		})
		switch {
		case final != nil:
			return outcome{resp: final}
		case ctx.Err() != nil:
			return outcome{err: ctx.Err()}
		case err != nil:
			return broken(fmt.Sprintf("the response stream broke: %v", err))
		}
		return broken(errNoAnswer.Error())
	}
	return broken(fmt.Sprintf("no JSON-RPC response (content type %q)", ct))
}
