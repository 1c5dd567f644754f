package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall/js"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/pace"
)

// errAborted is the cancellation cause of a call whose AbortSignal fired.
var errAborted = errors.New("aborted by the caller's signal")

var (
	jsObject     = js.Global().Get("Object")
	jsArray      = js.Global().Get("Array")
	jsUint8Array = js.Global().Get("Uint8Array")
	jsParse      = js.Global().Get("JSON").Get("parse")
)

// api is the state behind globalThis.__mcphost_go: the live hosts and the
// cancel functions of calls in flight, by the ids mcphost.js gave them.
type api struct {
	mu       sync.Mutex
	hosts    map[int]*host.Host
	nextHost int
	calls    map[int]context.CancelCauseFunc
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == renderArg {
		renderMain()
		return
	}
	beginStartupPace()
	a := &api{hosts: map[int]*host.Host{}, calls: map[int]context.CancelCauseFunc{}}
	exports := jsObject.New()
	// The functions live as long as the program, which never returns: they
	// are released only if main ever does.
	var funcs []js.Func
	export := func(name string, fn func(args []js.Value) any) {
		f := js.FuncOf(func(_ js.Value, args []js.Value) any { return fn(args) })
		funcs = append(funcs, f)
		exports.Set(name, f)
	}
	defer func() {
		for _, f := range funcs {
			f.Release()
		}
	}()

	// Asynchronous: (hostID, callID, timeoutMs, done, ...args).
	export("connect", a.connect)
	export("close", a.async(a.closeHost))
	export("resources", a.async(a.resources))
	export("templates", a.async(a.templates))
	export("tools", a.async(a.tools))
	export("prompts", a.async(a.prompts))
	export("getPrompt", a.async(a.getPrompt))
	export("completePrompt", a.async(a.completePrompt))
	export("complete", a.async(a.complete))
	export("attach", a.async(a.attach))
	export("refresh", a.async(a.refresh))
	export("callTool", a.async(a.callTool))
	export("include", a.async(a.include))
	// Workspace restore (restore_js.go): one export for its three calls,
	// since each async export costs ~4 KB of code.
	export("restore", a.async(a.restoreOp))
	// Synchronous: (hostID, ...args) -> [err, value].
	export("cancel", a.cancel)
	export("info", a.sync(a.info))
	export("mention", a.sync(a.mention))
	export("detach", a.sync(a.detach))
	export("attachments", a.sync(a.attachments))
	export("filterToolResult", a.sync(a.filterToolResult))
	export("figures", a.sync(a.figures))
	export("expand", syncNoHost(expand))
	export("templateVars", syncNoHost(templateVars))
	js.Global().Set("__mcphost_go", exports)
	select {}
}

// ---- calling conventions ----

type asyncFn func(ctx context.Context, h *host.Host, id int, args []js.Value) (js.Value, error)

// async adapts fn to (hostID, callID, timeoutMs, done, ...args): it returns
// at once and answers done(err, value) from a goroutine, exactly once.
//
// Not inlined: inlined, each export carried its own copy of the closure
// below (~2.5 KB of code each, a dozen of them).
//
//go:noinline
func (a *api) async(fn asyncFn) func(args []js.Value) any {
	return func(args []js.Value) any {
		if len(args) < 4 || args[3].Type() != js.TypeFunction {
			return errValue(protocolError("bad call: want (hostID, callID, timeoutMs, done, ...)"))
		}
		done := args[3]
		id, callID, timeout := args[0].Int(), args[1].Int(), args[2].Float()
		a.mu.Lock()
		h := a.hosts[id]
		a.mu.Unlock()
		if h == nil {
			done.Invoke(errValue(&bridge.Error{Kind: bridge.KindUnavailable, Message: "host closed", Err: bridge.ErrClosed}), js.Undefined())
			return nil
		}
		ctx, finish := a.callContext(callID, timeout)
		rest := args[4:]
		goSpare(func() {
			v, err := js.Undefined(), error(nil)
			func() {
				defer recoverInto(&err)
				v, err = fn(ctx, h, id, rest)
			}()
			err = classifyCancel(ctx, err)
			finish()
			settle(done, v, err)
		})
		return nil
	}
}

