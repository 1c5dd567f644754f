package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall/js"
)

// checkUTF8 is false: the browser fails a socket whose text frame is not
// valid UTF-8 before Go sees it, and a JS string always encodes to valid UTF-8.
const checkUTF8 = false

// jsSocket is the browser's WebSocket, driven through syscall/js. It replaces
// coder/websocket under js/wasm: that library's browser build imports
// net/http, which costs the module ~310 KB brotli, for the same few calls.
//
// Frames arrive on the JS event loop (onmessage) and are queued; read takes
// them in order. Text frames cross into Go memory once: TextEncoder writes
// the UTF-8 into a Uint8Array that is copied into a fresh []byte. Browsers
// let a page send only close codes 1000 and 3000–4999, so other codes are
// sent as 1000 with the reason naming the intended code.
type jsSocket struct {
	ws    js.Value
	limit atomic.Int64

	mu      sync.Mutex
	queue   []jsFrame
	signal  chan struct{} // a frame was queued (capacity 1)
	closed  chan struct{} // closed once the socket is closed
	err     error         // why it closed
	onceEnd sync.Once

	funcs []js.Func

	scratch    js.Value // reused Uint8Array for encodeInto (on the JS thread only)
	scratchLen int
}

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
	errReadLimit   = errors.New("websocket: message too big")
	errSocketGone  = errors.New("websocket: connection closed")
	jsTextEncoder  = js.Global().Get("TextEncoder").New()
	jsUint8Array   = js.Global().Get("Uint8Array")
	jsArrayBuffer  = js.Global().Get("ArrayBuffer")
	jsWebSocketCtr = js.Global().Get("WebSocket")
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

func dialSocket(ctx context.Context, url string, protos []string) (socket, error) {
	if jsOpenSocket.Truthy() {
		return dialBatch(ctx, url, protos)
	}
	if jsWebSocketCtr.IsUndefined() {
		return nil, errors.New("this JavaScript environment has no WebSocket")
	}
	ps := make([]any, len(protos))
	for i, p := range protos {
		ps[i] = p
	}
	var ws js.Value
	if err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r) // e.g. SyntaxError for a bad URL
			}
		}()
		ws = jsWebSocketCtr.New(url, js.ValueOf(ps))
		return nil
	}(); err != nil {
		return nil, err
	}
	ws.Set("binaryType", "arraybuffer")
	s := &jsSocket{ws: ws, signal: make(chan struct{}, 1), closed: make(chan struct{})}
	s.limit.Store(DefaultReadLimit)
	opened := make(chan struct{})
	s.on("open", func(js.Value) { close(opened) })
	s.on("message", s.onMessage)
	s.on("close", func(e js.Value) {
		s.end(&jsCloseError{code: e.Get("code").Int(), reason: e.Get("reason").String(), wasClean: e.Get("wasClean").Bool()})
	})
	s.on("error", func(js.Value) {}) // a close event always follows
	select {
	case <-opened:
		return s, nil
	case <-s.closed:
		s.release()
		return nil, fmt.Errorf("connection refused or closed before it opened: %v", s.err)
	case <-ctx.Done():
		s.closeNow()
		return nil, ctx.Err()
	}
}

func (s *jsSocket) on(event string, fn func(js.Value)) {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var e js.Value
		if len(args) > 0 {
			e = args[0]
		}
		fn(e)
		return nil
	})
	s.funcs = append(s.funcs, f)
	s.ws.Set("on"+event, f)
}

