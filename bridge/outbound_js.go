package bridge

import "context"

// outbound is the send queue of a server connection (outbound.go, not in
// the js build: a connection in the browser is a client's, whose writes are
// never queued and whose errors are not bounded, and the module should not
// carry the server's code).
type outbound struct{}

func (*outbound) enqueue(context.Context, *Conn, []byte) error { return nil }
func (*outbound) drop()                                        {}
func (*outbound) startClose()                                  {}
func (*outbound) slowErr() error                               { return nil }

// noteCall is a server's concern; a connection in the browser never is one.
func (*Conn) noteCall([]byte) {}
