package bridge

import (
	"context"
	"syscall/js"
	"testing"
	"time"
)

// fakeBatchJS is the part of web/socket.js's socket object that
// batchSocket.read uses: take() hands over the queued frames in one batch
// (lens as little-endian int32s, the UTF-8 bytes after one another) and
// takes takeTime doing it, as a large frame's copy does; kick() is counted.
func fakeBatchJS(t *testing.T, takeTime time.Duration) (sock js.Value, push func(string), kicks func() int) {
	t.Helper()
	kicked := 0
	var queued []string
	sock = js.Global().Get("Object").New()
	fns := []js.Func{
		js.FuncOf(func(js.Value, []js.Value) any { return 1 }),
		js.FuncOf(func(js.Value, []js.Value) any { kicked++; return nil }),
		js.FuncOf(func(js.Value, []js.Value) any {
			for start := time.Now(); time.Since(start) < takeTime; {
			}
			total := 0
			for _, q := range queued {
				total += len(q)
			}
			lens := js.Global().Get("Uint8Array").New(4 * len(queued))
			bytes := js.Global().Get("Uint8Array").New(total)
			off := 0
			for i, q := range queued {
				n := len(q)
				lens.SetIndex(4*i, n&0xff)
				lens.SetIndex(4*i+1, n>>8&0xff)
				lens.SetIndex(4*i+2, n>>16&0xff)
				lens.SetIndex(4*i+3, n>>24&0xff)
				js.CopyBytesToJS(bytes.Call("subarray", off, off+n), []byte(q))
				off += n
			}
			out := js.Global().Get("Object").New()
			out.Set("tooBig", 0)
			out.Set("count", len(queued))
			out.Set("lens", lens)
			out.Set("bytes", bytes)
			queued = nil
			return out
		}),
	}
	sock.Set("state", fns[0])
	sock.Set("kick", fns[1])
	sock.Set("take", fns[2])
	t.Cleanup(func() {
		for _, f := range fns {
			f.Release()
		}
	})
	return sock, func(s string) { queued = append(queued, s) }, func() int { return kicked }
}

// TestBatchReadServesOneFramePerWake: a wake serves its first frame in the
// page's task even when taking it used up the time slice (a large frame's
// take can); the frames after it wait for a task of their own (kick).
func TestBatchReadServesOneFramePerWake(t *testing.T) {
	sock, push, kicks := fakeBatchJS(t, 2*batchSlice) // the take alone spends the slice
	s := &batchSocket{js: sock, limit: DefaultReadLimit, signal: make(chan struct{}, 1), ended: make(chan struct{})}
	s.wokeAt = time.Now() // woken: the page's task starts
	push(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	push(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	data, _, err := s.read(ctx)
	if err != nil || string(data) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("first read = %q, %v; want frame 1 in this task", data, err)
	}
	if k := kicks(); k != 0 {
		t.Fatalf("the first frame of the wake waited for %d kick(s)", k)
	}
	// The second frame, in the same spent slice: a task of its own.
	if data, _, err := s.read(ctx); err == nil {
		t.Fatalf("second read in the spent slice = %q, want a wait for the next task", data)
	}
	if k := kicks(); k != 1 {
		t.Fatalf("kicks = %d, want 1 before the second frame", k)
	}
	// The next wake (a task of the page's own) serves it.
	s.wokeAt, s.served = time.Now(), 0
	data, _, err = s.read(context.Background())
	if err != nil || string(data) != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("read after the next wake = %q, %v; want frame 2", data, err)
	}
}