// onMessage runs on the JS event loop: it must not block.
func (s *jsSocket) onMessage(e js.Value) {
	d := e.Get("data")
	var f jsFrame
	if d.Type() == js.TypeString {
		u8, n, tooBig := s.encode(d)
		if tooBig {
			s.closeCode(statusMessageTooBig, fmt.Sprintf("read limited at %d bytes", s.limit.Load()))
			s.end(fmt.Errorf("%w: read limited at %d bytes (got %d)", errReadLimit, s.limit.Load(), n))
			return
		}
		f.data = make([]byte, n)
		js.CopyBytesToGo(f.data, u8)
	} else {
		f.binary = true
		if d.InstanceOf(jsArrayBuffer) {
			u8 := jsUint8Array.New(d)
			f.data = make([]byte, u8.Get("length").Int())
			js.CopyBytesToGo(f.data, u8)
		}
	}
	s.mu.Lock()
	s.queue = append(s.queue, f)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// reuseMax bounds the scratch buffer kept between messages.
const reuseMax = 16 << 20

// encode writes the UTF-8 bytes of the JS string d into a reused
// Uint8Array with encodeInto (in Chromium ~5× faster than encode for a
// 2.4 MB message, which allocates and zeroes a fresh buffer every time) and
// returns it with the byte count. The buffer grows by doubling until the
// string fits; tooBig reports a message over the read limit, found without
// encoding more than the limit. (syscall/js cannot read a primitive
// string's length, hence "fits" is: at least 4 bytes were left unused.)
func (s *jsSocket) encode(d js.Value) (buf js.Value, n int, tooBig bool) {
	limit := int(s.limit.Load())
	buf, size := s.scratch, s.scratchLen
	if buf.IsUndefined() {
		size = 64 << 10
		buf = jsUint8Array.New(size)
	}
	for {
		n = jsTextEncoder.Call("encodeInto", d, buf).Get("written").Int()
		if n <= size-4 {
			if size <= reuseMax {
				s.scratch, s.scratchLen = buf, size
			}
			return buf, n, false
		}
		if size-4 >= limit {
			return js.Undefined(), n, true
		}
		size = min(size*2, limit+8)
		buf = jsUint8Array.New(size)
	}
}

// end records why the socket closed (first reason wins) and releases it.
func (s *jsSocket) end(err error) {
	s.onceEnd.Do(func() {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(s.closed)
	})
}

func (s *jsSocket) release() {
	for _, ev := range []string{"onopen", "onmessage", "onclose", "onerror"} {
		s.ws.Set(ev, js.Null())
	}
	for _, f := range s.funcs {
		f.Release()
	}
	s.funcs = nil
}

func (s *jsSocket) read(ctx context.Context) ([]byte, bool, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			f := s.queue[0]
			s.queue[0] = jsFrame{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return f.data, f.binary, nil
		}
		s.mu.Unlock()
		select {
		case <-s.signal:
		case <-s.closed:
			s.mu.Lock()
			empty := len(s.queue) == 0
			err := s.err
			s.mu.Unlock()
			if empty {
				return nil, false, err
			}
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

func (s *jsSocket) write(ctx context.Context, data []byte) error {
	select {
	case <-s.closed:
		return errSocketGone
	default:
	}
	if st := s.ws.Get("readyState").Int(); st != 1 { // OPEN
		return fmt.Errorf("%w (readyState %d)", errSocketGone, st)
	}
	_, err := jsCall(s.ws, "send", string(data))
	return err
}

// closeCode asks the browser to close.
func (s *jsSocket) closeCode(code int, reason string) {
	code, reason = browserClose(code, reason)
	jsCall(s.ws, "close", code, reason)
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

func (s *jsSocket) close(code int, reason string) error {
	s.closeCode(code, reason)
	s.end(&jsCloseError{code: code, reason: reason, wasClean: true})
	s.release()
	return nil
}

func (s *jsSocket) closeNow() error {
	jsCall(s.ws, "close")
	s.end(errSocketGone)
	s.release()
	return nil
}

func (s *jsSocket) setReadLimit(n int64) { s.limit.Store(n) }

func (s *jsSocket) subprotocol() string { return s.ws.Get("protocol").String() }

func (s *jsSocket) errInfo(err error) (bool, int) { return jsErrInfo(err) }

func jsErrInfo(err error) (bool, int) {
	var ce *jsCloseError
	if errors.As(err, &ce) {
		return false, ce.code
	}
	return errors.Is(err, errReadLimit), -1
}
