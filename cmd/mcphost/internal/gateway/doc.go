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
// cannot be reached, fails a request, or ends, the request is answered with
// a JSON-RPC error saying why (an upstream's own JSON-RPC error passes
// intact). Closing either side closes the other.
//
// A stdio server's stray output (a line that is not one JSON value, or is
// over the read limit) is dropped and logged, never fatal; its stderr is
// logged line by line. The Streamable HTTP side adds what go-sdk's client
// session would: the MCP-Protocol-Version header once negotiated, and the
// standalone GET stream for server-initiated messages, resumed with
// Last-Event-ID.
//
// # Processes
//
// On Linux no child or grandchild of a stdio server outlives its session or
// the gateway, even a SIGKILLed one: the child runs under a supervisor (the
// same executable, re-executed, in process groups with Pdeathsig), so a
// program using Stdio must call [SupervisorMode] first thing in main (and a
// test binary in TestMain). Elsewhere the child is stopped by closing its
// stdin, then killed.
//
// The package is native only (its files are excluded from js/wasm builds).
package gateway
