//go:build !js

package bridge

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Errors of the in-process socket.
var (
	errPipeClosed = errors.New("bridge: in-process socket closed")
	errPipeTooBig = errors.New("bridge: in-process message over the read limit")
)

// A pipeSocket is one end of an in-process socket pair ([newPipe]): the
// relay door's client on one end, the endpoint's serve function on the
// other. Each message is copied (a real socket has consumed it when write
// returns), each end's read limit applies to what it reads, and closing
// either end closes both; messages already sent are still read.
type pipeSocket struct {
	in, out chan []byte
	done    chan struct{}
	once    *sync.Once
	limit   atomic.Int64
}

// newPipe returns the two ends of an in-process socket.
func newPipe() (a, b *pipeSocket) {
	ab, ba := make(chan []byte, 16), make(chan []byte, 16)
	done, once := make(chan struct{}), new(sync.Once)
	a = &pipeSocket{in: ba, out: ab, done: done, once: once}
	b = &pipeSocket{in: ab, out: ba, done: done, once: once}
	return a, b
}

func (p *pipeSocket) read(ctx context.Context) ([]byte, bool, error) {
	var d []byte
	select {
	case d = <-p.in:
	case <-p.done:
		select {
		case d = <-p.in:
		default:
			return nil, false, errPipeClosed
		}
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	if int64(len(d)) > p.limit.Load() {
		p.shut()
		return nil, false, errPipeTooBig
	}
	return d, false, nil
}

func (p *pipeSocket) write(ctx context.Context, data []byte) error {
	select {
	case <-p.done:
		return errPipeClosed
	default:
	}
	select {
	case p.out <- bytes.Clone(data):
		return nil
	case <-p.done:
		return errPipeClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipeSocket) shut()                   { p.once.Do(func() { close(p.done) }) }
func (p *pipeSocket) close(int, string) error { p.shut(); return nil }
func (p *pipeSocket) closeNow() error         { p.shut(); return nil }
func (p *pipeSocket) setReadLimit(n int64)    { p.limit.Store(n) }
func (p *pipeSocket) subprotocol() string     { return Subprotocol }
func (p *pipeSocket) errInfo(err error) (bool, int) {
	if errors.Is(err, errPipeClosed) {
		return false, statusNormalClosure
	}
	return errors.Is(err, errPipeTooBig), -1
}
