package bridge

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The protocol revisions a client can ask for in [Options].Protocol.
const (
	// ProtocolAuto probes with server/discover and speaks 2026-07-28 when
	// the server lists it, else initializes at 2025-11-25.
	ProtocolAuto = "auto"
	// ProtocolModern is the 2026-07-28 revision: no initialize, metadata on
	// every request, subscriptions/listen.
	ProtocolModern = "2026-07-28"
	// ProtocolLegacy is the 2025-11-25 revision: initialize, then
	// resources/subscribe.
	ProtocolLegacy = ProtocolVersion
)

// JSON-RPC error codes of the 2026-07-28 revision.
const (
	CodeHeaderMismatch           = -32020
	CodeMissingClientCapability  = -32021
	CodeUnsupportedProtocolVersn = -32022
)

// Keys of the 2026-07-28 per-request metadata (params._meta).
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID  = "io.modelcontextprotocol/subscriptionId"
)

// maxInputRounds bounds the input_required (MRTR) rounds of one call.
const maxInputRounds = 3

// handshake negotiates the revision o.Protocol asks for.
func (s *Session) handshake(ctx context.Context) error {
	switch s.o.Protocol {
	case "", ProtocolAuto:
	case ProtocolModern:
		res, err := s.discover(ctx)
		if err != nil {
			return unsupportedRevision(err, nil)
		}
		if !contains(res.SupportedVersions, ProtocolModern) {
			return unsupportedRevision(nil, res.SupportedVersions)
		}
		return s.becomeModern(res)
	case ProtocolLegacy:
		return s.initialize(ctx, ProtocolLegacy)
	default:
		if contains(SupportedVersions, s.o.Protocol) {
			return s.initialize(ctx, s.o.Protocol)
		}
		return newError(KindInvalid, nil, "", "", "protocol %q: want %q, %q or %q", s.o.Protocol, ProtocolAuto, ProtocolModern, ProtocolLegacy)
	}
	res, err := s.discover(ctx)
	if err == nil && contains(res.SupportedVersions, ProtocolModern) {
		return s.becomeModern(res)
	}
	if s.connErr() != nil {
		return s.connErr()
	}
	version := ProtocolLegacy
	var supported []string
	if err == nil {
		supported = res.SupportedVersions
	} else if e, ok := AsError(err); ok && e.Code == CodeUnsupportedProtocolVersn {
		var d struct {
			Supported []string `json:"supported"`
		}
		stdjson.Unmarshal(e.Data, &d)
		supported = d.Supported
	}
	// A server listing only revisions older than ours: retry once with the
	// newest one we speak.
	if len(supported) > 0 && !contains(supported, ProtocolLegacy) {
		for _, v := range SupportedVersions {
			if contains(supported, v) {
				version = v
				break
			}
		}
	}
	return s.initialize(ctx, version)
}

func unsupportedRevision(cause error, supported []string) error {
	msg := "the server does not speak MCP 2026-07-28"
	if len(supported) > 0 {
		msg += fmt.Sprintf(" (it supports %v)", supported)
	}
	if cause != nil {
		msg += ": server/discover: " + cause.Error()
	}
	e := newError(KindUnsupported, ErrNotSupported, "server/discover", "", "%s; connect with protocol %q or %q", msg, ProtocolAuto, ProtocolLegacy)
	if be, ok := AsError(cause); ok {
		e.Code, e.Data = be.Code, be.Data
	}
	return e
}

// discoverResult is the result of server/discover.
type discoverResult struct {
	SupportedVersions []string                      `json:"supportedVersions"`
	Capabilities      stdjson.RawMessage            `json:"capabilities"`
	Instructions      string                        `json:"instructions"`
	Meta              map[string]stdjson.RawMessage `json:"_meta"`
}

func (s *Session) discover(ctx context.Context) (*discoverResult, error) {
	var res discoverResult
	params := stdjson.RawMessage(`{"_meta":` + string(s.metaObject()) + `}`)
	if err := s.callRaw(ctx, "server/discover", "", params, &res, false); err != nil {
		return nil, err
	}
	return &res, nil
}

// becomeModern records the server/discover result as this session's
// handshake outcome, then opens the list-changed listen when the server
// announces list changes.
func (s *Session) becomeModern(res *discoverResult) error {
	init := InitializeResult{ProtocolVersion: ProtocolModern, RawCapabilities: res.Capabilities, Instructions: res.Instructions}
	if err := decodeCapabilities(init.RawCapabilities, &init.Capabilities); err != nil {
		return newError(KindProtocol, ErrProtocol, "server/discover", "", "capabilities: %v", err)
	}
	if si, ok := res.Meta[metaServerInfo]; ok {
		stdjson.Unmarshal(si, &init.ServerInfo)
	}
	s.init = init
	s.modern = true
	s.startListListen()
	return nil
}

