// Command crashtest is a stand-in for mcphost.wasm whose Go runtime dies on
// purpose: it answers connect and info the way the real module does, leaves
// every attach unanswered, then panics in a goroutine. e2e/api.test.mjs loads
// it with connect's wasmUrl to prove that mcphost.js never leaves a page
// hanging when the runtime exits: pending and later calls reject with kind
// "protocol" and every host fires "disconnected". Build it with GOOS=js
// GOARCH=wasm; natively it only explains that.
package main
