//go:build !js

package docserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// For #19: the documents server's two prompts answer with the documents
// embedded as resources, read as the connection's principal: another
// team's document is not found (never quoted), completion lists only what
// the principal may read, and a missing required argument is refused with
// its name. Both revisions.
func TestDocumentPrompts(t *testing.T) {
	t.Parallel()
	ps, err := ParseTokenFile(strings.NewReader("tok-platform platform\ntok-payments payments\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := startDocs(t, testConfig(), "", ps)
	const mine, theirs = "docs://team/platform/onboarding/welcome.md", "docs://team/payments/onboarding/first-week.md"
	for _, proto := range []string{bridge.ProtocolLegacy, bridge.ProtocolModern} {
		t.Run(proto, func(t *testing.T) {
			s := mcptest.Dial(t, host, &bridge.Options{Token: "tok-platform", Protocol: proto})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			l, err := s.ListPrompts(ctx, nil)
			if err != nil || len(l.Items) != 2 {
				t.Fatalf("ListPrompts = %+v, %v", l, err)
			}
			byName := map[string]bridge.Prompt{}
			for _, p := range l.Items {
				byName[p.Name] = p
			}
			sum, cmp := byName[promptSummarize], byName[promptCompare]
			if len(sum.Arguments) != 1 || !sum.Arguments[0].Required || len(cmp.Arguments) != 2 {
				t.Fatalf("prompts = %+v", l.Items)
			}
			if err := sum.CheckArgs(nil); err == nil || !strings.Contains(err.Error(), `"uri"`) {
				t.Fatalf("CheckArgs(nil) = %v", err)
			}

			r, err := s.GetPrompt(ctx, promptSummarize, map[string]string{"uri": mine})
			if err != nil || len(r.Messages) != 2 {
				t.Fatalf("GetPrompt = %+v, %v", r, err)
			}
			var block struct {
				Type     string `json:"type"`
				Resource struct {
					URI      string `json:"uri"`
					MIMEType string `json:"mimeType"`
					Text     string `json:"text"`
				} `json:"resource"`
			}
			if err := json.Unmarshal(r.Messages[0].Content, &block); err != nil || block.Type != "resource" || block.Resource.URI != mine || block.Resource.Text == "" || block.Resource.MIMEType != "text/markdown" {
				t.Fatalf("embedded document = %s (%v)", r.Messages[0].Content, err)
			}

			r, err = s.GetPrompt(ctx, promptCompare, map[string]string{"first": mine, "second": theirs})
			if !bridge.IsNotFound(err) || r != nil {
				t.Fatalf("another team's document through a prompt: %+v, %v; want not found", r, err)
			}
			_, err = s.GetPrompt(ctx, promptSummarize, nil) // a client that does not check
			if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindInvalid || !strings.Contains(e.Message, `"uri"`) {
				t.Fatalf("missing argument: %v", err)
			}

			c, err := s.CompletePrompt(ctx, promptSummarize, "uri", "welcome", nil)
			if err != nil || len(c.Values) == 0 {
				t.Fatalf("CompletePrompt = %+v, %v", c, err)
			}
			for _, v := range c.Values {
				if !strings.HasPrefix(v, "docs://team/platform/") {
					t.Fatalf("completion offers %s to the platform team", v)
				}
			}
			if c, err := s.CompletePrompt(ctx, promptCompare, "second", "payments", nil); err != nil || len(c.Values) != 0 {
				t.Fatalf("completion of another team's documents: %+v, %v", c, err)
			}
		})
	}
}