// metaObject is the 2026-07-28 per-request metadata object.
func (s *Session) metaObject() []byte {
	s.metaOnce.Do(func() {
		info := appendImplementation(nil, s.o.ClientInfo)
		caps := s.o.Capabilities
		s.metaJSON = []byte(`{"` + metaProtocolVersion + `":"` + ProtocolModern + `","` + metaClientCaps + `":` +
			string(bytes.TrimSpace(caps)) + `,"` + metaClientInfo + `":` + string(info) + `}`)
	})
	return s.metaJSON
}

// withMeta splices the per-request metadata into an encoded params object.
func (s *Session) withMeta(params []byte) []byte {
	meta := s.metaObject()
	p := bytes.TrimSpace(params)
	if len(p) < 2 || p[0] != '{' {
		return []byte(`{"_meta":` + string(meta) + `}`)
	}
	out := make([]byte, 0, len(p)+len(meta)+10)
	out = append(out, `{"_meta":`...)
	out = append(out, meta...)
	if rest := bytes.TrimSpace(p[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, p[1:]...)
}

// withRequestState sets "requestState" of an encoded params object to
// state, verbatim, replacing an earlier one (a key appears once).
func withRequestState(params []byte, state []byte) []byte {
	p := bytes.TrimSpace(params)
	out := make([]byte, 0, len(p)+len(state)+20)
	out = append(out, '{')
	if len(p) >= 2 && p[0] == '{' {
		n := 0
		scanObject(p, 0, 1, func(key []byte, vs, ve int) error {
			if keyIs(key, "requestState") {
				return nil
			}
			if n > 0 {
				out = append(out, ',')
			}
			out = append(out, key...) // the raw JSON string, quotes included
			out = append(out, ':')
			out = append(out, p[vs:ve]...)
			n++
			return nil
		})
		if n > 0 {
			out = append(out, ',')
		}
	}
	out = append(out, `"requestState":`...)
	out = append(out, state...)
	return append(out, '}')
}

// resultMeta is what the 2026-07-28 revision adds to every result.
type resultMeta struct {
	resultType    string
	requestState  []byte // raw JSON value, echoed verbatim
	inputRequests bool
	ttl           time.Duration
	cacheScope    string
}

// scanResultMeta reads the top-level revision fields of a result without
// decoding the rest.
func scanResultMeta(raw []byte) (resultMeta, error) {
	var m resultMeta
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return m, nil // not an object: the typed decoder reports it
	}
	_, err := scanObject(raw, i, 1, func(key []byte, vs, ve int) error {
		v := raw[vs:ve]
		switch {
		case keyIs(key, "resultType"):
			if err := stdjson.Unmarshal(v, &m.resultType); err != nil {
				return fmt.Errorf("resultType is not a string: %s", v)
			}
		case keyIs(key, "requestState"):
			m.requestState = v
		case keyIs(key, "inputRequests"):
			m.inputRequests = string(v) != "null"
		case keyIs(key, "ttlMs"):
			if ms, err := strconv.ParseFloat(string(v), 64); err == nil && ms > 0 {
				m.ttl = time.Duration(ms * float64(time.Millisecond))
			}
		case keyIs(key, "cacheScope"):
			stdjson.Unmarshal(v, &m.cacheScope)
		}
		return nil
	})
	return m, err
}

// checkResult applies the 2026-07-28 result rules: absent or "complete" is a
// result, "input_required" asks for another round, anything else is a
// protocol error naming it.
func checkResult(method, uri string, m resultMeta) (again bool, err error) {
	switch m.resultType {
	case "", "complete":
		return false, nil
	case "input_required":
		if m.inputRequests {
			return false, newError(KindUnsupported, ErrNotSupported, method, uri,
				"the server asks for input (inputRequests) that mcphost cannot give: it declares no elicitation, sampling or roots")
		}
		if len(m.requestState) == 0 {
			return false, newError(KindProtocol, ErrProtocol, method, uri, "input_required result without requestState or inputRequests")
		}
		return true, nil
	}
	return false, newError(KindProtocol, ErrProtocol, method, uri, "unknown resultType %q", m.resultType)
}

var errInputRounds = errors.New("bridge: too many input_required rounds")
