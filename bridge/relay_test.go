//go:build !js

package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// relayFrames are canonical answer frames: decoding then encoding each one
// gives back the same bytes. They also seed FuzzRelayAnswer.
var relayFrames = []struct {
	name  string
	frame []byte
}{
	{"text result", append([]byte{0x00}, `{"contents":[{"uri":"docs://team/a/policy/x.md","mimeType":"text/markdown","text":"# X"}]}`...)},
	{"blob result", append([]byte{0x00}, `{"contents":[{"uri":"mem://b","blob":"AQID"}],"ttlMs":0,"cacheScope":"public"}`...)},
	{"empty contents", append([]byte{0x00}, `{"contents":[]}`...)},
	{"not found error with data", append([]byte{0x01}, `{"code":-32602,"message":"Resource not found","data":{"uri":"docs://x"}}`...)},
	{"legacy not found", append([]byte{0x01}, `{"code":-32002,"message":"Resource not found","data":{"uri":"file:///nonexistent.txt"}}`...)},
	{"error without data", append([]byte{0x01}, `{"code":-32603,"message":"internal"}`...)},
	{"error with array data", append([]byte{0x01}, `{"code":7,"message":"","data":[1,"two",{"3":null}]}`...)},
	{"error with null data", append([]byte{0x01}, `{"code":-1,"message":"m","data":null}`...)},
}

func TestRelayAnswerRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range relayFrames {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := DecodeRelayAnswer(tc.frame)
			if err != nil {
				t.Fatalf("DecodeRelayAnswer: %v", err)
			}
			if (a.Result == nil) == (a.Error == nil) {
				t.Fatalf("want exactly one of Result and Error, got %+v", a)
			}
			again, err := EncodeRelayAnswer(a)
			if err != nil {
				t.Fatalf("EncodeRelayAnswer: %v", err)
			}
			if !bytes.Equal(again, tc.frame) {
				t.Fatalf("round trip changed the frame:\n got %q\nwant %q", again, tc.frame)
			}
		})
	}
}

func TestRelayAnswerKeepsErrorIntact(t *testing.T) {
	t.Parallel()
	data := json.RawMessage(`{"uri":"docs://team/x/policy/y.md","extra":[1,2,{"deep":true}]}`)
	frame, err := EncodeRelayAnswer(RelayAnswer{Error: &jsonrpc.Error{Code: -32602, Message: "Resource not found", Data: data}})
	if err != nil {
		t.Fatal(err)
	}
	if frame[0] != RelayTagError {
		t.Fatalf("tag = 0x%02x, want 0x01", frame[0])
	}
	a, err := DecodeRelayAnswer(frame)
	if err != nil {
		t.Fatal(err)
	}
	if a.Error.Code != -32602 || a.Error.Message != "Resource not found" || !bytes.Equal(a.Error.Data, data) {
		t.Fatalf("error changed: %+v data=%s", a.Error, a.Error.Data)
	}
	// The decoded error classifies like any wire error.
	if k := Classify(a.Error.Code, a.Error.Message, a.Error.Data); k != KindNotFound {
		t.Fatalf("Classify = %q, want not_found", k)
	}
}

func TestRelayAnswerResultDecodes(t *testing.T) {
	t.Parallel()
	a, err := DecodeRelayAnswer(relayFrames[1].frame)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := DecodeReadResult("mem://b", a.Result)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || parts[0].Blob == nil || *parts[0].Blob != "AQID" || parts[0].Text != nil {
		t.Fatalf("parts = %+v", parts)
	}
}

func TestRelayAnswerFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		frame    []byte
		want     error
		contains string
	}{
		{"nil", nil, ErrRelayEmpty, "empty"},
		{"empty", []byte{}, ErrRelayEmpty, "empty"},
		{"unknown tag 0x02", []byte{0x02, '{', '}'}, ErrRelayTag, "0x02"},
		{"unknown tag 0x7b (bare JSON, no tag)", []byte(`{"contents":[]}`), ErrRelayTag, "0x7b"},
		{"unknown tag 0xff", []byte{0xff}, ErrRelayTag, "0xff"},
		{"tag only result", []byte{0x00}, ErrRelayJSON, "result"},
		{"tag only error", []byte{0x01}, ErrRelayJSON, "error"},
		{"truncated result", append([]byte{0x00}, `{"contents":[`...), ErrRelayJSON, "invalid JSON"},
		{"result array", append([]byte{0x00}, `[1]`...), ErrRelayJSON, "not a JSON object"},
		{"result trailing garbage", append([]byte{0x00}, `{}{}`...), ErrRelayJSON, "invalid JSON"},
		{"error without code", append([]byte{0x01}, `{"message":"x"}`...), ErrRelayJSON, "code"},
		{"error with string code", append([]byte{0x01}, `{"code":"x","message":"x"}`...), ErrRelayJSON, "error"},
		{"error without message", append([]byte{0x01}, `{"code":1}`...), ErrRelayJSON, "message"},
		{"error not object", append([]byte{0x01}, `"boom"`...), ErrRelayJSON, "not a JSON object"},
	}
	sentinels := []error{ErrRelayEmpty, ErrRelayTag, ErrRelayJSON}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeRelayAnswer(tc.frame)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, s := range sentinels {
				if s != tc.want && errors.Is(err, s) {
					t.Fatalf("err %v also matches %v: the three failures must be distinct", err, s)
				}
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("err %q does not mention %q", err, tc.contains)
			}
		})
	}
}

func TestEncodeRelayAnswerRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a    RelayAnswer
	}{
		{"neither", RelayAnswer{}},
		{"both", RelayAnswer{Result: json.RawMessage(`{}`), Error: &jsonrpc.Error{Code: 1}}},
		{"result not object", RelayAnswer{Result: json.RawMessage(`[]`)}},
		{"result invalid", RelayAnswer{Result: json.RawMessage(`{`)}},
		{"error data invalid", RelayAnswer{Error: &jsonrpc.Error{Code: 1, Data: json.RawMessage(`{`)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if b, err := EncodeRelayAnswer(tc.a); err == nil {
				t.Fatalf("encoded %q, want an error", b)
			}
		})
	}
}

func TestRelayAsk(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      string
		want    RelayAsk
		wantErr error
	}{
		{"uri", `{"uri":"docs://a"}`, RelayAsk{URI: "docs://a"}, nil},
		{"uri and meta", `{"uri":"docs://a","_meta":{"k":1}}`, RelayAsk{URI: "docs://a", Meta: json.RawMessage(`{"k":1}`)}, nil},
		{"unknown keys ignored", `{"uri":"docs://a","other":[1]}`, RelayAsk{URI: "docs://a"}, nil},
		{"empty", ``, RelayAsk{}, ErrRelayEmpty},
		{"missing uri", `{}`, RelayAsk{}, ErrRelayJSON},
		{"empty uri", `{"uri":""}`, RelayAsk{}, ErrRelayJSON},
		{"bad json", `{"uri":`, RelayAsk{}, ErrRelayJSON},
		{"meta not object", `{"uri":"x","_meta":3}`, RelayAsk{}, ErrRelayJSON},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeRelayAsk([]byte(tc.in))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got.URI != tc.want.URI || !bytes.Equal(got.Meta, tc.want.Meta) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if err == nil {
				b, _ := json.Marshal(got)
				back, err := DecodeRelayAsk(b)
				if err != nil || back.URI != got.URI || !bytes.Equal(back.Meta, got.Meta) {
					t.Fatalf("ask round trip: %+v, %v", back, err)
				}
			}
		})
	}
}

// FuzzRelayAnswer checks that decoding never panics, that every failure
// wraps exactly one of the three sentinels, that the input is not modified,
// and that a decoded answer re-encodes to a frame decoding to the same answer.
func FuzzRelayAnswer(f *testing.F) {
	for _, tc := range relayFrames {
		f.Add(tc.frame)
	}
	f.Add([]byte{})
	f.Add([]byte{0x02})
	f.Add([]byte{0x01, '{', '}'})
	f.Fuzz(func(t *testing.T, frame []byte) {
		orig := bytes.Clone(frame)
		a, err := DecodeRelayAnswer(frame)
		if !bytes.Equal(frame, orig) {
			t.Fatal("input modified")
		}
		if err != nil {
			n := 0
			for _, s := range []error{ErrRelayEmpty, ErrRelayTag, ErrRelayJSON} {
				if errors.Is(err, s) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("error %v matches %d sentinels, want 1", err, n)
			}
			return
		}
		enc, err := EncodeRelayAnswer(a)
		if err != nil {
			t.Fatalf("re-encode of decoded answer failed: %v", err)
		}
		b, err := DecodeRelayAnswer(enc)
		if err != nil {
			t.Fatalf("decode of re-encoded answer failed: %v", err)
		}
		if !bytes.Equal(a.Result, b.Result) {
			t.Fatalf("result changed: %q -> %q", a.Result, b.Result)
		}
		if (a.Error == nil) != (b.Error == nil) {
			t.Fatal("error presence changed")
		}
		if a.Error != nil && (a.Error.Code != b.Error.Code || a.Error.Message != b.Error.Message || !bytes.Equal(a.Error.Data, b.Error.Data)) {
			t.Fatalf("error changed: %+v -> %+v", a.Error, b.Error)
		}
	})
}

func BenchmarkDecodeRelayAnswer(b *testing.B) {
	text := strings.Repeat("lorem ipsum ", 10000)
	res, _ := json.Marshal(map[string]any{"contents": []map[string]string{{"uri": "docs://x", "text": text}}})
	frame := append([]byte{RelayTagResult}, res...)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := DecodeRelayAnswer(frame); err != nil {
			b.Fatal(err)
		}
	}
}
