//go:build !js

package bridge

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The typed half of [Conn], for servers and gateways (native only: the
// module's client writes and parses its frames itself, see envelope.go and
// wire_js.go).

// Read returns the next JSON-RPC message. A text frame that does not decode is
// reported (see [EndpointOptions]) and skipped, so one bad message never ends
// the session. A binary frame is a protocol error: the connection is closed
// with 1003. A message over the read limit closes it with 1009 and the error
// names the limit. Close unblocks a waiting Read.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		data, err := c.ReadRaw(ctx)
		if err != nil {
			return nil, err
		}
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			if c.onUndecodable != nil {
				c.onUndecodable(data, err)
			}
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.gotCall.Store(true)
		}
		return msg, nil
	}
}

// Write sends msg as one text frame. ctx is checked before sending but does
// not reach the socket.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if c.boundErrors {
		msg = boundError(msg)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("bridge: encode message: %w", err)
	}
	return c.WriteRaw(ctx, data)
}

// noteCall records that a valid request with an id arrived (for the
// first-request deadline).
func (c *Conn) noteCall(data []byte) {
	if msg, err := jsonrpc.DecodeMessage(data); err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.gotCall.Store(true)
		}
	}
}
