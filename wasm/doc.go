// Command wasm is mcphost's WebAssembly module: the Go side of web/mcphost.js.
// Build it with
//
//	GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o web/mcphost.wasm ./wasm
//
// (`make wasm`). It is the only package of the module that imports
// syscall/js, and it converts values and nothing else: every behaviour a page
// can observe (listing, the picker index, attachments and their freshness,
// the dedupe filter) lives in package host and below, tested natively.
//
// # Protocol with mcphost.js
//
// main registers one object, globalThis.__mcphost_go, and blocks forever.
// Its functions are private to mcphost.js; their contract:
//
//   - Asynchronous calls take (hostID, callID, timeoutMs, done, ...args) and
//     return at once; done(err, value) is invoked exactly once from a
//     goroutine. cancel(callID) cancels the call's context, which makes the
//     bridge send notifications/cancelled; the error then has kind
//     "cancelled".
//   - Synchronous calls return [err, value].
//   - err is a plain object {message, kind, code, data, uri, method, index}
//     (data a JSON string) that mcphost.js turns into an MCPError.
//   - Large values cross without encoding/json: descriptor lists and picker
//     matches as JSON text written by hand (one JSON.parse in the page),
//     attachment text and HTML as strings, bytes copied once into a
//     Uint8Array.
//
// Every exported function and every goroutine started here recovers panics
// into errors of kind "protocol", so a bug never leaves a Promise pending.
//
// # Render-only mode
//
// Started with argv[1] "-render" (by web/render-worker.js, in the page's
// render Worker, on the module the page already compiled), main registers
// only globalThis.__mcphost_render(src, baseURI, remoteImages, end) ->
// [html, plain, error], which runs attach.DefaultMarkdown (or, with end,
// attach.DefaultMarkdownPrefix for the first piece of a document cut by
// attach.MarkdownCuts, whose pieces go to the page's two Workers at once),
// with the collector off up to a memory limit per job. In the page's instance,
// a host's attach.Options.Markdown posts each Markdown part through the
// render function mcphost.js passes in the connect options and parks the
// read worker's goroutine (which holds no host lock) until the Worker
// answers, passes renderBudgetMs, or crashes (see render_js.go).
//
// # Browser
//
// Blocking inside a js.Func handler would stall the page's event loop (the
// WebSocket lives there), so everything that may wait on the network runs in
// a goroutine and answers through done.
package main
