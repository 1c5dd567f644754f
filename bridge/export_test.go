//go:build !js

package bridge

import (
	"context"

	"github.com/coder/websocket"
)

// WriteBinaryForTest sends a binary frame, which the contract forbids.
func WriteBinaryForTest(c *Conn, p []byte) error {
	return c.ws.(coderSocket).c.Write(context.Background(), websocket.MessageBinary, p)
}

// WithRequestStateForTest is withRequestState.
var WithRequestStateForTest = withRequestState
