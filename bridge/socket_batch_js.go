package bridge

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"encoding/json"

	"github.com/mcphost/mcphost/internal/blob"
	"github.com/mcphost/mcphost/internal/pace"
)

// jsOpenSocket is web/socket.js's openSocket, which mcphost.js lends the
// module while Go's init runs (as globalThis.__mcphost_socket). Without it
// (the module loaded by other glue) sessions use jsSocket, one Go call per
// frame.
var jsOpenSocket = func() js.Value {
	v := js.Global().Get("__mcphost_socket")
	if v.Type() != js.TypeFunction {
		return js.Undefined()
	}
	return v
}()

// Batch bounds of one take, and the time slice after a wake past which the
// reader yields to the page (asks for another wake, a task of its own)
// before it takes more: a flood must cost the page many short tasks, never
// one long one.
const (
	batchFrames = 512
	batchBytes  = 1 << 20
	batchSlice  = pace.Slice
)

// batchSocket is the browser's WebSocket held by web/socket.js, which queues
// frames in JavaScript and wakes Go once per batch: a flood of small frames
// costs one resume of the Go runtime per batch instead of one per frame, so
// an answer behind 200,000 notifications arrives about when the browser has
// delivered them. Frames keep their order.
type batchSocket struct {
	js     js.Value // the object openSocket returned
	limit  int64
	wake   js.Func
	signal chan struct{} // capacity 1: the JS side has something for us
	wokeAt time.Time     // when wake last ran (the start of the page's task)
	served int           // frames read returned since that wake

	mu      sync.Mutex
	frames  []jsFrame // taken from JS, not yet read
	ended   chan struct{}
	err     error
	endOnce sync.Once
	relOnce sync.Once

	pre bool // opened by mcphost.js at connect(): it has transcript()

	// blobPrefix is the start of this socket's blob tokens (web/blob.js),
	// known from its first kept blob ("" before). Only take writes it.
	blobPrefix string
}

// newBatchSocket returns a batchSocket with its wake function, before the
// JavaScript socket exists.
func newBatchSocket() *batchSocket {
	s := &batchSocket{limit: DefaultReadLimit, signal: make(chan struct{}, 1), ended: make(chan struct{})}
	s.wake = js.FuncOf(func(js.Value, []js.Value) any {
		s.mu.Lock()
		s.wokeAt = time.Now()
		s.served = 0
		s.mu.Unlock()
		pace.Resumed()
		select {
		case s.signal <- struct{}{}:
		default:
		}
		return nil
	})
	return s
}

func dialBatch(ctx context.Context, url string, protos []string) (socket, error) {
	s := newBatchSocket()
	ps := make([]any, len(protos))
	for i, p := range protos {
		ps[i] = p
	}
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%w: %v", errInvalidURL, r) // e.g. SyntaxError for a bad URL
			}
		}()
		s.js = jsOpenSocket.Invoke(url, js.ValueOf(ps), s.wake)
	}()
	if err != nil {
		s.wake.Release()
		return nil, err
	}
	for {
		switch s.js.Call("state").Int() {
		case 1:
			s.pre = s.js.Get("transcript").Type() == js.TypeFunction
			return s, nil
		case 2:
			if s.js.Call("subprotocol").String() != "" {
				// It opened, then closed (an early socket mcphost.js lent
				// after the server closed it): the session reads the close.
				s.pre = s.js.Get("transcript").Type() == js.TypeFunction
				return s, nil
			}
			ce := s.closeErr()
			r := s.diagnosis()
			s.release()
			if r != nil {
				return nil, r
			}
			return nil, fmt.Errorf("connection refused or closed before it opened: %v", ce)
		}
		select {
		case <-s.signal:
		case <-ctx.Done():
			s.closeNow()
			return nil, ctx.Err()
		}
	}
}

// transcript returns the frames mcphost.js sent on a socket it opened
// early (at connect(), while the module loaded) and goes on sending on
// (the listing's next pages): those since the last call, and whether it
// may send more (it gives null once it has stopped and every frame was
// taken). See presend.go.
func (s *batchSocket) transcript() ([][]byte, bool) {
	if !s.pre {
		return nil, false
	}
	t, err := jsCall(s.js, "transcript")
	if err == nil && t.IsNull() {
		return nil, false
	}
	if err != nil || t.Type() != js.TypeObject {
		return nil, true
	}
	var out [][]byte
	for i, n := 0, min(t.Length(), maxPresentFrames); i < n; i++ {
		if f := t.Index(i); f.Type() == js.TypeString {
			out = append(out, []byte(f.String()))
		}
	}
	return out, true
}

