//go:build !js

package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ErrSlowPeer reports a peer that did not read what was sent to it: the
// send queue passed its byte bound, or one frame its write deadline. The
// connection is dropped; nothing is buffered without bound.
var ErrSlowPeer = errors.New("bridge: the peer is not reading")

// ErrIdle reports a connection closed by its server for inactivity: no
// valid request within the first-request deadline, or no traffic either way
// (nor a pong) within the idle timeout.
var ErrIdle = errors.New("bridge: connection idle")

// QueueStats are the figures of a server connection's send queue.
type QueueStats struct {
	Queued  int64 // bytes of the frames waiting (not the one being written)
	Peak    int64 // the most bytes ever waiting at once
	Writing int64 // bytes of the frame being written now (0 when none)
	Sent    int64 // bytes written to the socket
	Frames  int64 // frames written to the socket
}

// QueueStats returns the send queue's figures (zero on a client connection,
// whose writes are not queued).
func (c *Conn) QueueStats() QueueStats {
	if c.out == nil {
		return QueueStats{}
	}
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	return c.out.stats
}

// An outbound is the send queue of a server connection: WriteRaw appends a
// frame and returns; one writer goroutine ([outbound.run]) writes the frames
// in order, each under the write deadline. The frames waiting (not the one
// being written) may hold max bytes, or one frame of any size: a write that
// finds no room waits for the writer to make some, at most the write
// deadline, and then disconnects the peer. So a burst (a large answer and
// the notifications after it) to a peer that reads passes, a peer that stops
// reading holds at most the frame being written plus max bytes (or one
// frame), and only the callers writing to that peer ever wait, never for
// longer than the deadline.
type outbound struct {
	max     int64
	timeout time.Duration
	slow    atomic.Pointer[error] // set when a write's deadline fired

	mu      sync.Mutex
	q       [][]byte
	stats   QueueStats
	closing bool          // Close was called: drain, then close
	dropped bool          // the connection failed: the queue is gone
	signal  chan struct{} // capacity 1: a frame was queued or closing set
	room    chan struct{} // closed (and replaced) when the writer takes a frame
}

func newOutbound(max int64, timeout time.Duration) *outbound {
	return &outbound{max: max, timeout: timeout, signal: make(chan struct{}, 1), room: make(chan struct{})}
}

func (o *outbound) wake() {
	select {
	case o.signal <- struct{}{}:
	default:
	}
}

// enqueue queues data for c's writer, waiting for room at most the write
// deadline (then c is dropped) or until ctx ends.
func (o *outbound) enqueue(ctx context.Context, c *Conn, data []byte) error {
	n := int64(len(data))
	var timer <-chan time.Time
	for {
		o.mu.Lock()
		if o.dropped || o.closing {
			o.mu.Unlock()
			if err := c.Err(); err != nil {
				return err
			}
			return ErrClosed
		}
		if o.stats.Queued == 0 || o.stats.Queued+n <= o.max {
			o.q = append(o.q, data)
			o.stats.Queued += n
			o.stats.Peak = max(o.stats.Peak, o.stats.Queued)
			o.mu.Unlock()
			o.wake()
			return nil
		}
		room, queued := o.room, o.stats.Queued
		o.mu.Unlock()
		if timer == nil {
			t := time.NewTimer(o.timeout)
			defer t.Stop()
			timer = t.C
		}
		var done <-chan struct{}
		if ctx != nil {
			done = ctx.Done()
		}
		select {
		case <-room:
		case <-c.ctx.Done():
			return c.Err()
		case <-done:
			return ctx.Err()
		case <-timer:
			return c.fail(fmt.Errorf("%w: %d bytes waited to be sent past the send queue bound of %d bytes (-max-queue) for the write timeout of %v (-write-timeout); disconnected",
				ErrSlowPeer, queued+n, o.max, o.timeout))
		}
	}
}

// closing starts a graceful close: the writer sends what is queued, then
// the close frame.
func (o *outbound) startClose() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	o.wake()
}

// drop frees the queue (the connection failed).
func (o *outbound) drop() {
	o.mu.Lock()
	o.dropped = true
	o.q = nil // the stats stay as they were when it failed
	o.mu.Unlock()
}

