package bridge

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"
)

// Under js/wasm the socket is the browser's WebSocket, held by web/socket.js
// (batchSocket in socket_batch_js.go). It replaces coder/websocket there:
// that library's browser build imports net/http, which costs the module
// ~310 KB brotli, for the same few calls.

// checkUTF8 is false: the browser fails a socket whose text frame is not
// valid UTF-8 before Go sees it, and a JS string always encodes to valid UTF-8.
const checkUTF8 = false

// A jsFrame is one frame taken from the JS side.
type jsFrame struct {
	data   []byte
	binary bool
}

// jsCloseError is a close the browser reported.
type jsCloseError struct {
	code     int
	reason   string
	wasClean bool
}

func (e *jsCloseError) Error() string {
	msg := fmt.Sprintf("websocket closed: status = %d, reason = %q, clean = %v", e.code, e.reason, e.wasClean)
	if e.code == 1006 {
		// The browser says no more: it closes so when the network fails, and
		// when the server sent a text frame that is not valid UTF-8.
		msg += " (abnormal closure: the network failed, or the server sent a frame that is not valid UTF-8)"
	}
	return msg
}

var (
	errReadLimit  = errors.New("websocket: message too big")
	errSocketGone = errors.New("websocket: connection closed")
	jsUint8Array  = js.Global().Get("Uint8Array")
)

// jsCall calls a JS method, turning a thrown exception into an error.
func jsCall(v js.Value, method string, args ...any) (res js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = je
				return
			}
			err = fmt.Errorf("%v", r)
		}
	}()
	return v.Call(method, args...), nil
}

// dialSocket opens the browser's WebSocket through web/socket.js, which
// mcphost.js lends the module at start (see batchSocket).
func dialSocket(ctx context.Context, url string, protos []string) (socket, error) {
	if !jsOpenSocket.Truthy() {
		return nil, errors.New("mcphost.wasm was not started by mcphost.js: its WebSocket glue (socket.js) is missing")
	}
	return dialBatch(ctx, url, protos)
}

// browserClose maps a close to what a page may send: browsers accept only
// codes 1000 and 3000–4999 (others go as 1000 with the reason naming the
// intended code) and reasons up to 123 bytes.
func browserClose(code int, reason string) (int, string) {
	if code != statusNormalClosure && (code < 3000 || code > 4999) {
		reason = fmt.Sprintf("%d: %s", code, reason)
		code = statusNormalClosure
	}
	if len(reason) > 123 { // the protocol's limit for a close reason
		reason = reason[:123]
	}
	return code, reason
}

func jsErrInfo(err error) (bool, int) {
	var ce *jsCloseError
	if errors.As(err, &ce) {
		return false, ce.code
	}
	return errors.Is(err, errReadLimit), -1
}
