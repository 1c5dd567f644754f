// Package gateway relays MCP between a browser's WebSocket and an MCP server
// that does not speak it: a stdio server, spawned once per connection
// ([Stdio]), or a session of its own on a Streamable HTTP server ([HTTP]).
//
//	argv, err := gateway.SplitCommand(`npx -y @modelcontextprotocol/server-everything stdio`)
//	g := &gateway.Stdio{Argv: argv, ReadLimit: bridge.DefaultReadLimit, Grace: time.Second, Log: log}
//	http.Handle("/mcp", bridge.Endpoint(opts, g.Serve))
//
// Messages pass unchanged in meaning both ways, whatever their method:
// requests, notifications, responses and errors, including server→client
// requests. A browser request is never left hanging: when the upstream
// cannot be reached, refuses a request, or ends, the request is answered
// with a JSON-RPC error saying why (an upstream's own JSON-RPC error passes
// intact; see Errors). A request the browser cancelled gets no answer.
// Closing either side closes the other: when the browser's connection ends
// (it left, or its idle timeout or write deadline closed it) or the
// caller's ctx ends (shutdown, the relay door letting its source go), the
// session ends at once, whatever the upstream holds: its HTTP requests are
// cancelled, a stdio child's stdin is closed and the child stopped. The
// browser is still read while the upstream does not take its messages (a
// child that leaves its stdin unread, a held POST, even a held handshake,
// which nothing may overtake), so its departure is seen then too, until 16
// messages (1 MiB besides the first) wait; past that, at -idle-timeout at
// the latest.
//
// The requests of one connection in flight to a Streamable HTTP server are
// bounded ([HTTP].MaxInFlight), each until its answer or its cancellation:
// one past the bound is not sent but answered at once with -32603, data
// {"retryable":true,"limit":N}; the browser is never left unread for it.
//
// A stdio server's stray output (a line that is not one JSON value, or is
// over the read limit) is dropped and logged, never fatal; its stderr is
// logged line by line; both at most at [Stdio.LogRate] lines per second, the
// rest counted in summary lines. A stdio server that exits on the server/discover
// probe of the 2026-07-28 revision is started again and spoken to in the
// legacy revision; the verdict holds for the gateway's lifetime (see
// [Stdio]).
//
// # Streamable HTTP
//
// Requests of the 2026-07-28 revision (params._meta names
// io.modelcontextprotocol/protocolVersion 2026-07-28 or later; and
// server/discover) are independent POSTs, each under a context of its own,
// with the revision's headers: MCP-Protocol-Version equal to the _meta
// value, Mcp-Method, Mcp-Name (the tool or prompt name, the URI of
// resources/read; =?base64?...?= when not header-safe) and Mcp-Param-* for
// the tools/call arguments whose inputSchema marks them with x-mcp-header,
// learned from the tools/list results relayed (a tool whose annotation is
// invalid is left out of them, as the revision requires). They carry no
// session id and open no GET stream. Notifications on a request's SSE answer
// (a listen's acknowledged, updated, list_changed) reach the browser as they
// arrive. The browser's notifications/cancelled for such a request closes
// its POST (for subscriptions/listen, its SSE stream): the revision's
// cancellation over HTTP; nothing is forwarded. On a header mismatch
// (-32020) a tools/call is retried once after the gateway re-lists the
// tools, and a request whose Mcp-Name was encoded is retried once with the
// name as is (go-sdk v1.8.0 servers compare Mcp-Name without decoding it).
//
// Legacy requests (2025-11-25 and before) get what go-sdk's client session
// would: a session of their own, the MCP-Protocol-Version header once
// negotiated, and the standalone GET stream for server-initiated messages,
// resumed with Last-Event-ID. The browser's notifications/cancelled for one
// is forwarded, and closes the request's POST and its SSE answer: that
// revision says a server should not answer a cancelled request (the
// TypeScript SDK does not), which would otherwise hold them, and the
// request's slot, until the session ends.
//
// # Errors
//
// How the gateway answers a request the upstream did not answer with a
// JSON-RPC response:
//
//   - The upstream answered an HTTP error whose body is a JSON-RPC error
//     (go-sdk's -32022, -32020, -32601...): that error, code, message and
//     data intact, with the browser's request id.
//   - It answered a 4xx other than 404, 408 and 429 without one (go-sdk's
//     plain-text 400 "Bad Request: Unsupported protocol version ...", a
//     proxy's 401 or 403): permanent. Code [CodeUpstreamRefused] (-31000),
//     message "mcphost gateway: the upstream answered <method> with HTTP
//     <status> <status text>: <reason>", data
//     {"httpStatus":400,"reason":"Bad Request: Unsupported protocol version (supported versions: 2026-07-28)","retryable":false}.
//     The connection stays open: a later request may use another revision.
//   - It answered 404, 408, 429 or 5xx without one, or a 2xx without a
//     JSON-RPC response (a stream that ended first; an HTML page or another
//     Content-Type than application/json and text/event-stream; a JSON body
//     that does not parse, in either revision): retryable. Code -32603, the
//     same message form, data {"httpStatus":502,"reason":"bad gateway","retryable":true}
//     (for a web page: reason "Content-Type \"text/html\" is neither
//     application/json nor text/event-stream: ... (is the -upstream URL a
//     Streamable HTTP MCP endpoint?)"). An upstream that answered is never
//     "could not be reached".
//   - A legacy request carrying a session id got 404: the session is gone.
//     Code -32603, data {"httpStatus":404,"reason":"session not found","retryable":true,"reconnect":true};
//     the gateway then closes the browser's socket, so that the client
//     reconnects and initializes again. Requests still waiting are answered
//     -32603 naming the session's end, data {"retryable":true}.
//   - No HTTP answer at all (connection refused, reset, DNS; also a redirect
//     whose target gives none): code -32603,
//     message "mcphost gateway: the upstream server could not be reached:
//     <error>", data {"retryable":true}.
//
// "reason" is the body text, whitespace folded, at most 300 characters (the
// status text when the body is empty). Errors for a stdio server's end are
// -32603 with data {"retryable":true}.
//
// A stdio server's answer the gateway cannot pass on is replaced by an error
// answer to the same id, so the call settles at once: a line that is not one
// JSON value or nests past the decoder's bound gets [bridge.CodeRelayMalformed]
// (-31001, kind protocol); a line over -read-limit gets
// [bridge.CodeRelayTooLarge] (-31002, kind limit). Lines without an id are
// dropped and logged (rate-limited).
//
// # Processes
//
// On Linux no descendant of a stdio server outlives its session or the
// gateway, even a SIGKILLed one, even one that called setsid: the child runs
// under a supervisor (the same executable, re-executed, in process groups
// with Pdeathsig) that is a child subreaper and kills and reaps its children
// until none remain (see supervise in proc_linux.go), so a
// program using Stdio must call [SupervisorMode] first thing in main (and a
// test binary in TestMain). Elsewhere the child is stopped by closing its
// stdin, then killed.
//
// The package is native only (its files are excluded from js/wasm builds).
package gateway
