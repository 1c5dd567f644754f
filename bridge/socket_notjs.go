//go:build !js

package bridge

import (
	"context"
	"errors"

	"github.com/coder/websocket"
)

// checkUTF8: coder/websocket does not validate text frames, so Conn does.
const checkUTF8 = true

// coderSocket is the native socket: coder/websocket.
type coderSocket struct{ c *websocket.Conn }

func dialSocket(ctx context.Context, url string, protos []string) (socket, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: protos})
	if err != nil {
		return nil, err
	}
	return coderSocket{c}, nil
}

func (s coderSocket) read(ctx context.Context) ([]byte, bool, error) {
	typ, data, err := s.c.Read(ctx)
	return data, typ != websocket.MessageText, err
}

func (s coderSocket) write(ctx context.Context, data []byte) error {
	return s.c.Write(ctx, websocket.MessageText, data)
}

func (s coderSocket) close(code int, reason string) error {
	return s.c.Close(websocket.StatusCode(code), reason)
}

func (s coderSocket) closeNow() error      { return s.c.CloseNow() }
func (s coderSocket) setReadLimit(n int64) { s.c.SetReadLimit(n) }
func (s coderSocket) subprotocol() string  { return s.c.Subprotocol() }
func (s coderSocket) errInfo(err error) (bool, int) {
	return errors.Is(err, websocket.ErrMessageTooBig), int(websocket.CloseStatus(err))
}
