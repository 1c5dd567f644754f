package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A Kind classifies an [Error] by what a caller can do about it. The string
// values are part of the JavaScript contract (MCPError.kind).
type Kind string

// The kinds of [Error].
const (
	KindNotFound    Kind = "not_found"   // the resource does not exist (or may not be seen)
	KindInvalid     Kind = "invalid"     // the request was malformed or its params rejected
	KindUnsupported Kind = "unsupported" // the server lacks the method or capability
	KindUnavailable Kind = "unavailable" // internal error or lost connection: retry may help
	KindTimeout     Kind = "timeout"     // the call's deadline passed: retry may help
	KindLimit       Kind = "limit"       // a size limit was exceeded
	KindProtocol    Kind = "protocol"    // a peer sent something that breaks the protocol
	KindCancelled   Kind = "cancelled"   // the caller cancelled the call
	KindPermanent   Kind = "error"       // any other server error

	// KindRefused: the server refused the connection before any MCP message
	// (HTTP 401 or 403: a foreign Origin, a Host it does not serve, a missing
	// or wrong token). A configuration error, never retryable: Code is the
	// HTTP status and Data {reason, fix} says what to change.
	KindRefused Kind = "refused"
)

// JSON-RPC and MCP error codes this package interprets.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeResourceNotFound is the pre-2026-07-28 not-found code (-32002).
	// SEP-2164 replaced it by -32602 with data.uri; both are accepted.
	CodeResourceNotFound = -32002
	// CodeClosing is go-sdk's internal "client is closing" code, treated as
	// retryable.
	CodeClosing = -32003
	// CodeRelayMalformed and CodeRelayTooLarge answer a request whose answer
	// a relay (mcphost's gateway) received from its upstream but could not
	// pass on: not one JSON value (or nested past its decoder's bound), or
	// over its read limit. Kind protocol and limit: the server broke the
	// contract, and the same request would fail the same way. They lie
	// outside the ranges JSON-RPC and MCP reserve, like the gateway's -31000.
	CodeRelayMalformed = -31001
	CodeRelayTooLarge  = -31002
)

// Sentinel errors. Use [errors.Is]; every [*Error] wraps one of them or a
// *wireError from the peer.
var (
	// ErrClosed reports that the session was closed by this side.
	ErrClosed = errors.New("bridge: connection closed")
	// ErrConnectionLost reports that the peer went away or the socket failed.
	ErrConnectionLost = errors.New("bridge: connection lost")
	// ErrNotSupported reports a call gated locally by the server's capabilities;
	// nothing was sent.
	ErrNotSupported = errors.New("bridge: not supported by the server")
	// ErrTimeout reports that a call's deadline passed before its response.
	ErrTimeout = errors.New("bridge: request timed out")
	// ErrTooBig reports a message over the read limit.
	ErrTooBig = errors.New("bridge: message over the read limit")
	// ErrProtocol reports a malformed or unexpected message from the peer.
	ErrProtocol = errors.New("bridge: protocol error")
)

