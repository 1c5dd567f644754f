//go:build !js

package bridge

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// checkUTF8: coder/websocket does not validate text frames, so Conn does.
const checkUTF8 = true

// coderSocket is the native socket: coder/websocket.
type coderSocket struct{ c *websocket.Conn }

func dialSocket(ctx context.Context, url string, protos []string) (socket, error) {
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: protos})
	if err != nil {
		if r := upgradeRefusal(resp); r != nil {
			return nil, r
		}
		return nil, err
	}
	return coderSocket{c}, nil
}

// upgradeRefusal reads a refused upgrade's answer: 401, 403 and 503 with
// the body's text as the reason (coder/websocket keeps its first 1 KB) and
// Retry-After. Any other answer is nil: the failure was something else.
func upgradeRefusal(resp *http.Response) *refusal {
	if resp == nil {
		return nil
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusServiceUnavailable:
	default:
		return nil
	}
	r := &refusal{status: resp.StatusCode, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"))}
	if resp.Body != nil {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		r.reason = strings.TrimSpace(string(b))
	}
	return r
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
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
