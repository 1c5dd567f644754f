package bridge

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// outbound is the send queue of a server connection (outbound.go, not in
// the js build: a connection in the browser is a client's, whose writes are
// never queued and whose errors are not bounded, and the module should not
// carry the server's code).
type outbound struct{}

func (*outbound) enqueue(context.Context, *Conn, []byte) error { return nil }
func (*outbound) drop()                                        {}
func (*outbound) startClose()                                  {}
func (*outbound) slowErr() error                               { return nil }

func boundError(msg jsonrpc.Message) jsonrpc.Message { return msg }