// Asynchronous calls run on goroutines that, once done, wait for the next
// call (at most maxSpare wait) instead of ending: a new goroutine's stack
// grows by copying (runtime.copystack walks every frame's stack map, slow
// under js/wasm), several times per call until it is as deep as an
// attach needs (a CPU profile of image re-reads, Chromium 156).
const maxSpare = 4

var (
	spare  = make(chan func())
	spares atomic.Int32
)

// goSpare runs f on a waiting goroutine, or a new one.
func goSpare(f func()) {
	select {
	case spare <- f:
	default:
		go serveSpare(f)
	}
}

func serveSpare(f func()) {
	for {
		f()
		f = nil
		if spares.Add(1) > maxSpare {
			spares.Add(-1)
			return
		}
		f = <-spare
		spares.Add(-1)
	}
}

// callContext returns the context of one call: cancelled by cancel(callID)
// and bounded by timeoutMs when positive. finish releases both.
func (a *api) callContext(callID int, timeoutMs float64) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := func() {}
	if timeoutMs > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, time.Duration(timeoutMs*float64(time.Millisecond)))
		stop = c
	}
	a.mu.Lock()
	a.calls[callID] = cancel
	a.mu.Unlock()
	return ctx, func() {
		a.mu.Lock()
		delete(a.calls, callID)
		a.mu.Unlock()
		stop()
		cancel(nil)
	}
}

// settle answers done; a panic in the page's callback is not ours to report
// but must not kill the runtime.
func settle(done, v js.Value, err error) {
	defer func() { _ = recover() }()
	if err != nil {
		done.Invoke(errValue(err), js.Undefined())
		return
	}
	done.Invoke(js.Null(), v)
}

// classifyCancel makes an error caused by the caller's signal kind
// "cancelled", whatever layer noticed it.
func classifyCancel(ctx context.Context, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errAborted) {
		return err
	}
	if e, ok := bridge.AsError(err); ok && e.Kind == bridge.KindCancelled {
		return err
	}
	return &bridge.Error{Kind: bridge.KindCancelled, Message: "cancelled: " + err.Error(), Err: errAborted}
}

func recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = protocolError(fmt.Sprintf("internal error (panic): %v\n%s", r, debug.Stack()))
	}
}

func protocolError(msg string) error {
	return &bridge.Error{Kind: bridge.KindProtocol, Message: msg, Err: bridge.ErrProtocol}
}

type syncFn func(h *host.Host, args []js.Value) (js.Value, error)

// sync adapts fn to (hostID, ...args) -> [err, value].
func (a *api) sync(fn syncFn) func(args []js.Value) any {
	return func(args []js.Value) (ret any) {
		var err error
		v := js.Undefined()
		defer func() {
			if r := recover(); r != nil {
				err = protocolError(fmt.Sprintf("internal error (panic): %v\n%s", r, debug.Stack()))
			}
			ret = pair(v, err)
		}()
		if len(args) < 1 {
			err = protocolError("bad call: want (hostID, ...)")
			return
		}
		a.mu.Lock()
		h := a.hosts[args[0].Int()]
		a.mu.Unlock()
		if h == nil {
			err = &bridge.Error{Kind: bridge.KindUnavailable, Message: "host closed", Err: bridge.ErrClosed}
			return
		}
		v, err = fn(h, args[1:])
		return
	}
}

func syncNoHost(fn func(args []js.Value) (js.Value, error)) func(args []js.Value) any {
	return func(args []js.Value) (ret any) {
		var err error
		v := js.Undefined()
		defer func() {
			if r := recover(); r != nil {
				err = protocolError(fmt.Sprintf("internal error (panic): %v\n%s", r, debug.Stack()))
			}
			ret = pair(v, err)
		}()
		v, err = fn(args)
		return
	}
}

func pair(v js.Value, err error) js.Value {
	out := jsArray.New(2)
	if err != nil {
		out.SetIndex(0, errValue(err))
		out.SetIndex(1, js.Undefined())
	} else {
		out.SetIndex(0, js.Null())
		out.SetIndex(1, v)
	}
	return out
}

