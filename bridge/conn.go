package bridge

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Subprotocol is the WebSocket subprotocol of the wire contract: one UTF-8
// JSON-RPC 2.0 message per text frame, no batching, no binary frames. It is
// what the TypeScript SDK's WebSocketClientTransport and the Python SDK speak.
const Subprotocol = "mcp"

// TokenPrefix starts a subprotocol entry that carries a bearer token
// ("mcp.token.<token>"), since browsers cannot set headers on a WebSocket.
const TokenPrefix = "mcp.token."

// WebSocket close codes (RFC 6455 §7.4.1) this package sends or reads.
const (
	statusNormalClosure   = 1000
	statusGoingAway       = 1001
	statusUnsupportedData = 1003
	statusInvalidPayload  = 1007
	statusPolicyViolation = 1008
	statusMessageTooBig   = 1009
)

// A socket is the WebSocket under a Conn: coder/websocket natively
// (socket_notjs.go), the browser's WebSocket under js/wasm (socket_js.go),
// which keeps net/http (~310 KB brotli) out of the module.
type socket interface {
	// read returns the next message; binary reports a binary frame. It
	// unblocks with an error when ctx ends or the socket closes.
	read(ctx context.Context) (data []byte, binary bool, err error)
	// write sends one text frame.
	write(ctx context.Context, data []byte) error
	// close starts the closing handshake; closeNow drops the connection.
	close(code int, reason string) error
	closeNow() error
	setReadLimit(n int64)
	// errInfo says whether a read error means "message over the read limit"
	// and which close status the peer sent (-1 if none).
	errInfo(err error) (tooBig bool, status int)
	subprotocol() string
}

// DefaultReadLimit is the default largest message accepted (64 MiB), never
// the WebSocket library's 32 KiB default, which a single image read exceeds.
const DefaultReadLimit = 64 << 20

// A Conn is one MCP peer over a WebSocket: each Read returns one decoded
// JSON-RPC message, each Write sends one as a text frame. It satisfies
// go-sdk's mcp.Connection, so an mcp.Server can be served over it.
//
// Read must not be called concurrently with itself; Write and Close may be
// called concurrently with everything. Per-call contexts never reach the
// socket (a WebSocket library Read or Write whose context ends closes the
// whole connection): I/O runs under the connection's own lifetime.
type Conn struct {
	ws        socket
	readLimit int64
	principal string
	// onUndecodable is told about a text frame that is not a JSON-RPC
	// message; Read then goes on with the next frame.
	onUndecodable func(data []byte, err error)

	ctx    context.Context // the connection's lifetime
	cancel context.CancelFunc

	// Server side only (see serverconn.go): out queues writes for one
	// writer goroutine; boundErrors caps what an error answer echoes.
	out         *outbound
	boundErrors bool
	// lastActive is when a frame was last read or written, or a pong
	// received (UnixNano); gotCall is set by the first valid request.
	lastActive atomic.Int64
	gotCall    atomic.Bool
	// readSince is when the handler first asked for a frame (UnixNano; 0:
	// not yet): the first-request deadline runs from then (watchdog.go).
	readSince atomic.Int64
	// lastSent is when a frame (or a ping) was last sent (UnixNano), for
	// the keep-alive pings.
	lastSent atomic.Int64

	closeOnce sync.Once
	dropOnce  sync.Once // server side: fail's immediate drop
	mu        sync.Mutex
	err       error // why the connection ended, once it has
}

func newConn(ws socket, readLimit int64) *Conn {
	if readLimit <= 0 {
		readLimit = DefaultReadLimit
	}
	ws.setReadLimit(readLimit)
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{ws: ws, readLimit: readLimit, ctx: ctx, cancel: cancel}
	c.sent()
	return c
}

// touch records traffic on the connection (for the idle timeout).
func (c *Conn) touch() { c.lastActive.Store(time.Now().UnixNano()) }

// sent records a frame sent (for the idle timeout and the keep-alive pings).
func (c *Conn) sent() {
	now := time.Now().UnixNano()
	c.lastActive.Store(now)
	c.lastSent.Store(now)
}

// Principal is the identity the endpoint's Authenticate function returned for
// this connection ("" without authentication).
func (c *Conn) Principal() string { return c.principal }

// SessionID returns "": a WebSocket connection is its own session.
func (c *Conn) SessionID() string { return "" }

// ReadRaw returns the next text frame undecoded. Like Read, it returns at
// once when ctx has already ended, and otherwise waits under the connection's
// lifetime: Close (not ctx) unblocks it, so no frame is ever half-consumed.
func (c *Conn) ReadRaw(ctx context.Context) ([]byte, error) {
	if ctx != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	data, err := c.readFrame()
	if err == nil && c.out != nil && !c.gotCall.Load() {
		// A server reading raw frames: the first-request deadline still
		// wants to know when a valid request arrives.
		c.noteCall(data)
	}
	return data, err
}

