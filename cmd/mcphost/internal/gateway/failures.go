//go:build !js

package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// CodeUpstreamRefused is the JSON-RPC error code the gateway answers a
// request with when the upstream refused it for good: an HTTP 4xx other
// than 404, 408 and 429, without a JSON-RPC error in its body. Retrying the
// same request cannot succeed. It lies outside the ranges JSON-RPC and MCP
// reserve (-32768..-32000), so a client that does not know it classifies it
// as a permanent server error.
const CodeUpstreamRefused = -31000

// A failureData is the data member of every error the gateway itself makes
// (see the package doc for the wire shape).
type failureData struct {
	HTTPStatus int    `json:"httpStatus,omitempty"` // the upstream's HTTP status; absent when it never answered
	Reason     string `json:"reason,omitempty"`     // its body text, or the status text
	Retryable  bool   `json:"retryable"`
	Reconnect  bool   `json:"reconnect,omitempty"` // the upstream session is gone: the gateway closes the socket
	Limit      int    `json:"limit,omitempty"`     // the bound a refused request met (requests in flight)
}

func (d failureData) raw() json.RawMessage {
	b, _ := json.Marshal(d)
	return b
}

// retryableData marks gateway errors for failures without an HTTP answer.
var retryableData = failureData{Retryable: true}.raw()

// maxReasonRunes bounds the upstream text quoted in an error.
const maxReasonRunes = 300

// maxErrorBody bounds the part of an error response body the gateway reads.
const maxErrorBody = 64 << 10

// An httpAnswer is an upstream's HTTP answer that is not a success.
type httpAnswer struct {
	status      int
	reason      string         // the body text (one line, bounded), or the status text
	body        []byte         // the body as read (at most maxErrorBody)
	wire        *jsonrpc.Error // the JSON-RPC error the body carried, if any
	sessionGone bool           // 404 to a request that carried a session id
}

// readAnswer reads the body of a non-2xx response (and closes it).
func readAnswer(resp *http.Response, sentSession bool) *httpAnswer {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	a := &httpAnswer{status: resp.StatusCode, body: body,
		sessionGone: resp.StatusCode == http.StatusNotFound && sentSession}
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '{' {
		if msg, err := jsonrpc.DecodeMessage(trimmed); err == nil {
			if r, ok := msg.(*jsonrpc.Response); ok {
				a.wire = wireError(r)
			}
		} else if we := errorWithoutID(trimmed); we != nil {
			a.wire = we
		}
	}
	switch {
	case a.wire != nil:
		a.reason = a.wire.Message
	case isText(resp.Header.Get("Content-Type"), body):
		a.reason = oneLine(string(body))
	}
	if a.reason == "" {
		a.reason = http.StatusText(a.status)
	}
	return a
}

// wireError is the JSON-RPC error of a response, or nil.
func wireError(r *jsonrpc.Response) *jsonrpc.Error {
	var we *jsonrpc.Error
	if r == nil || !errors.As(r.Error, &we) {
		return nil
	}
	return we
}

// errorWithoutID decodes a JSON-RPC error response whose id is null or
// missing (allowed for errors before the request was parsed), which go-sdk's
// decoder rejects.
func errorWithoutID(body []byte) *jsonrpc.Error {
	var r struct {
		JSONRPC string         `json:"jsonrpc"`
		Error   *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(body, &r) != nil || r.JSONRPC != "2.0" || r.Error == nil || r.Error.Message == "" {
		return nil
	}
	return r.Error
}

func isText(contentType string, body []byte) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || (mt == "" && !bytes.ContainsRune(body, 0))
}

// oneLine makes body text quotable in an error: whitespace runs become one
// space, and it is cut to maxReasonRunes.
func oneLine(s string) string {
	return truncateRunes(strings.Join(strings.Fields(s), " "), maxReasonRunes)
}

// permanent reports whether the same request can never succeed: a 4xx
// other than 404 (a legacy session gone, or an endpoint that may appear),
// 408 and 429.
func (a *httpAnswer) permanent() bool {
	return a.status >= 400 && a.status < 500 && a.status != http.StatusNotFound &&
		a.status != http.StatusRequestTimeout && a.status != http.StatusTooManyRequests
}

// rpcError is the error answering the request method that got a: the
// upstream's own JSON-RPC error when its body carried one, else the
// gateway's, naming the status and the upstream's text.
func (a *httpAnswer) rpcError(method string) *jsonrpc.Error {
	if a.wire != nil {
		return &jsonrpc.Error{Code: a.wire.Code, Message: a.wire.Message, Data: a.wire.Data}
	}
	status := fmt.Sprintf("HTTP %d", a.status)
	if t := http.StatusText(a.status); t != "" {
		status += " " + t
	}
	msg := fmt.Sprintf("mcphost gateway: the upstream answered %s with %s", method, status)
	if a.reason != http.StatusText(a.status) {
		msg += ": " + a.reason
	}
	code := int64(jsonrpc.CodeInternalError)
	if a.permanent() {
		code = CodeUpstreamRefused
	}
	if a.sessionGone {
		msg += " (the upstream session is gone; the gateway closes the connection so that the client initializes again)"
	}
	return &jsonrpc.Error{Code: code, Message: msg,
		Data: failureData{HTTPStatus: a.status, Reason: a.reason, Retryable: !a.permanent(), Reconnect: a.sessionGone}.raw()}
}

// unreachable is the error for a request that got no HTTP answer at all.
func unreachable(err error) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("mcphost gateway: the upstream server could not be reached: %v", err),
		Data:    retryableData,
	}
}