// cancel(callID) cancels a call in flight; unknown ids (finished calls) are
// ignored.
func (a *api) cancel(args []js.Value) any {
	if len(args) < 1 {
		return nil
	}
	a.mu.Lock()
	c := a.calls[args[0].Int()]
	a.mu.Unlock()
	if c != nil {
		c(errAborted)
	}
	return nil
}

// ---- errors ----

// errValue converts a Go error to the plain object mcphost.js turns into an
// MCPError: {message, kind, code, data, uri, method, index, serverMessage}.
func errValue(err error) js.Value {
	o := jsObject.New()
	o.Set("message", err.Error())
	var ae *attach.Error
	var ee *attach.ExpandError
	switch be, ok := bridge.AsError(err); {
	case ok:
		o.Set("kind", string(be.Kind))
		o.Set("code", float64(be.Code))
		if len(be.Data) > 0 {
			o.Set("data", string(be.Data))
		}
		if be.URI != "" {
			o.Set("uri", be.URI)
		}
		if be.Method != "" {
			o.Set("method", be.Method)
		}
		if m, ok := be.PeerMessage(); ok {
			o.Set("serverMessage", m)
		}
	case errors.As(err, &ae):
		o.Set("kind", ae.Kind)
		o.Set("code", ae.Code)
		if ae.URI != "" {
			o.Set("uri", ae.URI)
		}
		o.Set("index", ae.Index)
	case errors.As(err, &ee):
		o.Set("kind", string(bridge.KindInvalid))
		o.Set("code", 0)
		d, _ := json.Marshal(struct {
			Template string `json:"template"`
			Offset   int    `json:"offset"`
			Var      string `json:"var,omitempty"`
		}{ee.Template, ee.Offset, ee.Var})
		o.Set("data", string(d))
	default:
		o.Set("kind", string(bridge.KindPermanent))
		o.Set("code", 0)
	}
	return o
}

// ---- values ----

// parseJSON hands JSON text to the page's JSON.parse.
func parseJSON(b []byte) js.Value { return jsParse.Invoke(stringValue(jsString(b))) }

// stringPiece is the size of the pieces a large string crosses in (see
// stringValue).
const stringPiece = 64 << 10

// stringValue converts s to a JavaScript string. A string of more than two
// pieces crosses as pieces of stringPiece bytes, each cut before a byte that
// starts a UTF-8 sequence, joined by the engine: wasm_exec.js decodes a
// string with one TextDecoder call, and Chromium 156 decodes one large
// input many times slower than the same bytes in 64 KB pieces (the bench's
// 1 MB Markdown document: 10–16 ms whole, 0.5–0.7 ms in pieces and joined,
// flattened included; 1 MB of ASCII 3.4–4.8 ms against 0.2–0.3). A read's
// text and HTML cross this way, and the page's JSON. The result is the same
// string: a cut never falls inside a sequence, and an invalid sequence
// decodes to U+FFFD whether a piece ends after it or another byte follows.
func stringValue(s string) js.Value {
	if len(s) <= 2*stringPiece {
		return js.ValueOf(s)
	}
	return stringPieces(s).Call("join", "")
}

// setString sets o[key] to s, or, above two pieces, to the array of its
// pieces (stringPieces), which mcphost.js joins (fixAttachments): a string
// that comes back to Go is looked up in wasm_exec.js's table of values
// (storeValue), and for the bench's 1.6 MB of HTML that lookup alone took
// ~9 ms of the main thread (Chromium 156, CPU profile of the read's end).
func setString(o js.Value, key, s string) {
	if len(s) <= 2*stringPiece {
		o.Set(key, s)
		return
	}
	o.Set(key, stringPieces(s))
}

// stringPieces is s as an array of strings of at most stringPiece bytes
// each, cut as stringValue says.
func stringPieces(s string) js.Value {
	parts := jsArray.New()
	for i, off := 0, 0; off < len(s); i++ {
		end := min(off+stringPiece, len(s))
		for k := end; k > off && k < len(s) && end-k < utf8.UTFMax; k-- {
			if s[k]&0xC0 != 0x80 {
				end = k
				break
			}
		}
		parts.SetIndex(i, s[off:end])
		off = end
	}
	return parts
}

