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

// pingFloodJS is a socket object as web/socket.js makes one, in front of a
// server that sends n pings at once: take() hands them over in batches,
// kick() wakes Go from a task of its own (a MessageChannel, as socket.js),
// and send() costs sendCost of the page's time and counts the sends made in
// each task of the page (a task ends when the stack empties: a microtask).
const pingFloodJS = `
const [n, sendCost, wake] = arguments
const enc = new TextEncoder()
const ch = new MessageChannel()
ch.port1.onmessage = () => { scheduled = false; wake() }
let next = 0, scheduled = false, inTask = false
const sock = {
  perTask: [], sent: 0,
  state: () => 1, readyState: () => 1, subprotocol: () => 'mcp', waiting: () => n - next,
  kick() { if (!scheduled) { scheduled = true; ch.port2.postMessage(0) } },
  take(maxFrames, maxBytes) {
    const parts = []
    while (next < n && parts.length < maxFrames) parts.push(enc.encode('{"jsonrpc":"2.0","id":"p' + next++ + '","method":"ping"}'))
    const lens = new Int32Array(parts.length)
    const bytes = new Uint8Array(parts.reduce((a, p) => a + p.length, 0))
    let off = 0
    parts.forEach((p, i) => { lens[i] = p.length; bytes.set(p, off); off += p.length })
    return { bytes, lens, count: parts.length, tooBig: 0 }
  },
  send(data) {
    if (!inTask) { inTask = true; sock.perTask.push(0); queueMicrotask(() => { inTask = false }) }
    for (const t = performance.now(); performance.now() - t < sendCost;) {}
    sock.perTask[sock.perTask.length - 1]++
    sock.sent++
  },
  close() {}, stop() { ch.port1.close() },
}
return sock
`

// TestBatchPingFloodYields: the answers to a flood of server requests are
// sent over many tasks of the page, a slice each, never all in the task
// that read the requests. The reader stopped at its slice before, but the
// writer then sent every answer it had queued (up to 256) in the same
// task: behind 100,000 pings Chromium saw tasks of 100–220 ms.
func TestBatchPingFloodYields(t *testing.T) {
	const pings = 3000
	const sendCost = 1.0 // ms of the page's time per send
	s := newBatchSocket()
	s.js = js.Global().Get("Function").New(pingFloodJS).Invoke(pings, sendCost, s.wake)
	sess := newSession(newConn(s, 0), Options{})
	defer sess.Close()
	s.js.Call("kick")
	// The reader answers what the writer's queue holds and drops the rest
	// (reported once): wait for the reader to take every ping and the
	// writer to drain its queue.
	deadline := time.Now().Add(30 * time.Second)
	for s.js.Call("waiting").Int() > 0 || len(sess.answers) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %d pings not taken, %d answers queued", s.js.Call("waiting").Int(), len(sess.answers))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	perTask := s.js.Get("perTask")
	sent, most := s.js.Get("sent").Int(), 0
	for i := range perTask.Length() {
		most = max(most, perTask.Index(i).Int())
	}
	// A task may send until Go has held it for the slice, plus the send
	// that crossed it.
	bound := int(batchSlice/time.Millisecond/sendCost) + 2
	if sent < 256 || most > bound {
		t.Fatalf("%d answers sent in %d tasks, at most %d in one; want ≥ 256 sent, at most %d a task (the %v slice at %v ms a send)", sent, perTask.Length(), most, bound, batchSlice, sendCost)
	}
	t.Logf("%d answers sent in %d tasks, at most %d in one", sent, perTask.Length(), most)
}
