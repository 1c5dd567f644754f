//go:build !js

package blob

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json")

// vector is one case of testdata/hash.json, which e2e/blob.test.mjs checks
// web/blob.js's twin of Hash against.
type vector struct {
	Seed1 uint32 `json:"seed1"`
	Seed2 uint32 `json:"seed2"`
	Hex   string `json:"hex"`
	Sum   string `json:"sum"` // 16 hex digits
}

func vectors() []vector {
	var out []vector
	seeds := [][2]uint32{{0, 0}, {1, 2}, {0xdeadbeef, 0x01234567}, {0xffffffff, 0x80000000}}
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 64, 255, 1000, 4097} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*131 + n)
		}
		for _, s := range seeds {
			out = append(out, vector{s[0], s[1], hex.EncodeToString(b), fmt.Sprintf("%016x", hashSeeded(b, s[0], s[1]))})
		}
	}
	return out
}

func TestHashVectors(t *testing.T) {
	got := vectors()
	if *update {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile("testdata/hash.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/hash.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []vector
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("testdata/hash.json has %d vectors, want %d (go test -update)", len(want), len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("vector %d: %+v, golden %+v", i, got[i], want[i])
		}
	}
}

// TestHashSeparates: a one-bit change anywhere, a length change and a seed
// change all change the sum.
func TestHashSeparates(t *testing.T) {
	b := make([]byte, 4099)
	for i := range b {
		b[i] = byte(i)
	}
	base := hashSeeded(b, 7, 9)
	seen := map[uint64]int{base: -1}
	for i := 0; i < len(b); i += 97 {
		c := append([]byte(nil), b...)
		c[i] ^= 1 << (i % 8)
		h := hashSeeded(c, 7, 9)
		if j, dup := seen[h]; dup {
			t.Fatalf("flip at %d collides with %d", i, j)
		}
		seen[h] = i
	}
	if hashSeeded(b[:4098], 7, 9) == base || hashSeeded(append(b, 0), 7, 9) == base {
		t.Error("a length change kept the sum")
	}
	if hashSeeded(b, 8, 9) == base || hashSeeded(b, 7, 10) == base {
		t.Error("a seed change kept the sum")
	}
}

// b64case is one case of testdata/base64.json: what Go's strict decoder
// (the attach package's rule: strict, padded, no CR/LF, exact length)
// decides; e2e/blob.test.mjs holds web/blob.js's decodeStrict to it.
type b64case struct {
	In  string `json:"in"`
	OK  bool   `json:"ok"`
	Hex string `json:"hex,omitempty"`
}

func goDecides(s string) b64case {
	d, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(s) != base64.StdEncoding.EncodedLen(len(d)) {
		return b64case{In: s}
	}
	return b64case{In: s, OK: true, Hex: hex.EncodeToString(d)}
}

func TestBase64Decisions(t *testing.T) {
	ins := []string{
		"", "AA==", "AAA=", "AAAA", "QUJD", "QUJDRA==", "QUJDREU=",
		"AB==", "AAB=", // non-zero padding bits
		"AA", "AAA", "QUJDRA", "QUJDREU", // missing padding
		"AA=", "A===", "====", "AA==AA==", "=AAA", // misplaced padding
		"QU JD", "QUJD ", " QUJD", "QU\tJD", "QU\nJD", "QUJD\r\n", "QU\fJD", // whitespace
		"QUJD    ", "QU\n\n\n\nJD", "QUJDRA==\r\n\r\n", "\t\t\t\tQUJD", // whitespace a lenient decoder skips to a valid length
		"QUJ-", "QUJ_", "QUJ.", "QUJ\x00", "QUJ\u00e9", // other alphabets, bytes
		"////", "++++", "+/+/", "AAAAAAAA",
	}
	got := make([]b64case, len(ins))
	for i, s := range ins {
		got[i] = goDecides(s)
	}
	if *update {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile("testdata/base64.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/base64.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []b64case
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("testdata/base64.json is stale (go test -update ./internal/blob)")
	}
}

func TestClaimOnce(t *testing.T) {
	r := Hold([]byte("abc"))
	tok := TokenPrefix + "x:1"
	Offer(tok, r)
	if Claim("QUJD") != nil || Claim(TokenPrefix+"x:2") != nil {
		t.Fatal("claimed what was not offered")
	}
	if Claim(tok) != r || Claim(tok) != nil {
		t.Fatal("an offer must be claimed exactly once")
	}
	other := Hold([]byte("def"))
	Offer(TokenPrefix+"y:1", other)
	Offer(tok, r)
	SweepPrefix(TokenPrefix + "x:")
	if !r.Released() || other.Released() || Offered() != 1 {
		t.Fatal("SweepPrefix must release exactly the offers of its prefix")
	}
	r = Hold([]byte("abc"))
	Offer(tok, r)
	Sweep(0)
	if Offered() != 0 || !r.Released() {
		t.Fatal("Sweep did not release an old offer")
	}
	if _, err := r.Bytes(); err != ErrReleased {
		t.Fatalf("bytes of a released ref: %v", err)
	}
}
