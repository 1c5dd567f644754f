//go:build !js

package bridge

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerHandler serves go-sdk MCP servers over the WebSocket contract.
// newServer is called once per connection, so a server can hold only what
// that connection's principal ([Conn.Principal]) may see; it may return the
// same server for every connection. The file is excluded from the js build:
// the wasm module never links go-sdk's mcp package.
func ServerHandler(opts *EndpointOptions, newServer func(c *Conn) *mcp.Server) http.Handler {
	return Endpoint(opts, func(ctx context.Context, c *Conn) {
		if s := newServer(c); s != nil {
			Serve(ctx, c, s)
		}
	})
}

// Serve runs one go-sdk server session over c until the session ends, the
// connection closes or ctx ends.
func Serve(ctx context.Context, c *Conn, s *mcp.Server) error {
	ss, err := s.Connect(ctx, Transport(c), nil)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { ss.Wait(); close(done) }()
	select {
	case <-done:
	case <-c.Done():
		ss.Close()
		<-done
	case <-ctx.Done():
		ss.Close()
		<-done
	}
	return nil
}

// Transport adapts an accepted [Conn] to go-sdk's mcp.Transport (Connect
// returns the Conn itself; call it once).
func Transport(c *Conn) mcp.Transport { return connTransport{c} }

type connTransport struct{ c *Conn }

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }
