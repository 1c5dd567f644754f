// Package bridge speaks MCP over a WebSocket, both ways: the client session
// the mcphost wasm module uses in the page, and the server side that
// mcphost's documents server and gateways use behind /mcp.
//
// The wire contract: subprotocol "mcp" ([Subprotocol]), one UTF-8 JSON-RPC
// 2.0 message per text frame, no batching, no binary frames; a bearer token
// travels as a second subprotocol entry "mcp.token.<token>" ([TokenPrefix]),
// since a browser cannot set headers on a WebSocket. It is what the
// TypeScript SDK's WebSocketClientTransport and the Python SDK speak.
//
// # Client
//
// [Dial] opens the socket, negotiates the revision ([Options].Protocol:
// [ProtocolAuto] probes with server/discover and speaks 2026-07-28 when the
// server lists it, else initializes at [ProtocolVersion], accepting any of
// [SupportedVersions]) and returns a [Session]:
//
//	s, err := bridge.Dial(ctx, "ws://127.0.0.1:8080/mcp", &bridge.Options{
//		Watcher: w, // Acked, Refused, Lost, Updated, ListChanged
//	})
//	list, err := s.ListResources(ctx, nil) // follows every page
//	parts, err := s.ReadResource(ctx, list.Items[0].URI)
//	s.Watch([]string{list.Items[0].URI}, nil) // answered by w.Acked or w.Refused
//
// In 2026-07-28 every request carries the per-request _meta, results follow
// resultType (input_required rounds are retried with requestState), and
// [Session.Watch] opens one subscriptions/listen per URI plus one for list
// changes; in the older revisions it sends resources/subscribe and
// unsubscribe, one URI at a time, in order. Either way each addition is
// answered exactly once ([Watcher]).
//
// Typed calls check the server's capabilities first and fail with
// [KindUnsupported] ([ErrNotSupported]) without sending anything ([Session.Supports] asks the
// same question). resources/updated is delivered on the read loop, in order
// with responses, so a caller can tell a read that may hold a stale snapshot.
// A read keeps every part of its contents, in order, with the presence of
// text and blob kept. Frames and contents are decoded by a validating
// scanner of the package's own (it accepts exactly what encoding/json
// accepts) that takes base64 blobs as views of the frame; what it does not
// expect goes to encoding/json.
//
// Every failed call returns an [*Error]: the peer's JSON-RPC code, message
// and data byte for byte, the method and URI, and a [Kind] saying what a
// caller can do about it ([Classify]). It wraps one of the sentinel errors
// ([ErrClosed], [ErrTimeout], ...) or the peer's *jsonrpc.Error; use
// errors.Is, [AsError], [ErrorCode] or [IsNotFound].
//
// # Server
//
// [Endpoint] is an http.Handler that enforces the contract before the
// upgrade (allowed Origin and Host, DNS rebinding refused, a valid token,
// a connection cap; see [EndpointOptions]) and hands each connection to a
// function as a [Conn], which is a go-sdk mcp.Connection. [ServerHandler]
// and [Serve] run go-sdk servers over it, one per connection if wanted, so a
// server holds only what that connection's principal may see. A refused
// upgrade is an HTTP 401, 403 or 503 (with Retry-After), never an MCP
// message; since browsers hide it behind a 1006 close, a plain GET with
// Accept: application/json is answered, with CORS for the requesting
// origin, with the verdict an upgrade would get: {"code": 200|401|403|503,
// "reason": "...", "fix": "..."} (the token as "Authorization: Bearer"). The
// Origin and Host checks believe forwarding headers only from
// [EndpointOptions].TrustedProxies, and every connection gets WebSocket
// pings when the server has been silent for [EndpointOptions].PingInterval.
//
// The relay frame codec ([EncodeRelayAnswer], [DecodeRelayAnswer],
// [DecodeRelayAsk]) frames a provider relay's read-resource exchange, and
// [RelayDoor] is its door next to an [Endpoint]: one ask (a text message
// holding resources/read params) answered with one binary frame, read from
// the endpoint's own serve function over an in-process connection for the
// requester's principal, behind the endpoint's checks, then a normal close;
// an ask that cannot be served is closed with no message.
//
// # Browser
//
// Under GOOS=js the client is the same API over the browser's own WebSocket
// (through syscall/js, in socket_js.go) instead of coder/websocket, whose
// browser build would link net/http. Differences:
//
//   - The server side does not exist: [Endpoint], [EndpointOptions],
//     [RelayDoor], [ServerHandler], [Serve], [Transport], [HostIsLoopback],
//     [CheckOriginPattern] and [ParseTrustedProxy] are native only, and the
//     wasm build never links go-sdk's mcp package.
//   - A frame over the read limit is refused after the browser has received
//     it whole; natively it is refused while it is read.
//   - A page may send only close codes 1000 and 3000–4999, so another code
//     is sent as 1000 with a reason naming the intended one.
//   - Frames arrive on the JavaScript event loop and are queued; a Session
//     must be used from goroutines, never by blocking inside a js.Func.
package bridge
