package bridge

import (
	stdjson "encoding/json"
	"reflect"
	"testing"
)

// checkInitialize holds the handshake's fast path to encoding/json: when it
// answers, the result and the capabilities are exactly encoding/json's (and
// encoding/json accepts the input); when it declines, the callers use
// encoding/json itself. wantFast says the input must take the fast path.
func checkInitialize(t *testing.T, raw []byte, wantFast bool) {
	t.Helper()
	var fast InitializeResult
	ok := decodeInitializeFast(raw, &fast)
	if wantFast && !ok {
		t.Errorf("%s: the fast path declined", raw)
	}
	if ok {
		var want InitializeResult
		if err := stdjson.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: the fast path accepted what encoding/json rejects: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%s:\nfast          %#v\nencoding/json %#v", raw, fast, want)
		}
	}
	checkCapabilities(t, raw)
	var outer struct{ Capabilities stdjson.RawMessage }
	if stdjson.Unmarshal(raw, &outer) == nil && len(outer.Capabilities) > 0 {
		checkCapabilities(t, outer.Capabilities)
	}
}

// checkCapabilities holds decodeCapabilitiesFast and decodeCapabilities to
// encoding/json over raw taken as a capabilities object.
func checkCapabilities(t *testing.T, raw []byte) {
	t.Helper()
	var caps, want ServerCapabilities
	if decodeCapabilitiesFast(raw, &caps) {
		if err := stdjson.Unmarshal(raw, &want); err != nil {
			t.Fatalf("capabilities %s: the fast path accepted what encoding/json rejects: %v", raw, err)
		}
		if !reflect.DeepEqual(caps, want) {
			t.Fatalf("capabilities %s:\nfast          %#v\nencoding/json %#v", raw, caps, want)
		}
	}
	// decodeCapabilities (what the session calls) equals encoding/json either way.
	var got, ref ServerCapabilities
	gerr := decodeCapabilities(raw, &got)
	rerr := error(nil)
	if len(raw) > 0 {
		rerr = stdjson.Unmarshal(raw, &ref)
	}
	if (gerr == nil) != (rerr == nil) || gerr == nil && !reflect.DeepEqual(got, ref) {
		t.Fatalf("decodeCapabilities %s: %#v %v, encoding/json %#v %v", raw, got, gerr, ref, rerr)
	}
}

func TestInitializeFast(t *testing.T) {
	for _, c := range []struct {
		raw  string
		fast bool
	}{
		{`{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true,"listChanged":true},"tools":{}},"serverInfo":{"name":"docs","version":"1.0"}}`, true},
		{`{"protocolVersion":"2025-11-25","capabilities":null,"serverInfo":null,"instructions":"Use \u00e9 \"it\""}`, true},
		{` { "protocolVersion" : "2025-06-18" , "capabilities" : { } , "extra" : [1, {"a": null}] } `, true},
		{`{"serverInfo":{"name":"a","title":"T","description":"d","websiteUrl":"https://x","other":1}}`, true},
		{`{"protocolVersion":null,"instructions":null}`, true},
		{`{"protocolVersion":"a","protocolVersion":"b"}`, true},
		{`{"capabilities":{"logging":{},"completions":{"x":[1]},"prompts":{"listChanged":false},"experimental":{"a":{"b":{}}}}}`, true},
		{`{"capabilities":{"resources":{"subscribe":null,"listChanged":true,"x":"y"}}}`, true},
		// declined: encoding/json decides (and may reject)
		{`{"ProtocolVersion":"2025-11-25"}`, false},
		{`{"protocol\u0056ersion":"2025-11-25"}`, false},
		{`{"protocolVersion":5}`, false},
		{`{"serverInfo":{"name":"a"},"serverInfo":{"version":"b"}}`, false},
		{`{"serverInfo":{"name":"a","icons":[{"src":"https://x/i.png"}]}}`, false},
		{`{"serverInfo":{"Name":"a"}}`, false},
		{`{"capabilities":{"resources":true}}`, false},
		{`{"capabilities":{"resources":{"subscribe":1}}}`, false},
		{`{"capabilities":{"resources":{},"resources":{"listChanged":true}}}`, false},
		{`{"capabilities":{"Tools":{}}}`, false},
		{`{"capabilities":{"logging":[]}}`, false},
		{`null`, false},
		{`{"protocolVersion":"a"} x`, false},
		{`{"protocolVersion":"a",}`, false},
		{`[]`, false},
		{``, false},
	} {
		checkInitialize(t, []byte(c.raw), c.fast)
	}
	// The capabilities object alone, as the session decodes it.
	for _, raw := range []string{
		`{"resources":{"subscribe":true},"tools":{"listChanged":true},"prompts":null,"logging":{}}`,
		`{"resources":{"listChanged":true},"resources":{"subscribe":true}}`,
		`{"tools":{"listChanged":"yes"}}`, `{"Logging":{}}`, `null`, `{}`, `{"completions":5}`,
		`{"resources":{"subscribe":1}}`, `{"resources":{"Subscribe":true}}`, `{"prompts":{"listChanged":true,"listChanged":false}}`,
	} {
		checkInitialize(t, []byte(raw), false)
	}
}

func FuzzInitializeFast(f *testing.F) {
	f.Add([]byte(`{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true,"listChanged":true},"tools":{},"logging":{}},"serverInfo":{"name":"docs","version":"1.0","title":"T"},"instructions":"i"}`))
	f.Add([]byte(`{"resources":{"subscribe":true},"prompts":{"listChanged":false},"completions":{}}`))
	f.Add([]byte(`{"capabilities":null,"serverInfo":null,"x":[{"y":null}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) { checkInitialize(t, raw, false) })
}

// checkWireError holds decodeWireErrorFast to encoding/json.
func checkWireError(t *testing.T, raw []byte, wantFast bool) {
	t.Helper()
	var fast wireError
	ok := decodeWireErrorFast(raw, &fast)
	if wantFast && !ok {
		t.Errorf("%s: the fast path declined", raw)
	}
	if !ok {
		return
	}
	var want wireError
	if err := stdjson.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: the fast path accepted what encoding/json rejects: %v", raw, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("%s:\nfast          %#v\nencoding/json %#v", raw, fast, want)
	}
}

func TestWireErrorFast(t *testing.T) {
	for _, c := range []struct {
		raw  string
		fast bool
	}{
		{`{"code":-32601,"message":"Method not found"}`, true},
		{`{"code":-32602,"message":"bad \u0022uri\u0022","data":{"uri":"a://b"}}`, true},
		{`{"code":null,"message":null,"data":null,"other":[1]}`, true},
		{`{"code":0,"code":7}`, true},
		{`{"code":-0}`, true},
		{`{"code":1.0}`, false},
		{`{"code":1e3}`, false},
		{`{"code":"1"}`, false},
		{`{"code":99999999999999999999}`, false},
		{`{"Code":1}`, false},
		{`{"mess\u0061ge":"x"}`, false},
		{`{"message":5}`, false},
		{`[]`, false},
		{`{"code":1`, false},
	} {
		checkWireError(t, []byte(c.raw), c.fast)
	}
}

func FuzzWireErrorFast(f *testing.F) {
	f.Add([]byte(`{"code":-32601,"message":"Method not found","data":{"uri":"a://b"}}`))
	f.Add([]byte(`{"code":1.5,"Message":"x"}`))
	f.Fuzz(func(t *testing.T, raw []byte) { checkWireError(t, raw, false) })
}
