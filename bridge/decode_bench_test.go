package bridge

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkStageClientDecode is what the client does with a frame now: the
// envelope scan plus the contents fast path, for the same 1.8 MB image read
// as the stage benchmarks of package host (natively and under wasm).
func BenchmarkStageClientDecode(b *testing.B) {
	raw := make([]byte, 1_834_208)
	rand.Read(raw)
	copy(raw, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"mem://png","mimeType":"image/png","blob":"` + base64.StdEncoding.EncodeToString(raw) + `"}]}}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		env, err := parseEnvelope(msg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := DecodeReadResult("", env.result); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStageClientDecodeText is the same for the bench's 1 MB Markdown
// read: a text with an escaped newline or quote every few dozen bytes.
func BenchmarkStageClientDecodeText(b *testing.B) {
	src, err := os.ReadFile("../cmd/mcphost/internal/sampledocs/payments/reference/api-changelog.md")
	if err != nil {
		b.Skip(err)
	}
	src = src[:min(len(src), 1<<20)]
	text, _ := json.Marshal(string(src))
	msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"mem://doc.md","mimeType":"text/markdown","text":` + string(text) + `}]}}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		env, err := parseEnvelope(msg)
		if err != nil {
			b.Fatal(err)
		}
		c, err := DecodeReadResult("", env.result)
		if err != nil || *c[0].Text != string(src) {
			b.Fatal("decoded text differs", err)
		}
	}
}