// jsString views b as a string for one crossing: js.ValueOf decodes the
// bytes into a JavaScript string at once, so b is not copied in Go first
// (for a 10,000-descriptor list that copy is megabytes per call). b must
// not be modified while the call runs.
func jsString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// bufPool recycles the buffers of the per-keystroke path (mention), so
// typing does not feed the garbage collector.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// attachmentsValue converts attachments: metadata as one JSON text, then
// text and HTML as strings and bytes copied once into a Uint8Array.
func attachmentsValue(atts []attach.Attachment) js.Value {
	b := make([]byte, 0, 256*len(atts)+2)
	b = append(b, '[')
	for i := range atts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAttachmentMeta(b, &atts[i], host.ForModel(&atts[i]))
	}
	b = append(b, ']')
	arr := parseJSON(b)
	for i := range atts {
		a := &atts[i]
		if !a.HasText() && a.HTML == "" && a.Bytes == nil && a.Held == nil {
			continue
		}
		o := arr.Index(i)
		if a.HasText() {
			setString(o, "text", a.Text)
		}
		if a.HTML != "" {
			setString(o, "html", a.HTML)
		}
		if a.Held != nil {
			// The bytes stayed in the page (internal/blob): the same array.
			o.Set("_held", a.Held.Box()) // mcphost.js makes it "bytes" (fixAttachments)
		} else if a.Bytes != nil {
			u := jsUint8Array.New(len(a.Bytes))
			js.CopyBytesToJS(u, a.Bytes)
			o.Set("bytes", u)
		}
	}
	return arr
}

func strArg(args []js.Value, i int) string {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return ""
	}
	return args[i].String()
}

// pairsArg reads a flat [k1, v1, k2, v2, ...] array (mcphost.js flattens
// records so no JSON crosses for them).
func pairsArg(args []js.Value, i int) map[string]string {
	if i >= len(args) || args[i].Type() != js.TypeObject {
		return nil
	}
	a := args[i]
	n := a.Length()
	m := make(map[string]string, n/2)
	for j := 0; j+1 < n; j += 2 {
		m[a.Index(j).String()] = a.Index(j + 1).String()
	}
	return m
}

// ---- connect and close ----

// connect(callID, url, options, onEvent, done).
func (a *api) connect(args []js.Value) any {
	if len(args) < 5 || args[4].Type() != js.TypeFunction {
		return errValue(protocolError("bad call: want (callID, url, options, onEvent, done)"))
	}
	callID, url, o, onEvent, done := args[0].Int(), args[1].String(), args[2], args[3], args[4]
	opts, err := hostOptions(o)
	if err != nil {
		done.Invoke(errValue(err), js.Undefined())
		return nil
	}
	opts.OnEvent = func(e host.Event) {
		defer func() { _ = recover() }() // a throwing listener must not stop the queue
		detail, parts := eventValue(e)
		onEvent.Invoke(e.Type, detail, parts)
	}
	// The host bounds connecting itself (ConnectTimeout, retries inside):
	// the call's context only carries the page's signal.
	ctx, finish := a.callContext(callID, 0)
	go func() {
		var h *host.Host
		var err error
		func() {
			defer recoverInto(&err)
			h, err = host.Connect(ctx, url, opts)
		}()
		err = classifyCancel(ctx, err)
		finish()
		if err != nil {
			settle(done, js.Undefined(), err)
			return
		}
		a.mu.Lock()
		a.nextHost++
		id := a.nextHost
		a.hosts[id] = h
		a.mu.Unlock()
		settle(done, js.ValueOf(id), nil)
		endStartupPaceAfter(h)
	}()
	return nil
}

