//go:build !js

package attach

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/blob"
)

// heldCheck is checkHeldImage over data held as the browser would hold it.
func heldCheck(typ string, data []byte) error { return checkHeldImage(typ, blob.Hold(data), nil) }

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
				got := checkHeldImage(typ, blob.Hold(tc.data), tc.data[:min(len(tc.data), int(start))])
				if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
					t.Errorf("%s as %s from a %d-byte prefix: held %v, whole %v", tc.name, typ, start, got, want)
				}
			}
		}
	}
}

// TestHeldPartEqualsDecoded: a part whose bytes stayed in the browser is
// decided exactly as the same bytes sent as base64 — type, sniffing,
// warnings, image forwarding, text, size — for images valid and broken,
// text, JSON, SVG and bytes of no type, declared right, wrong or not at
// all. Only where the bytes live differs.
func TestHeldPartEqualsDecoded(t *testing.T) {
	payloads := map[string][]byte{
		"random": func() []byte {
			b := make([]byte, 70000)
			for i := range b {
				b[i] = byte(i*7919>>3) ^ 0x5a
			}
			return b
		}(),
		"text":  []byte(strings.Repeat("plain text line\n", 5000)),
		"json":  []byte(`{"a":[` + strings.Repeat(`1,`, 3000) + `2]}`),
		"svg":   []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
		"empty": {},
		// NULs are valid UTF-8 that sniffs as no type: declared text, the
		// whole payload decides, not its first bytes.
		"nuls":           make([]byte, 8000),
		"nuls then 0xff": append(make([]byte, 8000), 0xff),
	}
	for _, tc := range imageCases(t) {
		payloads["image "+tc.name] = tc.data
	}
	declared := []string{"", "image/png", "image/jpeg", "application/octet-stream", "text/plain", "application/json", "not a type"}
	for name, data := range payloads {
		for _, decl := range declared {
			b64 := base64.StdEncoding.EncodeToString(data)
			token := blob.TokenPrefix + "t:" + name
			want := FromContents([]Contents{{URI: "x://p", MIMEType: decl, Blob: &b64}}, nil)[0]
			ref := blob.Hold(data)
			got := FromContents([]Contents{{URI: "x://p", MIMEType: decl, Blob: &token, Held: ref}}, nil)[0]
			gb, err := got.BinaryBytes()
			if err != nil && got.Kind == KindBinary {
				t.Fatalf("%s as %q: %v", name, decl, err)
			}
			if got.Kind == KindBinary && !bytes.Equal(gb, data) {
				t.Errorf("%s as %q: the held part's bytes differ", name, decl)
			}
			if got.Held != nil && ref.Released() {
				t.Errorf("%s as %q: the part holds released bytes", name, decl)
			}
			if got.Held == nil && !ref.Released() {
				t.Errorf("%s as %q: the bytes were copied into Go but the hold was not released", name, decl)
			}
			got.Held, got.Bytes, want.Bytes = nil, nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s as %q:\n held   %+v\n base64 %+v", name, decl, got, want)
			}
		}
	}
}

func TestHeldPartLimitsAndReleased(t *testing.T) {
	data := make([]byte, 5000)
	token := blob.TokenPrefix + "t:limit"
	ref := blob.Hold(data)
	a := FromContents([]Contents{{URI: "x://big", Blob: &token, Held: ref}}, &Options{MaxPartBytes: 4000})[0]
	if a.Kind != KindError || a.Error.Code != CodeTooLarge || !ref.Released() {
		t.Errorf("over the part limit: kind %s, error %v, released %v", a.Kind, a.Error, ref.Released())
	}
	gone := blob.Hold(data)
	gone.Release()
	a = FromContents([]Contents{{URI: "x://gone", Blob: &token, Held: gone}}, nil)[0]
	if a.Kind != KindError || !strings.Contains(a.Error.Message, "x://gone") {
		t.Errorf("released before the part was made: %+v", a)
	}
}
