//go:build !js

package attach

import (
	"testing"

	"github.com/mcphost/mcphost/internal/blob"
)

// heldCheck is checkHeldImage over data held as the browser would hold it.
func heldCheck(typ string, data []byte) error { return checkHeldImage(typ, blob.Hold(data)) }

// TestHeldImageCheck: over bytes held in the browser the check copies
// growing prefixes and decides as over every byte, for every case and
// starting prefix.
func TestHeldImageCheck(t *testing.T) {
	defer func(n int64) { heldCheckBytes = n }(heldCheckBytes)
	for _, start := range []int64{1, 16, 100, 4096, 64 << 10} {
		heldCheckBytes = start
		for _, tc := range imageCases(t) {
			for _, typ := range imageTypes {
				want := checkImage(typ, tc.data)
				got := checkHeldImage(typ, blob.Hold(tc.data))
				if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
					t.Errorf("%s as %s from a %d-byte prefix: held %v, whole %v", tc.name, typ, start, got, want)
				}
			}
		}
	}
}