// hostOptions reads the normalized options object mcphost.js passes.
func hostOptions(o js.Value) (*host.Options, error) {
	opts := &host.Options{Digest: webCryptoDigest}
	if o.Type() != js.TypeObject {
		return opts, nil
	}
	ms := func(k string) time.Duration {
		v := o.Get(k)
		if v.Type() != js.TypeNumber || v.Float() <= 0 {
			return 0
		}
		return time.Duration(v.Float() * float64(time.Millisecond))
	}
	num := func(k string) int64 {
		v := o.Get(k)
		if v.Type() != js.TypeNumber || v.Float() <= 0 {
			return 0
		}
		return int64(v.Float())
	}
	opts.Timeout, opts.ToolTimeout, opts.RefreshDeadline = ms("timeoutMs"), ms("toolTimeoutMs"), ms("refreshDeadlineMs")
	opts.ConnectTimeout = ms("connectTimeoutMs")
	if v := o.Get("acceptImages"); v.Type() == js.TypeObject {
		n := v.Length()
		opts.Attach.AcceptImages = make([]string, 0, n)
		for i := 0; i < n; i++ {
			opts.Attach.AcceptImages = append(opts.Attach.AcceptImages, v.Index(i).String())
		}
	}
	opts.Attach.RemoteImages = o.Get("remoteImages").Truthy()
	if r := o.Get("render"); r.Type() == js.TypeFunction {
		opts.Attach.Markdown = workerMarkdown(r, float64(ms("renderBudgetMs")/time.Millisecond))
	}
	opts.Attach.MaxPartBytes, opts.Attach.MaxReadBytes = num("maxPartBytes"), num("maxReadBytes")
	opts.MaxDescriptors = int(num("maxDescriptors"))
	if v := o.Get("maxModelTokens"); v.Type() == js.TypeNumber {
		opts.MaxModelTokens = int64(v.Float()) // mcphost.js sends -1 for Infinity (no bound)
	}
	if v := o.Get("clientInfo"); v.Type() == js.TypeString {
		if err := json.Unmarshal([]byte(v.String()), &opts.ClientInfo); err != nil {
			return nil, &bridge.Error{Kind: bridge.KindInvalid, Message: "options.clientInfo: " + err.Error()}
		}
	}
	if v := o.Get("token"); v.Type() == js.TypeString {
		opts.Token = v.String()
	}
	opts.NoReconnect = o.Get("reconnect").Type() == js.TypeBoolean && !o.Get("reconnect").Bool()
	if v := o.Get("protocol"); v.Type() == js.TypeString && v.String() != "auto" {
		opts.Protocol = v.String()
	}
	return opts, nil
}

// eventValue returns an event's detail as JSON text and, for "updated", its
// parts as a separate value (so text and bytes cross without JSON).
func eventValue(e host.Event) (string, js.Value) {
	o := openObj(nil)
	switch e.Type {
	case host.EventUpdated:
		o.str("uri", e.URI)
		return string(o.close()), attachmentsValue(e.Parts)
	case host.EventStale:
		o.str("uri", e.URI)
		o.str("reason", e.Reason)
	case host.EventGone, host.EventSuperseded, host.EventFresh:
		o.str("uri", e.URI)
	case host.EventListProgress:
		o.int("resources", int64(e.Resources))
		o.int("templates", int64(e.Templates))
		o.bool("done", e.Done)
		o.bool("truncated", e.Truncated)
		o.strs("errors", e.Errors, false)
	case host.EventDisconnected:
		o.str("reason", e.Reason)
	case host.EventRestored:
		return string(o.close()), resultsValue(e.Restored)
	}
	return string(o.close()), js.Undefined()
}

func (a *api) closeHost(_ context.Context, h *host.Host, id int, _ []js.Value) (js.Value, error) {
	a.mu.Lock()
	delete(a.hosts, id)
	a.mu.Unlock()
	return js.Undefined(), h.Close()
}

// ---- asynchronous methods ----

func (a *api) resources(ctx context.Context, h *host.Host, _ int, _ []js.Value) (js.Value, error) {
	rs, _, err := h.Resources(ctx)
	if err != nil {
		return js.Undefined(), err
	}
	return parseJSON(appendResources(make([]byte, 0, resourcesCap(rs)), rs)), nil
}

func (a *api) templates(ctx context.Context, h *host.Host, _ int, _ []js.Value) (js.Value, error) {
	ts, _, err := h.Templates(ctx)
	if err != nil {
		return js.Undefined(), err
	}
	return parseJSON(appendTemplates(make([]byte, 0, 160*len(ts)+2), ts)), nil
}

