package attach

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcphost/mcphost/internal/blob"
)

// Contents is one entry of a resources/read result's "contents" array (or
// the "resource" of an embedded resource in a tool result), exactly as it is
// on the wire. Text and Blob are pointers because presence, not emptiness,
// decides the kind of a part: nil means the key was absent, a pointer to ""
// means an empty document.
//
// The field set and order match bridge.ResourceContents, so the two convert
// with a plain conversion.
type Contents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     *string         `json:"text,omitempty"` // nil = absent; &"" = present and empty
	Blob     *string         `json:"blob,omitempty"` // base64 as on the wire; nil = absent
	Meta     json.RawMessage `json:"_meta,omitempty"`
	// Held is the blob's decoded bytes kept outside Go (internal/blob); Blob
	// is then a token, not base64. The attachment made takes it over.
	Held *blob.Ref `json:"-"`
}

// envelope is the part of a resources/read result this package reads.
// Unknown keys (ttlMs, cacheScope, _meta ...) are ignored on purpose.
type envelope struct {
	Contents *[]json.RawMessage `json:"contents"`
}

// decodeEnvelope splits a resources/read result into its raw parts. The
// error names what is wrong with the result as a whole: not an object,
// "contents" missing or null, or "contents" not an array.
func decodeEnvelope(data []byte) ([]json.RawMessage, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, newError(CodeBadContents, "", -1, "read result is not a JSON object")
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "contents" {
			return nil, newError(CodeBadContents, "", -1,
				`read result field "contents" is a JSON %s, want an array`, te.Value)
		}
		return nil, newError(CodeBadContents, "", -1, "read result is not valid JSON: %v", err)
	}
	if env.Contents == nil {
		return nil, newError(CodeBadContents, "", -1,
			`read result has no "contents" array (missing or null)`)
	}
	return *env.Contents, nil
}

// decodePart decodes one raw element of "contents". A malformed element
// (not an object, or a field of the wrong JSON type) gives a
// CodeMalformedPart error naming the index and, when it can be read, the URI.
func decodePart(i int, raw json.RawMessage) (Contents, *Error) {
	var c Contents
	err := json.Unmarshal(raw, &c)
	if err == nil {
		return c, nil
	}
	// Salvage the URI for the message when only another field is wrong.
	var u struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(raw, &u)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return Contents{URI: u.URI}, newError(CodeMalformedPart, u.URI, i,
			"part %d (%q): field %q is a JSON %s, want %s", i, u.URI, te.Field, te.Value, te.Type)
	}
	return Contents{URI: u.URI}, newError(CodeMalformedPart, u.URI, i,
		"part %d (%q) is not a valid contents object: %v", i, u.URI, err)
}

// DecodeContents decodes a raw resources/read result (the JSON-RPC
// "result" object, {"contents":[...]}) into its parts, in order. Unknown keys
// are ignored. The error is an [*Error]: CodeBadContents when the result is
// not an object or "contents" is missing, null or not an array, or
// CodeMalformedPart naming the first element that is not a contents object.
// Use [FromReadResult] to keep the good parts when one element is malformed.
func DecodeContents(data []byte) ([]Contents, error) {
	raws, err := decodeEnvelope(data)
	if err != nil {
		return nil, err
	}
	out := make([]Contents, len(raws))
	for i, raw := range raws {
		c, perr := decodePart(i, raw)
		if perr != nil {
			return nil, perr
		}
		out[i] = c
	}
	return out, nil
}

// FromReadResult decodes a raw resources/read result and turns every part
// into an [Attachment], as [FromContents] does. A malformed element stands in
// its place as an error attachment (CodeMalformedPart); the others are
// intact. The error is non-nil only when the result as a whole is unusable
// (CodeBadContents), and then no attachments are returned.
func FromReadResult(data []byte, opts *Options) ([]Attachment, error) {
	raws, err := decodeEnvelope(data)
	if err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	var st readState
	out := make([]Attachment, len(raws))
	for i, raw := range raws {
		c, perr := decodePart(i, raw)
		if perr != nil {
			out[i] = errorAttachment(i, c.URI, perr)
			continue
		}
		out[i] = o.fromPart(i, c, &st)
	}
	return out, nil
}

// String formats a Contents for test failures and logs without dumping
// large payloads.
func (c Contents) String() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{uri:%q", c.URI)
	if c.MIMEType != "" {
		fmt.Fprintf(&b, " mimeType:%q", c.MIMEType)
	}
	if c.Text != nil {
		fmt.Fprintf(&b, " text:%d bytes", len(*c.Text))
	}
	if c.Blob != nil {
		fmt.Fprintf(&b, " blob:%d chars", len(*c.Blob))
	}
	b.WriteByte('}')
	return b.String()
}
