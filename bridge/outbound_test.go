//go:build !js

package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzBoundError checks that whatever error a handler returns (a wire
// error with any message and data, or a plain error wrapping one), the
// answer sent echoes at most maxEcho bytes of message and of data, stays
// valid UTF-8 when the input was, keeps the code, and encodes.
func FuzzBoundError(f *testing.F) {
	f.Add(int64(-32602), "not found: "+strings.Repeat("a", 2000), `{"uri":"`+strings.Repeat("u", 3000)+`"}`, false)
	f.Add(int64(-32601), "method not found", "", true)
	f.Add(int64(-32603), strings.Repeat("é", 600), `[1,2,3]`, false)
	f.Add(int64(0), "short", `{"uri":7}`, true)
	f.Fuzz(func(t *testing.T, code int64, msg, data string, wrapped bool) {
		we := &jsonrpc.Error{Code: code, Message: msg}
		if json.Valid([]byte(data)) {
			we.Data = json.RawMessage(data)
		}
		var err error = we
		if wrapped {
			err = fmt.Errorf("%w: %s", we, msg)
		}
		id, _ := jsonrpc.MakeID(float64(1))
		out := boundError(&jsonrpc.Response{ID: id, Error: err})
		resp := out.(*jsonrpc.Response)
		var got *jsonrpc.Error
		if !errors.As(resp.Error, &got) {
			t.Fatalf("no wire error in %v", resp.Error)
		}
		text := resp.Error.Error()
		if g, ok := resp.Error.(*jsonrpc.Error); ok {
			text = g.Message
		}
		if len(text) > maxEcho || len(got.Data) > maxEcho {
			t.Fatalf("message %d bytes, data %d bytes; want <= %d each", len(text), len(got.Data), maxEcho)
		}
		if got.Code != code {
			t.Fatalf("code %d, want %d", got.Code, code)
		}
		if utf8.ValidString(msg) && !utf8.ValidString(text) {
			t.Fatalf("message no longer valid UTF-8: %q", text)
		}
		if _, err := jsonrpc.EncodeMessage(out); err != nil {
			t.Fatalf("encode: %v", err)
		}
	})
}

func TestTruncateBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 5, "ab…"},
		{"ééé", 6, "ééé"},
		{"éééé", 6, "é…"},
		{"éééé", 7, "éé…"},
	} {
		if got := truncateBytes(tc.in, tc.n); got != tc.want || len(got) > tc.n {
			t.Errorf("truncateBytes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// A server that writes and returns (its connection closed by Endpoint)
// still delivers every queued frame, in order, before the close frame.
func TestQueueDrainsOnClose(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	srv := httptest.NewServer(Endpoint(&EndpointOptions{MaxQueue: 1 << 20}, func(ctx context.Context, c *Conn) {
		for i := range 5 {
			if err := c.WriteRaw(ctx, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"n%d","params":{"p":%q}}`, i, big))); err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		}
	}))
	defer srv.Close()
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{Subprotocols: []string{Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(8 << 20)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 5 {
		_, data, err := ws.Read(ctx)
		if err != nil || !strings.Contains(string(data[:40]), fmt.Sprintf(`"n%d"`, i)) {
			t.Fatalf("frame %d: %v %.40s", i, err, data)
		}
	}
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after the frames: %v, want a normal closure", err)
	}
}