func (a *api) tools(ctx context.Context, h *host.Host, _ int, _ []js.Value) (js.Value, error) {
	ts, err := h.Tools(ctx)
	if err != nil {
		return js.Undefined(), err
	}
	// Each tool as on the wire, plus ui (its _meta.ui) and modelVisible.
	type tool struct {
		bridge.Tool
		UI           json.RawMessage `json:"ui,omitempty"`
		ModelVisible bool            `json:"modelVisible"`
	}
	out := make([]tool, len(ts))
	for i := range ts {
		out[i].Tool = ts[i]
		out[i].UI, out[i].ModelVisible = host.ToolUI(ts[i].Meta)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return js.Undefined(), err
	}
	return parseJSON(b), nil
}

func (a *api) prompts(ctx context.Context, h *host.Host, _ int, _ []js.Value) (js.Value, error) {
	ps, err := h.Prompts(ctx)
	if err != nil {
		return js.Undefined(), err
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return js.Undefined(), err
	}
	return parseJSON(b), nil
}

// getPrompt(..., name, [k, v, ...]): the messages as JSON, each embedded
// document's parts added as attachment values (text and bytes cross as
// they do for attach).
func (a *api) getPrompt(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	r, err := h.GetPrompt(ctx, strArg(args, 0), pairsArg(args, 1))
	if err != nil {
		return js.Undefined(), err
	}
	type message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	msgs := make([]message, len(r.Messages))
	for i, m := range r.Messages {
		msgs[i] = message{Role: m.Role, Content: m.Content}
	}
	b, err := json.Marshal(struct {
		Name        string    `json:"name"`
		Description string    `json:"description"`
		Messages    []message `json:"messages"`
		Dropped     any       `json:"dropped"`
		Superseded  []string  `json:"superseded"`
	}{r.Name, r.Description, msgs, r.Dropped, r.Superseded})
	if err != nil {
		return js.Undefined(), err
	}
	v := parseJSON(b)
	jm := v.Get("messages")
	for i, m := range r.Messages {
		if m.Parts != nil {
			jm.Index(i).Set("parts", attachmentsValue(m.Parts))
		}
	}
	return v, nil
}

// completePrompt(..., prompt, argName, value, [k, v, ...]).
func (a *api) completePrompt(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	return completionValue(h.CompletePrompt(ctx, strArg(args, 0), strArg(args, 1), strArg(args, 2), pairsArg(args, 3)))
}

// complete(..., uriTemplate, argName, value, [k, v, ...]).
func (a *api) complete(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	return completionValue(h.Complete(ctx, strArg(args, 0), strArg(args, 1), strArg(args, 2), pairsArg(args, 3)))
}

// completionValue is a completion/complete answer as JavaScript sees it
// (values always an array).
func completionValue(c *bridge.Completion, err error) (js.Value, error) {
	if err != nil {
		return js.Undefined(), err
	}
	if c.Values == nil {
		c.Values = []string{}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return js.Undefined(), err
	}
	return parseJSON(b), nil
}

// yieldBeforeValue gives the page its thread back before an attachment's
// text and HTML cross into JavaScript, when Go has held the task for
// pace.Slice and what crosses is large (crossingLarge): for a 1.3 MB
// changelog the Worker's answer (the HTML copied into Go, the ledger's
// digest) and the crossing (its strings, 40–50 ms, and mcphost.js joining
// them) made one task of 100–130 ms in Chromium here; as two, each stays
// under the hostile-input bound of 100 ms. A small crossing does not yield:
// a yield lets the browser run whatever it queued first, and after a fresh
// 1.8 MB image read (its bytes held in the page, so almost nothing crosses)
// that was a collection of the frame's garbage, 50–70 ms added to the read's
// promise in half the reads (the bench's "new bytes every read" row: 1.7–1.9×
// the floor with the yield, 1.1–1.2× without, 4 alternating pairs).
func yieldBeforeValue(ctx context.Context, atts []attach.Attachment) {
	if crossingSize(atts) >= crossingLarge {
		pace.Yield(ctx)
	}
}

// crossingLarge is the size of text, HTML and copied bytes from which an
// attachment's crossing into JavaScript is worth a task of its own: ~4 ms
// of strings at the 15 ms per MB measured in the page.
const crossingLarge = 256 << 10

