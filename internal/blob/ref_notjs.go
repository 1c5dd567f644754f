//go:build !js

package blob

import (
	"errors"
	"sync/atomic"
)

// A Ref is a blob's decoded bytes held outside Go's heap: in JavaScript
// under js/wasm; natively (for tests) a Go slice made by [Hold].
type Ref struct {
	size     int64
	sum      uint64
	data     []byte
	released atomic.Bool
}

// Hold makes a Ref over data (not copied).
func Hold(data []byte) *Ref {
	return &Ref{size: int64(len(data)), sum: Hash(data), data: data}
}

// Size is the number of decoded bytes.
func (r *Ref) Size() int64 { return r.size }

// Sum is [Hash] of the bytes.
func (r *Ref) Sum() uint64 { return r.sum }

// ErrReleased is what reading a released Ref reports.
var ErrReleased = errors.New("blob: the bytes were released")

// Prefix copies the first n bytes (all of them when n ≥ Size).
func (r *Ref) Prefix(n int64) ([]byte, error) {
	if r.released.Load() {
		return nil, ErrReleased
	}
	n = min(max(n, 0), r.size)
	return append([]byte(nil), r.data[:n]...), nil
}

// Bytes copies every byte into Go.
func (r *Ref) Bytes() ([]byte, error) { return r.Prefix(r.size) }

// Release lets go of the bytes; later reads fail with [ErrReleased].
func (r *Ref) Release() {
	if r.released.CompareAndSwap(false, true) {
		r.data = nil
	}
}

// Released reports whether Release ran.
func (r *Ref) Released() bool { return r.released.Load() }
