//go:build !js

package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// A Raw is a hand-driven WebSocket client of the wire contract: it sends
// JSON-RPC messages built by the test and reads what comes back, one
// message per text frame, with nothing added.
type Raw struct {
	tb     testing.TB
	ws     *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	in     chan RawMsg
	done   chan struct{}
	err    error // why the read loop ended, once done is closed
}

// A RawMsg is one received JSON-RPC message, decoded loosely.
type RawMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error,omitempty"`
	Raw []byte `json:"-"`
}

// DialRaw opens a raw client to host's /mcp (token, when set, as the
// mcp.token.<token> subprotocol entry) and closes it when the test ends.
func DialRaw(tb testing.TB, host, token string) *Raw {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	protos := []string{bridge.Subprotocol}
	if token != "" {
		protos = append(protos, bridge.TokenPrefix+token)
	}
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	ws, _, err := websocket.Dial(dctx, "ws://"+host+"/mcp", &websocket.DialOptions{Subprotocols: protos})
	if err != nil {
		cancel()
		tb.Fatalf("dial %s: %v", host, err)
	}
	ws.SetReadLimit(bridge.DefaultReadLimit)
	r := &Raw{tb: tb, ws: ws, ctx: ctx, cancel: cancel, in: make(chan RawMsg, 256), done: make(chan struct{})}
	go r.readLoop()
	tb.Cleanup(r.Close)
	return r
}

func (r *Raw) readLoop() {
	defer close(r.done)
	for {
		_, data, err := r.ws.Read(r.ctx)
		if err != nil {
			r.err = err
			return
		}
		var m RawMsg
		if err := json.Unmarshal(data, &m); err != nil {
			r.err = fmt.Errorf("undecodable frame %q: %v", data, err)
			return
		}
		m.Raw = data
		select {
		case r.in <- m:
		case <-r.ctx.Done():
			return
		}
	}
}

// Close closes the socket.
func (r *Raw) Close() {
	r.ws.Close(websocket.StatusNormalClosure, "")
	r.cancel()
	<-r.done
}

// Send writes one message: a string or []byte as is, anything else as JSON.
func (r *Raw) Send(msg any) {
	r.tb.Helper()
	var data []byte
	switch m := msg.(type) {
	case string:
		data = []byte(m)
	case []byte:
		data = m
	default:
		var err error
		if data, err = json.Marshal(m); err != nil {
			r.tb.Fatal(err)
		}
	}
	if err := r.ws.Write(r.ctx, websocket.MessageText, data); err != nil {
		r.tb.Fatalf("send %s: %v", data, err)
	}
}

// Next returns the next message, failing the test after d.
func (r *Raw) Next(d time.Duration) RawMsg {
	r.tb.Helper()
	select {
	case m := <-r.in:
		return m
	case <-r.done:
		r.tb.Fatalf("the connection ended while a message was awaited: %v", r.err)
	case <-time.After(d):
		r.tb.Fatalf("no message within %v", d)
	}
	return RawMsg{}
}

// TryNext returns the next message if one comes within d, and false
// when none does (the connection's end too): for a test that waits on
// something else at the same time.
func (r *Raw) TryNext(d time.Duration) (RawMsg, bool) {
	select {
	case m := <-r.in:
		return m, true
	case <-r.done:
	case <-time.After(d):
	}
	return RawMsg{}, false
}

// Answer returns the answer to id (a JSON value such as 7 or "a"),
// passing the messages before it to skip (nil: skipped silently).
func (r *Raw) Answer(id string, d time.Duration, skip func(RawMsg)) RawMsg {
	r.tb.Helper()
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			r.tb.Fatalf("no answer to id %s within %v", id, d)
		}
		m := r.Next(left)
		if m.Method == "" && string(m.ID) == id {
			return m
		}
		if skip != nil {
			skip(m)
		}
	}
}

// Ended waits up to d for the server to close the socket, reporting
// whether it did; messages still arriving are returned.
func (r *Raw) Ended(d time.Duration) (bool, []RawMsg) {
	var got []RawMsg
	deadline := time.After(d)
	for {
		select {
		case m := <-r.in:
			got = append(got, m)
		case <-r.done:
			for {
				select {
				case m := <-r.in:
					got = append(got, m)
				default:
					return true, got
				}
			}
		case <-deadline:
			return false, got
		}
	}
}

// WSTransport is a go-sdk client transport over the wire contract
// (subprotocol "mcp", one JSON-RPC message per text frame), for testing
// servers with go-sdk's own client.
type WSTransport struct {
	URL   string // ws://host/mcp
	Token string // sent as mcp.token.<token> when set
}

// Connect implements mcp.Transport.
func (t *WSTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	protos := []string{bridge.Subprotocol}
	if t.Token != "" {
		protos = append(protos, bridge.TokenPrefix+t.Token)
	}
	ws, _, err := websocket.Dial(ctx, t.URL, &websocket.DialOptions{Subprotocols: protos})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(bridge.DefaultReadLimit)
	c := &wsConn{ws: ws}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

type wsConn struct {
	ws     *websocket.Conn
	ctx    context.Context // the connection's lifetime: a call's context must not close the socket
	cancel context.CancelFunc
	once   sync.Once
}

func (c *wsConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	// A context that ends closes the socket (coder/websocket), which is
	// what go-sdk wants of a Read it abandons.
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", mcp.ErrConnectionClosed, err)
	}
	return jsonrpc.DecodeMessage(data)
}

func (c *wsConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if err := c.ws.Write(c.ctx, websocket.MessageText, data); err != nil {
		return errors.Join(mcp.ErrConnectionClosed, err)
	}
	return nil
}

func (c *wsConn) Close() error {
	c.once.Do(func() {
		c.ws.Close(websocket.StatusNormalClosure, "")
		c.cancel()
	})
	return nil
}

func (c *wsConn) SessionID() string { return "" }