// crossingSize is what attachmentsValue copies into JavaScript: text, HTML
// and bytes not held in the page.
func crossingSize(atts []attach.Attachment) int {
	n := 0
	for i := range atts {
		a := &atts[i]
		n += len(a.Text) + len(a.HTML)
		if a.Held == nil {
			n += len(a.Bytes)
		}
	}
	return n
}

func (a *api) attach(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	atts, err := h.Attach(ctx, strArg(args, 0))
	if err != nil {
		return js.Undefined(), err
	}
	yieldBeforeValue(ctx, atts)
	return attachmentsValue(atts), nil
}

func (a *api) include(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	atts, err := h.Include(ctx, strArg(args, 0))
	if err != nil {
		return js.Undefined(), err
	}
	yieldBeforeValue(ctx, atts)
	return attachmentsValue(atts), nil
}

func (a *api) refresh(ctx context.Context, h *host.Host, _ int, _ []js.Value) (js.Value, error) {
	return js.Undefined(), h.Refresh(ctx)
}

// callTool(..., name, argsJSON).
func (a *api) callTool(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	var params any
	if s := strArg(args, 1); s != "" {
		params = json.RawMessage(s)
	}
	tr, err := h.CallTool(ctx, strArg(args, 0), params)
	if err != nil {
		return js.Undefined(), err
	}
	return toolResultValue(tr), nil
}

func toolResultValue(tr *host.ToolResult) js.Value {
	o := openObj(make([]byte, 0, len(tr.Result)+128))
	o.raw("result", tr.Result)
	o.key("dropped")
	o.b = append(o.b, '[')
	for i, d := range tr.Dropped {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		w := openObj(o.b)
		w.int("index", int64(d.Index))
		w.str("uri", d.URI)
		w.str("reason", d.Reason)
		o.b = w.close()
	}
	o.b = append(o.b, ']')
	o.strs("superseded", tr.Superseded, false)
	return parseJSON(o.close())
}

// ---- synchronous methods ----

func (a *api) info(h *host.Host, _ []js.Value) (js.Value, error) {
	ir := h.InitializeResult()
	return js.ValueOf(jsString(appendInfo(nil, &ir))), nil
}

// mention(hostID, query, limit, audience) returns the matches as JSON text;
// mcphost.js parses it (one crossing per keystroke).
func (a *api) mention(h *host.Host, args []js.Value) (js.Value, error) {
	var qo attach.QueryOptions
	if len(args) > 1 && args[1].Type() == js.TypeNumber {
		qo.Limit = args[1].Int()
	}
	qo.Audience = strArg(args, 2)
	ms := h.Mention(strArg(args, 0), qo)
	bp := bufPool.Get().(*[]byte)
	b := appendMatches((*bp)[:0], ms, h.Hint)
	v := js.ValueOf(jsString(b))
	if cap(b) <= 1<<20 {
		*bp = b
		bufPool.Put(bp)
	}
	return v, nil
}

func (a *api) detach(h *host.Host, args []js.Value) (js.Value, error) {
	return js.ValueOf(h.Detach(strArg(args, 0))), nil
}

func (a *api) attachments(h *host.Host, _ []js.Value) (js.Value, error) {
	return attachmentsValue(h.Attachments()), nil
}

// filterToolResult(hostID, resultJSON).
func (a *api) filterToolResult(h *host.Host, args []js.Value) (js.Value, error) {
	tr, err := h.FilterToolResult(json.RawMessage(strArg(args, 0)))
	if err != nil {
		return js.Undefined(), err
	}
	return toolResultValue(tr), nil
}

func (a *api) figures(h *host.Host, _ []js.Value) (js.Value, error) {
	b, err := json.Marshal(h.Figures())
	if err != nil {
		return js.Undefined(), err
	}
	return parseJSON(b), nil
}

// expand(template, [k, v, ...]).
func expand(args []js.Value) (js.Value, error) {
	s, err := attach.Expand(strArg(args, 0), pairsArg(args, 1))
	if err != nil {
		return js.Undefined(), err
	}
	return js.ValueOf(s), nil
}

func templateVars(args []js.Value) (js.Value, error) {
	vs := attach.TemplateVars(strArg(args, 0))
	return js.ValueOf(string(appendStrings(nil, vs))), nil
}
