package host

import (
	"crypto/rand"
	"encoding/base64"
	"testing"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The stages of one image read, for profiling natively and under wasm
// (GOOS=js GOARCH=wasm go test -exec=$(go env GOROOT)/lib/wasm/go_js_wasm_exec).
// What the client does with the frame itself (the envelope scan plus the
// contents fast path) is BenchmarkStageClientDecode, in package bridge.
func pngMessage(b *testing.B) ([]byte, []byte) {
	raw := make([]byte, 1_834_208)
	rand.Read(raw)
	copy(raw, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"mem://png","mimeType":"image/png","blob":"` + base64.StdEncoding.EncodeToString(raw) + `"}]}}`)
	return msg, raw
}

func BenchmarkStageDecodeMessage(b *testing.B) {
	msg, _ := pngMessage(b)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageDecodeResult(b *testing.B) {
	msg, _ := pngMessage(b)
	m, _ := jsonrpc.DecodeMessage(msg)
	res := m.(*jsonrpc.Response).Result
	b.SetBytes(int64(len(res)))
	for b.Loop() {
		if _, err := bridge.DecodeReadResult("mem://png", res); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStageAttach(b *testing.B) {
	msg, _ := pngMessage(b)
	m, _ := jsonrpc.DecodeMessage(msg)
	cs, _ := bridge.DecodeReadResult("mem://png", m.(*jsonrpc.Response).Result)
	b.SetBytes(int64(len(*cs[0].Blob)))
	for b.Loop() {
		atts := attach.FromContents([]attach.Contents{attach.Contents(cs[0])}, nil)
		if atts[0].Kind != attach.KindBinary {
			b.Fatal(atts[0].Error)
		}
	}
}

func BenchmarkStageLedger(b *testing.B) {
	msg, _ := pngMessage(b)
	m, _ := jsonrpc.DecodeMessage(msg)
	cs, _ := bridge.DecodeReadResult("mem://png", m.(*jsonrpc.Response).Result)
	l := dedupe.New(dedupe.Options{})
	b.SetBytes(int64(len(*cs[0].Blob)))
	for b.Loop() {
		if _, err := l.Attach("s", "mem://png", []dedupe.Part{dedupe.Part(cs[0])}); err != nil {
			b.Fatal(err)
		}
	}
}
