package dedupe

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

func strp(s string) *string { return &s }

func textPart(uri, text string) Part { return Part{URI: uri, MIMEType: "text/plain", Text: strp(text)} }

func blobPart(uri string, data []byte) Part {
	return Part{URI: uri, MIMEType: "application/octet-stream", Blob: strp(base64.StdEncoding.EncodeToString(data))}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// embed is an embedded resource block for p.
func embed(t testing.TB, p Part) string {
	return mustJSON(t, map[string]any{"type": "resource", "resource": p})
}

func link(uri string) string {
	return `{"type":"resource_link","uri":"` + uri + `","name":"n"}`
}

func text(s string) string { return `{"type":"text","text":"` + s + `"}` }

func result(blocks ...string) json.RawMessage {
	return json.RawMessage(`{"content":[` + strings.Join(blocks, ",") + `]}`)
}

// contentOf returns the raw blocks of a filtered result.
func contentOf(t testing.TB, r json.RawMessage) []json.RawMessage {
	t.Helper()
	var v struct {
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(r, &v); err != nil {
		t.Fatalf("filtered result is not valid: %v\n%s", err, r)
	}
	return v.Content
}

func fixedClock() func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { return t0 }
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/everything/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustAttach(t testing.TB, l *Ledger, server, uri string, parts ...Part) Entry {
	t.Helper()
	e, err := l.Attach(server, uri, parts)
	if err != nil {
		t.Fatalf("Attach(%q): %v", uri, err)
	}
	return e
}

func partState(t testing.TB, l *Ledger, server, uri string) State {
	t.Helper()
	e, ok := l.Lookup(server, uri)
	if !ok {
		t.Fatalf("Lookup(%q): not attached", uri)
	}
	for _, p := range e.Parts {
		if p.URI == uri || len(e.Parts) == 1 {
			return p.State
		}
	}
	t.Fatalf("Lookup(%q): no part with that URI in %+v", uri, e)
	return ""
}
