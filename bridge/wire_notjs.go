//go:build !js

package bridge

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"

// wireError is a JSON-RPC error object as the peer sent it. Natively it is
// go-sdk's *jsonrpc.Error, so errors.As with that type keeps working for
// servers, gateways and tests; the js build has a struct of the same shape
// (wire_js.go) because go-sdk's jsonrpc package links segmentio's JSON
// decoder (~70 KB brotli) into the module for a type the client only reads.
type wireError = jsonrpc.Error
