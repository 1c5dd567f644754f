// Package mcptest is the shared test harness of mcphost's servers: it serves
// a per-connection function on /mcp of a loopback endpoint the way mcphost
// does, dials it with the product's client, with a hand-driven raw client
// ([DialRaw]) or with go-sdk's client ([WSTransport]), and finds the npm
// test peers. Only tests import it.
package mcptest