// An Error is a failed MCP call. It keeps the JSON-RPC code, message and data
// exactly as the peer sent them, plus the method and resource URI of the call
// and a [Kind] derived by the rules in [Classify].
type Error struct {
	Kind    Kind            `json:"kind"`
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	Method  string          `json:"method,omitempty"`
	URI     string          `json:"uri,omitempty"`
	Err     error           `json:"-"` // the cause: the peer's *jsonrpc.Error (natively; a struct of its shape in the module), a sentinel above, or a context error
	// RetryAfter is how long the server asked to be left alone before the
	// next attempt (HTTP Retry-After of a 503 refusal); 0 when it did not say.
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string {
	s := e.Message
	if e.Method != "" {
		s = e.Method + ": " + s
	}
	if e.URI != "" && !strings.Contains(s, e.URI) {
		s += " (uri " + shortURI(e.URI) + ")"
	}
	if e.Code != 0 {
		s += fmt.Sprintf(" [code %d]", e.Code)
	}
	return s
}

// maxURIInMessage bounds the URI an error's message quotes: a message is
// read by people and logged; the URI field keeps it whole.
const maxURIInMessage = 200

// shortURI quotes uri, cut at a rune boundary with its length named when it
// is longer than maxURIInMessage bytes.
func shortURI(uri string) string {
	if len(uri) <= maxURIInMessage {
		return strconv.Quote(uri)
	}
	cut := maxURIInMessage
	for cut > 0 && !utf8.RuneStart(uri[cut]) {
		cut--
	}
	return strconv.Quote(uri[:cut]) + "… (" + strconv.Itoa(len(uri)) + " bytes)"
}

// PeerMessage returns the message of the JSON-RPC error the peer answered
// with, exactly as sent, and whether e is such an error (a local failure, a
// timeout or a lost connection has none). Error() decorates it with the
// method, URI and code; a page may want the server's words alone.
func (e *Error) PeerMessage() (string, bool) {
	var we *wireError
	if errors.As(e.Err, &we) {
		return we.Message, true
	}
	return "", false
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same call may succeed later: internal errors,
// -32003, timeouts and dropped connections.
func (e *Error) Retryable() bool { return e.Kind == KindUnavailable || e.Kind == KindTimeout }

// saysNotFound reports whether a message says "not found" in any case, with
// at most one space, underscore or hyphen between the words (what the regular
// expression (?i)not[ _-]?found matched; compiling it cost the module's
// start 3–19 ms under wasm).
func saysNotFound(msg string) bool {
	for i := 0; i+3 <= len(msg); i++ {
		if !strings.EqualFold(msg[i:i+3], "not") {
			continue
		}
		j := i + 3
		if j < len(msg) && (msg[j] == ' ' || msg[j] == '_' || msg[j] == '-') {
			j++
		}
		if j+5 <= len(msg) && strings.EqualFold(msg[j:j+5], "found") {
			return true
		}
	}
	return false
}

// Classify derives the [Kind] of a JSON-RPC error: not found is -32002, or
// -32602 whose data.uri is set or whose message says not found (the
// 2026-07-28 rule, SEP-2164); -32603 and -32003 are unavailable (retryable);
// other -32602, -32600 and -32700 are invalid; -32601, -32021 (a required
// client capability is missing) and -32022 (unsupported protocol version,
// data.supported lists the server's) are unsupported; -32020 (HTTP headers
// contradict the body) and -31001 (a relay could not pass on a malformed
// answer) are protocol; -31002 (an answer over a relay's limit) is limit.
func Classify(code int64, message string, data json.RawMessage) Kind {
	switch code {
	case CodeResourceNotFound:
		return KindNotFound
	case CodeInvalidParams:
		if dataURI(data) != "" || saysNotFound(message) {
			return KindNotFound
		}
		return KindInvalid
	case CodeInvalidRequest, CodeParseError:
		return KindInvalid
	case CodeMethodNotFound:
		return KindUnsupported
	case CodeInternalError, CodeClosing:
		return KindUnavailable
	case CodeUnsupportedProtocolVersn, CodeMissingClientCapability:
		return KindUnsupported
	case CodeHeaderMismatch, CodeRelayMalformed:
		return KindProtocol
	case CodeRelayTooLarge:
		return KindLimit
	}
	return KindPermanent
}

// fromWire classifies a JSON-RPC error by the session's revision: in
// 2026-07-28 the codes -32000..-32019 other than -32002 carry no assumed
// meaning, so -32003 is not retryable there.
func (s *Session) fromWire(method, uri string, we *wireError) *Error {
	e := fromWire(method, uri, we)
	if s.modern && we.Code == CodeClosing {
		e.Kind = KindPermanent
	}
	return e
}

func dataURI(data json.RawMessage) string {
	if len(data) == 0 || data[0] != '{' {
		return ""
	}
	var d struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	return d.URI
}

// fromWire builds an Error from a JSON-RPC error response.
func fromWire(method, uri string, we *wireError) *Error {
	if u := dataURI(we.Data); uri == "" {
		uri = u
	}
	return &Error{
		Kind: Classify(we.Code, we.Message, we.Data), Code: we.Code, Message: we.Message,
		Data: we.Data, Method: method, URI: uri, Err: we,
	}
}

func newError(kind Kind, cause error, method, uri, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Method: method, URI: uri, Err: cause}
}

// fromContext turns a finished call context into a timeout or cancellation.
func fromContext(ctx context.Context, method, uri string) *Error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return newError(KindTimeout, ErrTimeout, method, uri, "no response before the deadline")
	}
	return newError(KindCancelled, context.Cause(ctx), method, uri, "cancelled: %v", context.Cause(ctx))
}