func (s *batchSocket) early() bool { return s.pre }

func (s *batchSocket) closeErr() error {
	c := s.js.Call("closeInfo")
	if c.IsNull() || c.IsUndefined() {
		return errSocketGone
	}
	return &jsCloseError{code: c.Get("code").Int(), reason: c.Get("reason").String(), wasClean: c.Get("wasClean").Bool()}
}

// diagnosis is the endpoint's answer socket.js asked for after the socket
// closed before it opened (diagnosis(): JSON {code, reason, fix,
// retryAfterMs}, only for an answer with code 401, 403 or 503), or nil.
// (One JSON text crosses, not four properties: each syscall/js call site
// costs the module size.)
func (s *batchSocket) diagnosis() *refusal {
	d, err := jsCall(s.js, "diagnosis")
	if err != nil || d.Type() != js.TypeString {
		return nil
	}
	var v struct {
		Code         int     `json:"code"`
		Reason       string  `json:"reason"`
		Fix          string  `json:"fix"`
		RetryAfterMs float64 `json:"retryAfterMs"`
	}
	if json.Unmarshal([]byte(d.String()), &v) != nil {
		return nil
	}
	switch v.Code {
	case 401, 403, 503:
		return &refusal{status: v.Code, reason: v.Reason, fix: v.Fix, retryAfter: time.Duration(v.RetryAfterMs) * time.Millisecond}
	}
	return nil
}