// next returns the next frame, or closing when the queue is empty and
// Close was called.
func (o *outbound) next() (data []byte, closing, dropped bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dropped {
		return nil, false, true
	}
	if len(o.q) > 0 {
		data = o.q[0]
		o.q[0] = nil
		o.q = o.q[1:]
		o.stats.Queued -= int64(len(data))
		o.stats.Writing = int64(len(data))
		close(o.room)
		o.room = make(chan struct{})
		return data, false, false
	}
	return nil, o.closing, false
}

// run is c's writer goroutine; it ends with the connection.
func (o *outbound) run(c *Conn) {
	var drainBy time.Time // set once closing: the whole drain's deadline
	for {
		data, closing, dropped := o.next()
		switch {
		case dropped:
			return
		case data == nil && closing:
			t := time.AfterFunc(time.Second, func() { c.fail(ErrClosed) })
			c.ws.close(statusNormalClosure, "")
			t.Stop()
			c.fail(ErrClosed)
			return
		case data == nil:
			select {
			case <-o.signal:
			case <-c.ctx.Done():
				return
			}
			continue
		}
		timeout := o.timeout
		if o.isClosing() {
			if drainBy.IsZero() {
				drainBy = time.Now().Add(o.timeout)
			}
			timeout = min(timeout, time.Until(drainBy))
		}
		wctx, cancel := context.WithTimeout(c.ctx, timeout)
		slow := fmt.Errorf("%w: a %d-byte frame was not written within the write timeout of %v (-write-timeout); disconnected",
			ErrSlowPeer, len(data), o.timeout)
		// coder/websocket closes the connection when the write's context
		// expires, and the read loop may see that before this goroutine
		// returns: the reason is recorded when the deadline fires, so the
		// read loop reports it instead of "closed network connection".
		stop := context.AfterFunc(wctx, func() {
			if wctx.Err() == context.DeadlineExceeded {
				o.slow.Store(&slow)
			}
		})
		err := c.ws.write(wctx, data)
		timedOut := wctx.Err() == context.DeadlineExceeded
		stop()
		cancel()
		if err != nil {
			if timedOut {
				err = slow
			} else {
				err = c.readError(err)
			}
			c.fail(err)
			return
		}
		c.sent()
		o.mu.Lock()
		o.stats.Writing = 0
		o.stats.Sent += int64(len(data))
		o.stats.Frames++
		o.mu.Unlock()
	}
}

// slowErr is the write-timeout error once a write's deadline fired, else nil.
func (o *outbound) slowErr() error {
	if p := o.slow.Load(); p != nil {
		return *p
	}
	return nil
}

func (o *outbound) isClosing() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closing
}

// maxEcho is the most of a client's input an error answer carries back:
// its message and its data are each cut to this many bytes.
const maxEcho = 1 << 10

// boundError returns msg with an error answer's message and data cut to
// maxEcho bytes (a not-found error's data.uri is kept, shortened), so no
// request makes the server send back what it was sent.
func boundError(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return msg
	}
	// What go-sdk's encoder sends: a wire error as is; otherwise the
	// error's text with the code of a wire error it wraps.
	we, ok := resp.Error.(*jsonrpc.Error)
	if !ok {
		we = &jsonrpc.Error{Message: resp.Error.Error()}
		var wrapped *jsonrpc.Error
		if errors.As(resp.Error, &wrapped) {
			we.Code = wrapped.Code
		}
		if len(we.Message) <= maxEcho && len(we.Data) <= maxEcho {
			return msg
		}
	} else if len(we.Message) <= maxEcho && len(we.Data) <= maxEcho {
		return msg
	}
	e := *we
	e.Message = truncateBytes(e.Message, maxEcho)
	if len(e.Data) > maxEcho {
		var d struct {
			URI *string `json:"uri"`
		}
		e.Data = nil
		if json.Unmarshal(we.Data, &d) == nil && d.URI != nil {
			e.Data, _ = json.Marshal(map[string]string{"uri": truncateBytes(*d.URI, maxEcho-16)})
		}
	}
	r := *resp
	r.Error = &e
	return &r
}