// AsError returns err as an [*Error] when it is one (or wraps one).
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// ErrorCode returns the JSON-RPC code carried by err, or 0 when err carries
// none (local failures such as timeouts).
func ErrorCode(err error) int64 {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	var we *wireError
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

// IsNotFound reports whether err says the resource does not exist.
func IsNotFound(err error) bool {
	e, ok := AsError(err)
	return ok && e.Kind == KindNotFound
}

// IsRetryable reports whether retrying the call may succeed: -32603, -32003,
// timeouts and dropped connections. Everything else is permanent.
func IsRetryable(err error) bool {
	e, ok := AsError(err)
	return ok && e.Retryable()
}

// errInvalidURL is a URL the socket cannot even be opened with (the
// browser's SyntaxError): kind invalid, never retried.
var errInvalidURL = errors.New("invalid WebSocket URL")

// A refusal is an HTTP answer to the WebSocket upgrade that is not one: 401,
// 403 or 503 with the server's reason, its suggested fix and Retry-After.
// Natively it comes from the upgrade's response; in the browser, which hides
// that response behind a 1006 close, from the endpoint's diagnosis (GET with
// Accept: application/json, answered {code, reason, fix}).
type refusal struct {
	status      int
	reason, fix string
	retryAfter  time.Duration
}

// Unwrap makes a refusal an [ErrConnectionLost]: no connection was made.
func (r *refusal) Unwrap() error { return ErrConnectionLost }

func (r *refusal) Error() string {
	s := "HTTP " + strconv.Itoa(r.status)
	if r.reason != "" {
		s += ": " + r.reason
	}
	if r.fix != "" {
		s += ": " + r.fix
	}
	return s
}

// Bounds of a refusal's texts and of the Retry-After honoured.
const (
	maxRefusalText = 512
	// MaxRetryAfter caps the Retry-After a connection attempt honours, so a
	// server cannot park a page for hours.
	MaxRetryAfter = time.Minute
)

// refusalError is the [Error] of a refused upgrade of url: 401 and 403 are
// kind refused (permanent: Data {reason, fix}), 503 and anything else
// unavailable (retryable: Data {reason, fix, retryAfterMs}).
func refusalError(url string, r *refusal) *Error {
	status := strconv.Itoa(r.status)
	reason := truncateBytes(strings.TrimSpace(r.reason), maxRefusalText)
	fix := truncateBytes(strings.TrimSpace(r.fix), maxRefusalText)
	if reason == "" {
		reason = "HTTP " + status
	}
	ra := min(max(r.retryAfter, 0), MaxRetryAfter)
	e := &Error{Kind: KindUnavailable, Code: int64(r.status), RetryAfter: ra, Err: r}
	if r.status == 401 || r.status == 403 {
		e.Kind = KindRefused
	}
	data := append([]byte(`{"reason":`), jsonString(reason)...)
	e.Message = url + " refused the connection (HTTP " + status + "): " + reason
	if fix != "" {
		data = append(append(data, `,"fix":`...), jsonString(fix)...)
		e.Message += ": " + fix
	}
	if ra > 0 {
		data = append(append(data, `,"retryAfterMs":`...), strconv.FormatInt(ra.Milliseconds(), 10)...)
	}
	e.Data = append(data, '}')
	return e
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