func (s *batchSocket) read(ctx context.Context) ([]byte, bool, error) {
	for {
		s.mu.Lock()
		// The slice is checked before every frame, not only between
		// batches: what the session does with a frame (a ping's answer, an
		// update's bookkeeping) runs in this task too. But every wake
		// serves at least one frame: a large frame's take alone can pass
		// the slice (a 1 MB Markdown answer: ~16 ms), and deferring that
		// frame to the next task made its reader wait for the rest of the
		// WebSocket's message task and a task of its own (35–50 ms in
		// Chromium 156) for a frame already in Go.
		late := time.Since(s.wokeAt) > batchSlice
		if len(s.frames) > 0 && (!late || s.served == 0) {
			f := s.frames[0]
			s.frames[0] = jsFrame{}
			s.frames = s.frames[1:]
			s.served++
			s.mu.Unlock()
			return f.data, f.binary, nil
		}
		s.mu.Unlock()
		select {
		case <-s.ended:
			return nil, false, s.err
		default:
		}
		if late {
			// This task of the page has run long enough: go on in the next.
			if _, err := jsCall(s.js, "kick"); err != nil {
				return nil, false, err
			}
		} else if n, err := s.take(); err != nil {
			s.end(err)
			return nil, false, err
		} else if n > 0 {
			continue
		} else if s.js.Call("state").Int() == 2 && s.js.Call("waiting").Int() == 0 {
			err := s.closeErr()
			s.end(err)
			s.release()
			return nil, false, err
		}
		select {
		case <-s.signal:
		case <-s.ended:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// take moves one batch from JavaScript into s.frames.
func (s *batchSocket) take() (int, error) {
	s.mu.Lock()
	limit := s.limit
	s.mu.Unlock()
	s1, s2 := blob.Seeds()
	b := s.js.Call("take", batchFrames, batchBytes, float64(limit), s1, s2)
	if tb := b.Get("tooBig").Int(); tb > 0 {
		s.closeCode(statusMessageTooBig, fmt.Sprintf("read limited at %d bytes", limit))
		return 0, fmt.Errorf("%w: read limited at %d bytes (got %d)", errReadLimit, limit, tb)
	}
	count := b.Get("count").Int()
	if count == 0 {
		return 0, nil
	}
	lens := b.Get("lens")
	raw := make([]byte, 4*count)
	js.CopyBytesToGo(raw, jsUint8Array.New(lens.Get("buffer"), lens.Get("byteOffset"), 4*count))
	data := b.Get("bytes")
	all := make([]byte, data.Get("length").Int())
	js.CopyBytesToGo(all, data)
	if count == 1 {
		if bl := b.Get("blobs"); bl.Type() == js.TypeObject {
			s.offerBlobs(bl)
		}
		n := int(int32(binary.LittleEndian.Uint32(raw)))
		s.mu.Lock()
		s.frames = append(s.frames, jsFrame{data: all, binary: n < 0})
		s.mu.Unlock()
		return 1, nil
	}
	frames := make([]jsFrame, 0, count)
	off := 0
	for i := range count {
		n := int(int32(binary.LittleEndian.Uint32(raw[4*i:])))
		bin := n < 0
		if bin {
			n = -n - 1
		}
		// Each frame gets its own bytes: a parsed message may keep slices of
		// its frame, and must not keep the whole batch alive.
		f := make([]byte, n)
		copy(f, all[off:off+n])
		off += n
		frames = append(frames, jsFrame{data: f, binary: bin})
	}
	s.mu.Lock()
	s.frames = append(s.frames, frames...)
	s.mu.Unlock()
	return count, nil
}

// offerBlobs makes the blobs socket.js kept out of a frame claimable by
// the frame's decoder (bridge.DecodeReadResult), and releases the ones
// offered long ago and never claimed (their answer's call had ended).
func (s *batchSocket) offerBlobs(bl js.Value) {
	blob.Sweep(blobOfferAge)
	for i, n := 0, bl.Length(); i < n; i++ {
		x := bl.Index(i)
		sum := uint64(uint32(x.Get("hi").Int()))<<32 | uint64(uint32(x.Get("lo").Int()))
		token := x.Get("token").String()
		if s.blobPrefix == "" {
			s.blobPrefix = token[:strings.LastIndexByte(token, ':')+1] // the socket's nonce
		}
		blob.Offer(token, blob.FromJS(x.Get("box"), int64(x.Get("size").Int()), sum))
	}
}

// blobOfferAge bounds how long a kept blob waits for its decoder.
const blobOfferAge = time.Minute

// expectBlobs tells socket.js that the answer to request id is a
// resources/read result whose large blobs may stay in JavaScript.
func (s *batchSocket) expectBlobs(id int64) { jsCall(s.js, "expect", float64(id)) }

func (s *batchSocket) write(ctx context.Context, data []byte) error {
	select {
	case <-s.ended:
		return errSocketGone
	default:
	}
	if st := s.js.Call("readyState").Int(); st != 1 { // OPEN
		return fmt.Errorf("%w (readyState %d)", errSocketGone, st)
	}
	_, err := jsCall(s.js, "send", string(data))
	return err
}

// closeCode asks the browser to close; it accepts only 1000 and 3000–4999.
func (s *batchSocket) closeCode(code int, reason string) {
	code, reason = browserClose(code, reason)
	jsCall(s.js, "close", code, reason)
}

func (s *batchSocket) close(code int, reason string) error {
	s.closeCode(code, reason)
	s.end(&jsCloseError{code: code, reason: reason, wasClean: true})
	s.release()
	return nil
}

func (s *batchSocket) closeNow() error {
	jsCall(s.js, "close")
	s.end(errSocketGone)
	s.release()
	return nil
}

func (s *batchSocket) end(err error) {
	s.endOnce.Do(func() {
		s.err = err
		close(s.ended)
	})
}

// release lets go of the wake function, after telling the JS side never to
// call it again (a call to a released Go function kills the runtime).
func (s *batchSocket) release() {
	s.relOnce.Do(func() {
		jsCall(s.js, "stop")
		s.wake.Release()
		if s.blobPrefix != "" {
			blob.SweepPrefix(s.blobPrefix) // kept blobs of answers nobody decoded
		}
	})
}

func (s *batchSocket) setReadLimit(n int64) {
	s.mu.Lock()
	s.limit = n
	s.mu.Unlock()
}

func (s *batchSocket) subprotocol() string { return s.js.Call("subprotocol").String() }

func (s *batchSocket) errInfo(err error) (bool, int) { return jsErrInfo(err) }
