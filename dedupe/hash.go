package dedupe

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
)

// Part is one item of a resources/read result, or the "resource" member of
// an embedded resource block. Its fields and tags are the project's shared
// wire shape, so a bridge.ResourceContents converts with Part(x).
type Part struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     *string         `json:"text,omitempty"` // nil = absent; &"" = present and empty
	Blob     *string         `json:"blob,omitempty"` // base64 as on the wire; nil = absent
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// digest identifies a part's payload. Text and blob payloads are hashed in
// separate domains: a text part and a blob part holding the same bytes are
// shown to a model differently, so they are not duplicates. The MIME type
// and _meta are not hashed.
type digest [sha256.Size]byte

// measure is what the ledger keeps of a payload instead of the payload.
type measure struct {
	sum    digest
	size   int64 // UTF-8 bytes of text, decoded bytes of a blob
	tokens int64 // ceil(size/4)
}

var (
	errNoPayload   = errors.New("neither text nor blob (an empty text document sent by a server that omits empty strings looks like this)")
	errTwoPayloads = errors.New("both text and blob")
)

// measurePart hashes the payload of p. A blob is hashed after base64
// decoding (standard alphabet, padded or not, line breaks ignored), so two
// encodings of the same bytes compare equal and its size is the decoded size.
func measurePart(p *Part) (measure, error) {
	switch {
	case p.Text != nil && p.Blob != nil:
		return measure{}, errTwoPayloads
	case p.Text != nil:
		h := sha256.New()
		h.Write([]byte{'t'})
		writeString(h, *p.Text)
		return finish(h, int64(len(*p.Text))), nil
	case p.Blob != nil:
		h := sha256.New()
		h.Write([]byte{'b'})
		n, err := decodeBlob(h, *p.Blob)
		if err != nil {
			return measure{}, fmt.Errorf("blob: %w", err)
		}
		return finish(h, n), nil
	}
	return measure{}, errNoPayload
}

func finish(h hash.Hash, size int64) measure {
	var m measure
	h.Sum(m.sum[:0])
	m.size = size
	m.tokens = estimateTokens(size)
	return m
}

// writeString writes s to h through a small buffer rather than converting
// the whole string to a []byte copy.
func writeString(h hash.Hash, s string) {
	var buf [1024]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
}

// estimateTokens is the usual rough estimate of four bytes per token,
// rounded up. For blobs it is applied to the decoded size: what a model
// is charged for an image or a binary file depends on the provider, and the
// decoded size is the closest provider-neutral measure.
func estimateTokens(size int64) int64 { return (size + 3) / 4 }

// decodeBlob streams the base64 text b into w and returns the decoded size.
func decodeBlob(w io.Writer, b string) (int64, error) {
	enc := base64.StdEncoding
	if n := len(b) - strings.Count(b, "\n") - strings.Count(b, "\r"); n%4 != 0 {
		enc = base64.RawStdEncoding
	}
	var buf [4096]byte
	return io.CopyBuffer(w, base64.NewDecoder(enc, strings.NewReader(b)), buf[:])
}