func (c *Conn) readFrame() ([]byte, error) {
	if c.readSince.Load() == 0 {
		c.readSince.CompareAndSwap(0, time.Now().UnixNano())
	}
	data, binary, err := c.ws.read(c.ctx)
	if err != nil {
		rerr := c.readError(err)
		if c.out != nil {
			if slow := c.out.slowErr(); slow != nil {
				rerr = slow // the writer's deadline closed the connection
			}
		}
		return nil, c.fail(rerr)
	}
	c.touch()
	if binary {
		err := fmt.Errorf("%w: binary frame (the mcp subprotocol carries text frames only)", ErrProtocol)
		c.ws.close(statusUnsupportedData, "binary frames are not part of the mcp subprotocol")
		return nil, c.fail(err)
	}
	if checkUTF8 && !utf8.Valid(data) {
		// Browsers fail such a socket themselves (1006, no reason); natively
		// it is closed with 1007 and the error says why.
		err := fmt.Errorf("%w: the peer sent a text frame that is not valid UTF-8 (%d bytes; connection closed with 1007)", ErrProtocol, len(data))
		c.ws.close(statusInvalidPayload, "text frame is not valid UTF-8")
		return nil, c.fail(err)
	}
	return data, nil
}

func (c *Conn) readError(err error) error {
	tooBig, st := c.ws.errInfo(err)
	switch {
	case tooBig:
		return fmt.Errorf("%w: a message exceeded the read limit of %d bytes (connection closed with 1009): %v", ErrTooBig, c.readLimit, err)
	case c.ctx.Err() != nil:
		return ErrClosed
	case st == statusMessageTooBig:
		return fmt.Errorf("%w: the peer refused a message over its read limit (close 1009)", ErrTooBig)
	case st != -1:
		return fmt.Errorf("%w: peer closed the connection (%d %v)", ErrConnectionLost, st, err)
	}
	return fmt.Errorf("%w: %v", ErrConnectionLost, err)
}

// WriteRaw sends one pre-encoded JSON-RPC message as a text frame. On the
// server side ([Endpoint]) it queues the frame for the connection's writer
// and returns at once when the queue has room (else it waits for room, at
// most the write deadline); a peer that keeps the queue full, or does not
// take a frame, for the write deadline is disconnected (see
// [EndpointOptions.MaxQueue]). The queue keeps data itself, not a copy: the
// caller must not modify it after WriteRaw returns (a reused buffer would
// overwrite frames still waiting to be sent).
func (c *Conn) WriteRaw(ctx context.Context, data []byte) error {
	if ctx != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := c.Err(); err != nil {
		return err
	}
	if c.out != nil {
		return c.out.enqueue(ctx, c, data)
	}
	if err := c.ws.write(c.ctx, data); err != nil {
		return c.fail(c.readError(err))
	}
	c.sent()
	return nil
}

// Err returns why the connection ended, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.ctx.Done() }

func (c *Conn) fail(err error) error {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	err = c.err
	c.mu.Unlock()
	if c.out != nil {
		// Server side: drop the connection even while a graceful close
		// (Close draining the queue) is under way.
		c.dropOnce.Do(func() {
			c.cancel()
			c.ws.closeNow()
			c.out.drop()
		})
		return err
	}
	c.closeOnce.Do(func() {
		c.cancel()
		c.ws.closeNow()
	})
	return err
}

// Close closes the connection with a normal closure. It is idempotent and
// safe to call concurrently with Read and Write.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.err == nil {
		c.err = ErrClosed
	}
	c.mu.Unlock()
	c.closeOnce.Do(func() {
		if c.out != nil {
			// The writer sends what is queued (bounded by its deadline),
			// then closes.
			c.out.startClose()
			return
		}
		// Close waits (bounded by the library) for the peer's close frame;
		// cancel afterwards so a blocked Read returns.
		go func() {
			c.ws.close(statusNormalClosure, "")
			c.cancel()
		}()
	})
	return nil
}

// failClose ends the connection for a policy reason: err is recorded, the
// peer gets a close frame with code and reason (at most 1 s is spent on
// it), and the connection is dropped.
func (c *Conn) failClose(code int, reason string, err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.closeOnce.Do(func() {
		go func() {
			t := time.AfterFunc(time.Second, func() { c.fail(err) })
			c.ws.close(code, reason)
			t.Stop()
			c.fail(err)
		}()
	})
}
