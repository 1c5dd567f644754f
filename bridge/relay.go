//go:build !js

package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The relay frame is the provider relay's read-resource exchange: the ask is
// the JSON of ReadResourceRequestParams ({"uri": ..., "_meta": ...}); the
// answer is one frame whose first byte is a tag, [RelayTagResult] followed by
// the ReadResourceResult JSON, or [RelayTagError] followed by the JSON-RPC
// error object with code, message and data kept byte for byte.
const (
	RelayTagResult byte = 0x00
	RelayTagError  byte = 0x01
)

// Relay decoding failures. Each error returned by [DecodeRelayAnswer] and
// [DecodeRelayAsk] wraps exactly one of them, so a relay can tell a truncated
// transport (empty), a peer speaking another version (tag) and a corrupt
// payload (JSON) apart.
var (
	ErrRelayEmpty = errors.New("bridge: empty relay frame")
	ErrRelayTag   = errors.New("bridge: unknown relay frame tag")
	ErrRelayJSON  = errors.New("bridge: bad JSON in relay frame")
)

// A RelayAsk is the ask of the relay's read-resource exchange: the params of
// resources/read.
type RelayAsk struct {
	URI  string          `json:"uri"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// DecodeRelayAsk decodes an ask. The uri is required; unknown keys are
// ignored as in any MCP params object.
func DecodeRelayAsk(data []byte) (RelayAsk, error) {
	var a RelayAsk
	if len(data) == 0 {
		return a, ErrRelayEmpty
	}
	var probe struct {
		URI  *string         `json:"uri"`
		Meta json.RawMessage `json:"_meta"`
	}
	if err := strictObject(data, &probe); err != nil {
		return a, fmt.Errorf("%w: ask: %v", ErrRelayJSON, err)
	}
	if probe.URI == nil || *probe.URI == "" {
		return a, fmt.Errorf("%w: ask: missing \"uri\"", ErrRelayJSON)
	}
	if len(probe.Meta) > 0 && probe.Meta[0] != '{' {
		return a, fmt.Errorf("%w: ask: \"_meta\" is not an object", ErrRelayJSON)
	}
	return RelayAsk{URI: *probe.URI, Meta: probe.Meta}, nil
}

// A RelayAnswer is the decoded answer frame. Exactly one of Result and Error
// is set: Result holds the ReadResourceResult JSON as received, Error the
// JSON-RPC error with its data unchanged.
type RelayAnswer struct {
	Result json.RawMessage
	Error  *wireError
}

// EncodeRelayAnswer builds the answer frame for a. The result must be a JSON
// object; an error must carry a message or a code.
func EncodeRelayAnswer(a RelayAnswer) ([]byte, error) {
	switch {
	case a.Error != nil && a.Result != nil:
		return nil, errors.New("bridge: relay answer has both a result and an error")
	case a.Error != nil:
		if len(a.Error.Data) > 0 && !json.Valid(a.Error.Data) {
			return nil, fmt.Errorf("%w: error data is not JSON", ErrRelayJSON)
		}
		// Built by hand: json.Marshal would compact data, and data is kept
		// byte for byte.
		msg, _ := json.Marshal(a.Error.Message) // a string always marshals
		out := make([]byte, 0, 48+len(msg)+len(a.Error.Data))
		out = append(out, RelayTagError)
		out = append(out, `{"code":`...)
		out = strconv.AppendInt(out, a.Error.Code, 10)
		out = append(out, `,"message":`...)
		out = append(out, msg...)
		if len(a.Error.Data) > 0 {
			out = append(out, `,"data":`...)
			out = append(out, a.Error.Data...)
		}
		return append(out, '}'), nil
	case a.Result != nil:
		if err := strictObject(a.Result, new(map[string]json.RawMessage)); err != nil {
			return nil, fmt.Errorf("%w: result: %v", ErrRelayJSON, err)
		}
		out := make([]byte, 0, 1+len(a.Result))
		return append(append(out, RelayTagResult), a.Result...), nil
	}
	return nil, errors.New("bridge: relay answer has neither a result nor an error")
}

// DecodeRelayAnswer decodes an answer frame. Failures wrap [ErrRelayEmpty],
// [ErrRelayTag] (the message names the tag) or [ErrRelayJSON].
func DecodeRelayAnswer(frame []byte) (RelayAnswer, error) {
	if len(frame) == 0 {
		return RelayAnswer{}, ErrRelayEmpty
	}
	tag, body := frame[0], frame[1:]
	switch tag {
	case RelayTagResult:
		if err := strictObject(body, new(map[string]json.RawMessage)); err != nil {
			return RelayAnswer{}, fmt.Errorf("%w: result: %v", ErrRelayJSON, err)
		}
		return RelayAnswer{Result: bytes.Clone(body)}, nil
	case RelayTagError:
		var w struct {
			Code    *int64          `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if err := strictObject(body, &w); err != nil {
			return RelayAnswer{}, fmt.Errorf("%w: error: %v", ErrRelayJSON, err)
		}
		if w.Code == nil {
			return RelayAnswer{}, fmt.Errorf("%w: error object has no integer \"code\"", ErrRelayJSON)
		}
		if w.Message == nil {
			return RelayAnswer{}, fmt.Errorf("%w: error object has no \"message\"", ErrRelayJSON)
		}
		e := &wireError{Code: *w.Code, Message: *w.Message}
		if len(w.Data) > 0 {
			e.Data = bytes.Clone(w.Data)
		}
		return RelayAnswer{Error: e}, nil
	}
	return RelayAnswer{}, fmt.Errorf("%w 0x%02x (known: 0x00 result, 0x01 error)", ErrRelayTag, tag)
}

// strictObject unmarshals data, which must be exactly one JSON object.
func strictObject(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return errors.New("not a JSON object")
	}
	if !json.Valid(data) {
		return errors.New("invalid JSON")
	}
	return json.Unmarshal(data, v)
}
