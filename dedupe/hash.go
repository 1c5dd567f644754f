package dedupe

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/mcphost/mcphost/internal/blob"
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
	// Held is the blob's decoded bytes kept outside Go (internal/blob),
	// measured by its size and digest; Blob is then a token.
	Held *blob.Ref `json:"-"`
}

// digest identifies a part's payload with 64 bits and a per-process seed:
// a text by hash/maphash over a domain byte and the text, a blob by
// internal/blob.Hash over its decoded bytes. The two functions differ, so
// a text part and a blob part holding the same bytes (shown to a model
// differently) are not duplicates. The MIME type and _meta are not hashed.
//
// Why not SHA-256: under wasm it hashes ~30 MB/s, which made the ledger the
// slowest step of an image read (73 ms for a 1.8 MB PNG), and in the page
// WebCrypto is asynchronous while filterToolResult is not. Collisions are
// not a concern: a ledger lives in one process, holds a few thousand
// documents, a server cannot predict the seeds, and a collision could only
// take one payload of a URI for another.
type digest [8]byte

var seed = maphash.MakeSeed()

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

// measurePart hashes the payload of p. A blob is validated in a normal form
// (line breaks removed, padding stripped), decoded, and measured by
// blobMeasure: two encodings of the same bytes compare equal.
func measurePart(p *Part) (measure, error) {
	switch {
	case p.Text != nil && p.Blob != nil:
		return measure{}, errTwoPayloads
	case p.Text != nil:
		return sum('t', *p.Text, int64(len(*p.Text))), nil
	case p.Held != nil:
		return blobMeasure(p.Held.Sum(), p.Held.Size()), nil
	case p.Blob != nil:
		b, _, err := normalBase64(*p.Blob)
		if err != nil {
			return measure{}, fmt.Errorf("blob: %w", err)
		}
		data, err := base64.RawStdEncoding.DecodeString(b)
		if err != nil {
			return measure{}, fmt.Errorf("blob: %w", err)
		}
		return blobMeasure(blob.Hash(data), int64(len(data))), nil
	}
	return measure{}, errNoPayload
}

// blobMeasure measures a blob by [blob.Hash] of its decoded bytes: the
// browser keeps large blobs out of Go and hashes them there with the same
// function and seeds (internal/blob), so a blob compares equal whether Go
// or the page decoded it, and whatever its base64 looked like (padded or
// not, wrapped or not, stray low bits in the last character).
func blobMeasure(h uint64, size int64) measure {
	var m measure
	binary.BigEndian.PutUint64(m.sum[:], h)
	m.size = size
	m.tokens = estimateTokens(size)
	return m
}

func sum(domain byte, payload string, size int64) measure {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteByte(domain)
	h.WriteString(payload)
	var m measure
	binary.BigEndian.PutUint64(m.sum[:], h.Sum64())
	m.size = size
	m.tokens = estimateTokens(size)
	return m
}

// estimateTokens is the usual rough estimate of four bytes per token,
// rounded up. For blobs it is applied to the decoded size: what a model
// is charged for an image or a binary file depends on the provider, and the
// decoded size is the closest provider-neutral measure.
func estimateTokens(size int64) int64 { return (size + 3) / 4 }

// EstimateTokens is the ledger's provider-neutral token estimate of a
// payload of size bytes (UTF-8 bytes of text, decoded bytes of a blob,
// images included): ⌈size/4⌉.
func EstimateTokens(size int64) int64 { return estimateTokens(size) }

var b64 = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = true
	}
	return
}()

// normalBase64 validates standard base64 (padded or not, CR/LF allowed) and
// returns it without line breaks and padding, with its decoded length.
// It makes one pass over s: under wasm, strings.ContainsAny and TrimRight
// with a cutset each cost as much as the hash itself on a 2.4 MB blob.
func normalBase64(s string) (string, int64, error) {
	end := len(s)
	for end > 0 && s[end-1] == '=' {
		end--
	}
	pad := len(s) - end
	body := s[:end]
	for i := 0; i < len(body); i++ {
		if !b64[body[i]] {
			if body[i] == '\r' || body[i] == '\n' {
				return normalWrapped(s)
			}
			return "", 0, fmt.Errorf("illegal base64 data at input byte %d", i)
		}
	}
	if pad > 2 || (pad > 0 && len(s)%4 != 0) || len(body)%4 == 1 {
		return "", 0, fmt.Errorf("illegal base64 data at input byte %d", len(body))
	}
	return body, int64(len(body)) * 6 / 8, nil
}

// normalWrapped handles base64 with line breaks (rare: MIME-style wrapping).
func normalWrapped(s string) (string, int64, error) {
	return normalBase64(strings.NewReplacer("\r", "", "\n", "").Replace(s))
}
