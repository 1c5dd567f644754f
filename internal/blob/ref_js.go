package blob

import (
	"errors"
	"runtime"
	"sync/atomic"
	"syscall/js"
)

// A Ref is a blob's decoded bytes held in JavaScript: box is a plain object
// {bytes: Uint8Array} made by web/socket.js. Release empties the box (Go's
// reference to a JS value is dropped only when Go collects it, which a
// heap that holds no bytes does rarely; the box's bytes go at once).
type Ref struct {
	size     int64
	sum      uint64
	box      js.Value
	released atomic.Bool
}

var uint8Array = js.Global().Get("Uint8Array")

// FromJS makes a Ref over box ({bytes: Uint8Array}), whose size and [Hash]
// web/socket.js computed. Go collecting the Ref releases it.
func FromJS(box js.Value, size int64, sum uint64) *Ref {
	r := &Ref{size: size, sum: sum, box: box}
	runtime.AddCleanup(r, func(b js.Value) { b.Set("bytes", js.Null()) }, box)
	return r
}

// Hold copies data into a new Uint8Array and makes a Ref over it.
func Hold(data []byte) *Ref {
	u := uint8Array.New(len(data))
	js.CopyBytesToJS(u, data)
	box := js.Global().Get("Object").New()
	box.Set("bytes", u)
	return FromJS(box, int64(len(data)), Hash(data))
}

// Size is the number of decoded bytes.
func (r *Ref) Size() int64 { return r.size }

// Sum is [Hash] of the bytes.
func (r *Ref) Sum() uint64 { return r.sum }

// ErrReleased is what reading a released Ref reports.
var ErrReleased = errors.New("blob: the bytes were released")

// JS returns the Uint8Array (shared, not copied), or null once released.
func (r *Ref) JS() js.Value {
	if r.released.Load() {
		return js.Null()
	}
	return r.box.Get("bytes")
}

// Prefix copies the first n bytes (all of them when n ≥ Size).
func (r *Ref) Prefix(n int64) ([]byte, error) {
	u := r.JS()
	if u.Type() != js.TypeObject {
		return nil, ErrReleased
	}
	n = min(max(n, 0), r.size)
	out := make([]byte, n)
	if n == r.size {
		js.CopyBytesToGo(out, u)
	} else {
		js.CopyBytesToGo(out, u.Call("subarray", 0, n))
	}
	return out, nil
}

// Bytes copies every byte into Go.
func (r *Ref) Bytes() ([]byte, error) { return r.Prefix(r.size) }

// Release empties the box; later reads fail with [ErrReleased].
func (r *Ref) Release() {
	if r.released.CompareAndSwap(false, true) {
		r.box.Set("bytes", js.Null())
	}
}

// Released reports whether Release ran.
func (r *Ref) Released() bool { return r.released.Load() }
