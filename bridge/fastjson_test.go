package bridge

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"a://b","text":"x"}]}}`,
	`{"jsonrpc":"2.0","id":"7","error":{"code":-32602,"message":"Resource not found","data":{"uri":"a://b"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://b"}}`,
	`{"jsonrpc":"2.0","id":"s1","method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
	`{"jsonrpc":"1.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`{"jsonrpc":"2.0","id":1,"result":{}} x`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2\u002e0","id":1,"result":{"a":"\ud83d\ude00 \u00e9\n"}}`,
	` {"jsonrpc" : "2.0" , "id" : -3 , "result" : [1,2.5e3,true,false,null,{"k":[]}] } `,
	`{"jsonrpc":"2.0","id":1,"result":{"x":01}}`,
	`{"jsonrpc":"2.0","id":1,"result":"\x01"}`,
	`{"jsonrpc":"2.0","id":true,"result":{}}`,
}

// FuzzParseEnvelope checks that the fast envelope parser accepts exactly what
// go-sdk's jsonrpc.DecodeMessage accepts and extracts the same fields.
func FuzzParseEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := parseEnvelope(data)
		msg, ref := jsonrpc.DecodeMessage(data)
		if ref != nil {
			if err == nil && json.Valid(data) && !bytes.Contains(data, []byte(`\`)) {
				// DecodeMessage is stricter about some shapes (e.g. an id
				// that is a float or bool); ours must never be laxer about
				// what reaches a caller as a response.
				if _, isResp := msg.(*jsonrpc.Response); isResp {
					t.Fatalf("accepted %q, DecodeMessage: %v", data, ref)
				}
			}
			return
		}
		if err != nil {
			if strings.Contains(string(data), `\u`) || !json.Valid(data) {
				return // segmentio is laxer on some invalid input; being stricter is fine
			}
			t.Fatalf("rejected %q (%v); DecodeMessage accepted it", data, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if env.method != m.Method || !jsonEqual(env.params, m.Params) {
				t.Fatalf("request %q: got %q %s", data, env.method, env.params)
			}
		case *jsonrpc.Response:
			if env.method != "" || !jsonEqual(env.result, m.Result) {
				t.Fatalf("response %q: got %s", data, env.result)
			}
		}
	})
}

func jsonEqual(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

var contentsSeeds = []string{
	`{"contents":[{"uri":"a://b","mimeType":"text/plain","text":"hi"}]}`,
	`{"contents":[{"uri":"a://b","blob":"AAEC"},{"uri":"a://c","text":""},{"uri":"a://d"}]}`,
	`{"ttlMs":0,"cacheScope":"public","contents":[{"uri":"a://b","text":"line\nnext \"q\" \u00e9 \ud83d\ude00 \ud800"}]}`,
	`{"contents":[{"uri":"a://b","text":"x","blob":"AA=="}],"_meta":{"k":1}}`,
	`{"contents":[{"URI":"a://b","text":"x"}]}`,
	`{"contents":[{"uri":"a://b","text":5}]}`,
	`{"contents":{}}`,
	`{"contents":null}`,
	`{}`,
	`{"contents":[{"uri":"a://b","text":"a","text":"b","_meta":{"x":[1,{}]}}]}`,
	`{"contents":[{"uri":"a://b","text":null,"mimeType":null}]}`,
	"{\"contents\":[{\"uri\":\"a://\xff\",\"text\":\"\xc3\"}]}",
}

// FuzzDecodeContents checks the fast contents path against encoding/json.
func FuzzDecodeContents(f *testing.F) {
	for _, s := range contentsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := decodeContentsFast(data)
		if !ok {
			return // the slow path decides
		}
		var ref struct {
			Contents *[]ResourceContents `json:"contents"`
		}
		if err := json.Unmarshal(data, &ref); err != nil {
			t.Fatalf("fast path accepted %q; encoding/json: %v", data, err)
		}
		if ref.Contents == nil {
			t.Fatalf("fast path accepted %q without contents", data)
		}
		if len(fast) != len(*ref.Contents) {
			t.Fatalf("%q: %d parts, want %d", data, len(fast), len(*ref.Contents))
		}
		for i, want := range *ref.Contents {
			got := fast[i]
			if got.URI != want.URI || got.MIMEType != want.MIMEType || !eqPtr(got.Text, want.Text) || !eqPtr(got.Blob, want.Blob) || !jsonEqual(got.Meta, want.Meta) {
				t.Fatalf("%q part %d: got %+v, want %+v", data, i, got, want)
			}
		}
	})
}

func eqPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func TestPlain8(t *testing.T) {
	plain := func(b []byte) bool {
		for _, c := range b {
			if c == '"' || c == '\\' || c < 0x20 {
				return false
			}
		}
		return true
	}
	r := []byte{0, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'A', 'z'}
	for n := 0; n < 200000; n++ {
		var b [8]byte
		x := uint64(n) * 0x9e3779b97f4a7c15
		for i := range b {
			b[i] = r[(x>>(i*5))%uint64(len(r))]
		}
		if got, want := plain8(binary.LittleEndian.Uint64(b[:])), plain(b[:]); got != want {
			t.Fatalf("plain8(%q) = %v, want %v", b, got, want)
		}
	}
}
