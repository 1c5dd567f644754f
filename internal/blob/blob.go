package blob

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// TokenPrefix starts every token web/socket.js puts in place of a blob it
// kept: "*" cannot start base64, so a token never decodes as a blob.
const TokenPrefix = "*mcphost-blob:"

// Seeds of [Hash] for this process, random so that a server cannot craft
// two payloads with one digest for a URI it does not control.
var seed1, seed2 = rand.Uint32(), rand.Uint32()

// Seeds returns the seeds of [Hash], for the JavaScript twin of it.
func Seeds() (uint32, uint32) { return seed1, seed2 }

// Hash is the ledger's digest of a blob's decoded bytes: two murmur3-style
// 32-bit lanes over the little-endian words, seeded per process. It is not
// a cryptographic hash. Why this one: web/socket.js computes the same
// function over bytes that never enter Go (1.2 ms for 1.8 MB in Chromium,
// where WebCrypto's SHA-256 took 2–4 ms and is asynchronous), and Go
// computes it over the bytes it decoded itself, so a blob compares equal
// however it travelled. A collision can only make the ledger take one of a
// server's payloads for another payload of the same URI, which that server
// could have sent anyway.
func Hash(b []byte) uint64 { return hashSeeded(b, seed1, seed2) }

const (
	c1 = 0xcc9e2d51
	c2 = 0x1b873593
	c3 = 0x85ebca6b
	c4 = 0xc2b2ae35
)

func hashSeeded(b []byte, s1, s2 uint32) uint64 {
	n := uint32(len(b))
	h1, h2 := s1^n, s2^n
	i := 0
	for ; i+4 <= len(b); i += 4 {
		w := binary.LittleEndian.Uint32(b[i:])
		h1 ^= bits.RotateLeft32(w*c1, 15) * c2
		h1 = bits.RotateLeft32(h1, 13)*5 + 0xe6546b64
		h2 ^= bits.RotateLeft32(w*c3, 17) * c4
		h2 = bits.RotateLeft32(h2, 11)*9 + 0x7feb352d
	}
	if i < len(b) {
		var t uint32
		for j := len(b) - 1; j >= i; j-- {
			t = t<<8 | uint32(b[j])
		}
		h1 ^= bits.RotateLeft32(t*c1, 15) * c2
		h2 ^= bits.RotateLeft32(t*c3, 17) * c4
	}
	h1 ^= n
	h2 ^= n
	h1 += h2
	h2 += h1
	h1, h2 = fmix(h1), fmix(h2)
	h1 += h2
	h2 += h1
	return uint64(h1)<<32 | uint64(h2)
}

func fmix(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// offers are the Refs taken with frames and not yet claimed, by token.
var offers = struct {
	sync.Mutex
	m map[string]offer
}{m: map[string]offer{}}

type offer struct {
	ref *Ref
	at  time.Time
}

// Offer makes r claimable by token until [Claim] or [Sweep].
func Offer(token string, r *Ref) {
	offers.Lock()
	offers.m[token] = offer{r, time.Now()}
	offers.Unlock()
}

// Claim returns the Ref offered for s, once, or nil when s is not an
// offered token (then s is what the server sent).
func Claim(s string) *Ref {
	if !strings.HasPrefix(s, TokenPrefix) {
		return nil
	}
	offers.Lock()
	o, ok := offers.m[s]
	delete(offers.m, s)
	offers.Unlock()
	if !ok {
		return nil
	}
	return o.ref
}

// Sweep releases the offers older than age: the answer they came with was
// not decoded (its call was cancelled, or it was not what was expected).
func Sweep(age time.Duration) {
	now := time.Now()
	var old []*Ref
	offers.Lock()
	for k, o := range offers.m {
		if now.Sub(o.at) > age {
			old = append(old, o.ref)
			delete(offers.m, k)
		}
	}
	offers.Unlock()
	for _, r := range old {
		r.Release()
	}
}

// SweepPrefix releases the offers whose token starts with prefix: a
// socket's tokens share one (web/blob.js: the prefix and the socket's
// nonce), so a socket that ends releases what its frames left unclaimed.
func SweepPrefix(prefix string) {
	var old []*Ref
	offers.Lock()
	for k, o := range offers.m {
		if strings.HasPrefix(k, prefix) {
			old = append(old, o.ref)
			delete(offers.m, k)
		}
	}
	offers.Unlock()
	for _, r := range old {
		r.Release()
	}
}

// Offered is the number of Refs waiting to be claimed (tests).
func Offered() int {
	offers.Lock()
	defer offers.Unlock()
	return len(offers.m)
}

// Release lets go of every Ref in parts' order, skipping nils.
func Release(refs ...*Ref) {
	for _, r := range refs {
		if r != nil {
			r.Release()
		}
	}
}
