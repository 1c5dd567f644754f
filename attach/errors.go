package attach

import (
	"errors"
	"fmt"
)

// Error codes carried by [Error.Code]. They are stable strings so the wasm
// layer and JavaScript callers can switch on them.
const (
	// CodeNeitherPayload: the part has neither "text" nor "blob".
	CodeNeitherPayload = "neither_payload"
	// CodeBothPayloads: the part has both "text" and "blob".
	CodeBothPayloads = "both_payloads"
	// CodeBadBase64: "blob" is not strict, padded, standard base64.
	CodeBadBase64 = "bad_base64"
	// CodeTooLarge: the part is over the per-part or per-read byte limit.
	CodeTooLarge = "too_large"
	// CodeMissingURI: the part has no "uri".
	CodeMissingURI = "missing_uri"
	// CodeMalformedPart: the part is not a JSON object of the expected shape.
	CodeMalformedPart = "malformed_part"
	// CodeBadContents: the read result itself is malformed (not an object,
	// or "contents" missing or not an array). It never names a part.
	CodeBadContents = "bad_contents"
)

// Sentinel errors for [errors.Is]. An [*Error] matches the sentinel of its
// code, so callers need not compare strings.
var (
	ErrNeitherPayload = errors.New("attach: part has neither text nor blob")
	ErrBothPayloads   = errors.New("attach: part has both text and blob")
	ErrBadBase64      = errors.New("attach: invalid base64 blob")
	ErrTooLarge       = errors.New("attach: part too large")
	ErrMissingURI     = errors.New("attach: part has no uri")
	ErrMalformedPart  = errors.New("attach: malformed part")
	ErrBadContents    = errors.New("attach: malformed read result")
)

var sentinels = map[string]error{
	CodeNeitherPayload: ErrNeitherPayload,
	CodeBothPayloads:   ErrBothPayloads,
	CodeBadBase64:      ErrBadBase64,
	CodeTooLarge:       ErrTooLarge,
	CodeMissingURI:     ErrMissingURI,
	CodeMalformedPart:  ErrMalformedPart,
	CodeBadContents:    ErrBadContents,
}

// An Error describes why one part of a read could not become an attachment
// (or, with [CodeBadContents], why a whole read result could not be
// decoded). It always names the part's URI (when it has one) and its index
// in "contents", so one bad part can be reported next to the good ones.
type Error struct {
	// Code is one of the Code* constants.
	Code string `json:"code"`
	// Kind is the MCPError kind the JavaScript API reports: "limit" for
	// CodeTooLarge, "protocol" for everything else (a malformed message).
	Kind string `json:"kind"`
	// Message is a human-readable explanation, including URI and index.
	Message string `json:"message"`
	// URI is the part's uri ("" when the part has none).
	URI string `json:"uri"`
	// Index is the part's position in "contents"; -1 for CodeBadContents.
	Index int `json:"index"`
	// Offset is the byte offset into "blob" of the first invalid base64
	// character (CodeBadBase64 only; -1 otherwise).
	Offset int64 `json:"offset"`
}

func newError(code string, uri string, index int, format string, args ...any) *Error {
	kind := "protocol"
	if code == CodeTooLarge {
		kind = "limit"
	}
	return &Error{
		Code:    code,
		Kind:    kind,
		Message: fmt.Sprintf(format, args...),
		URI:     uri,
		Index:   index,
		Offset:  -1,
	}
}

// Error implements the error interface.
func (e *Error) Error() string { return "attach: " + e.Message }

// Is reports whether target is the sentinel for e's code (for example
// [ErrTooLarge]), so errors.Is works without comparing strings.
func (e *Error) Is(target error) bool {
	s, ok := sentinels[e.Code]
	return ok && s == target
}
