package bridge

import "encoding/json"

// wireError is a JSON-RPC error object as the peer sent it: the same fields
// and JSON shape as go-sdk's jsonrpc.Error, which the native build uses
// (wire_notjs.go). The module does not import go-sdk's jsonrpc package: the
// client parses and writes frames itself, and that package would link
// segmentio's JSON decoder (~70 KB brotli) for this one type.
type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *wireError) Error() string { return e.Message }
