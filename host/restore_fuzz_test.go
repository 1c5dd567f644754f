package host

import (
	"encoding/json"
	"testing"

	"github.com/mcphost/mcphost/bridge"
)

// FuzzParseSnapshot: ParseSnapshot never panics; it returns a snapshot or
// an error of kind invalid naming a field, and a snapshot it accepts
// survives JSON and is accepted again.
func FuzzParseSnapshot(f *testing.F) {
	digest := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	for _, s := range []string{
		`{"version":1,"server":"ws://x/mcp","protocolVersion":"2025-11-25","takenAt":"2026-12-01T00:00:00.000Z","digestAlg":"sha-256","attachments":[]}`,
		`{"version":1,"server":"ws://x/mcp","digestAlg":"sha-256","attachments":[{"uri":"docs://a","state":"fresh","parts":[{"uri":"docs://a","kind":"text","digest":"` + digest + `","text":""}]}]}`,
		`{"version":1,"server":"s","digestAlg":"sha-256","attachments":[{"uri":"u","state":"gone","parts":[{"uri":"u","kind":"binary","digest":"` + digest + `","blob":"AAEC","_meta":{"a":1}},{"uri":"u","kind":"error"}]}]}`,
		`{"version":2}`, `[]`, `{"version":1,"attachments":null}`, `{"version":1.5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSnapshot(b)
		if err != nil {
			be, ok := bridge.AsError(err)
			var data struct{ Field string }
			if !ok || be.Kind != bridge.KindInvalid || json.Unmarshal(be.Data, &data) != nil || data.Field == "" {
				t.Fatalf("error %v: not kind invalid naming a field", err)
			}
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseSnapshot(out); err != nil {
			t.Fatalf("accepted %q, but not its re-encoding %q: %v", b, out, err)
		}
	})
}
