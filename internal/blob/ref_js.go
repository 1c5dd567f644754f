package blob

import (
	"errors"
	"runtime"
	"sync/atomic"
	"syscall/js"
)

// A Ref is a blob's decoded bytes held in JavaScript, in a box made by
// web/blob.js. Go never holds a reference to the Uint8Array itself, only to
// the box: a js.Value is dropped only when Go collects it, which a heap that
// holds no bytes does rarely, so Release empties the box and the bytes go
// at once (unless the page kept them).
type Ref struct {
	size     int64
	sum      uint64
	box      js.Value
	released atomic.Bool
}

// FromJS makes a Ref over a box of web/blob.js, whose size and [Hash]
// socket.js computed. Go collecting the Ref releases it.
func FromJS(box js.Value, size int64, sum uint64) *Ref {
	r := &Ref{size: size, sum: sum, box: box}
	// SetFinalizer, not AddCleanup: syscall/js links it already, and the
	// generic AddCleanup instantiation cost the module 3.8 KB raw.
	runtime.SetFinalizer(r, func(r *Ref) { r.Release() })
	return r
}

// Size is the number of decoded bytes.
func (r *Ref) Size() int64 { return r.size }

// Sum is [Hash] of the bytes.
func (r *Ref) Sum() uint64 { return r.sum }

// ErrReleased is what reading a released Ref reports.
var ErrReleased = errors.New("blob: the bytes were released")

// Box returns the box for mcphost.js, which puts the bytes in the page's
// attachment object (fixAttachments): an object Go made and still
// references must not hold them.
func (r *Ref) Box() js.Value { return r.box }

// Prefix copies the first n bytes (all of them when n ≥ Size).
func (r *Ref) Prefix(n int64) ([]byte, error) {
	if r.released.Load() {
		return nil, ErrReleased
	}
	n = min(max(n, 0), r.size)
	u := r.box.Call("head", n)
	if u.Type() != js.TypeObject {
		return nil, ErrReleased
	}
	out := make([]byte, n)
	js.CopyBytesToGo(out, u)
	return out, nil
}

// Bytes copies every byte into Go.
func (r *Ref) Bytes() ([]byte, error) { return r.Prefix(r.size) }

// Release empties the box; later reads fail with [ErrReleased].
func (r *Ref) Release() {
	if r.released.CompareAndSwap(false, true) {
		r.box.Call("drop")
	}
}

// Released reports whether Release ran.
func (r *Ref) Released() bool { return r.released.Load() }
