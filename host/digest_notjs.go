//go:build !js

package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// defaultDigest is crypto/sha256 natively (the wasm module brings its own).
var defaultDigest DigestFunc = func(_ context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
