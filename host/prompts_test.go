//go:build !js

package host_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
)

// For #19: prompts through the host, against go-sdk over a real socket in
// both revisions: the listing, a missing required argument refused with
// its name before anything is sent, an embedded document turned into
// attachments like a read, a prompt that embeds an attached document
// putting no second copy in the conversation, completion, and a burst of
// list changes firing promptslistchanged once.
func TestHostPrompts(t *testing.T) {
	for _, versions := range [][]string{{"2025-11-25"}, {"2026-07-28"}} {
		t.Run(versions[0], func(t *testing.T) {
			const a, b = "mem://docs/a.md", "mem://docs/b.md"
			srv := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1"}, &mcp.ServerOptions{
				SupportedProtocolVersions: versions,
				CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
					return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{a, b}, Total: 2}}, nil
				},
			})
			body := map[string]string{a: "# A\n\nThe *first* document.", b: "# B\n\nThe second."}
			for uri, text := range body {
				srv.AddResource(&mcp.Resource{URI: uri, Name: uri[strings.LastIndex(uri, "/")+1:], MIMEType: "text/markdown"},
					func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
						return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
					})
			}
			srv.AddPrompt(&mcp.Prompt{Name: "review", Arguments: []*mcp.PromptArgument{{Name: "uri", Required: true}}},
				func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					uri := r.Params.Arguments["uri"]
					return &mcp.GetPromptResult{Description: "review", Messages: []*mcp.PromptMessage{
						{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/markdown", Text: body[uri]}}},
						{Role: "user", Content: &mcp.TextContent{Text: "Review the document above."}},
					}}, nil
				})
			hs := httptest.NewServer(bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return srv }))
			t.Cleanup(hs.Close)
			h, rec := connect(t, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			ps, err := h.Prompts(ctx)
			if err != nil || len(ps) != 1 || ps[0].Name != "review" || !ps[0].Arguments[0].Required {
				t.Fatalf("Prompts = %+v, %v", ps, err)
			}
			_, err = h.GetPrompt(ctx, "review", nil)
			if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindInvalid || !strings.Contains(e.Message, `"uri"`) {
				t.Fatalf("missing argument: %v", err)
			}
			if _, err := h.GetPrompt(ctx, "nope", nil); err == nil || !strings.Contains(err.Error(), `"nope"`) {
				t.Fatalf("unknown prompt: %v", err)
			}

			if _, err := h.Attach(ctx, a); err != nil {
				t.Fatal(err)
			}
			r, err := h.GetPrompt(ctx, "review", map[string]string{"uri": a})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Messages) != 1 || len(r.Dropped) != 1 || r.Dropped[0].Index != 0 || r.Dropped[0].URI != a {
				t.Fatalf("a prompt embedding an attached document: %d messages, dropped %+v", len(r.Messages), r.Dropped)
			}
			r, err = h.GetPrompt(ctx, "review", map[string]string{"uri": b})
			if err != nil || len(r.Messages) != 2 || len(r.Dropped) != 0 {
				t.Fatalf("GetPrompt(b) = %+v, %v", r, err)
			}
			p := r.Messages[0].Parts
			if len(p) != 1 || p[0].URI != b || p[0].Kind != "text" || !strings.Contains(p[0].HTML, "<h1") || p[0].Text != body[b] || !host.ForModel(&p[0]) {
				t.Fatalf("embedded document's parts = %+v", p)
			}
			if r.Messages[1].Parts != nil {
				t.Fatalf("a text message got parts")
			}

			c, err := h.CompletePrompt(ctx, "review", "uri", "mem", nil)
			if err != nil || len(c.Values) != 2 {
				t.Fatalf("CompletePrompt = %+v, %v", c, err)
			}

			for i := range 5 {
				srv.AddPrompt(&mcp.Prompt{Name: "extra" + string(rune('a'+i))}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
				})
			}
			rec.wait(t, host.EventPromptsListChanged, "")
			time.Sleep(300 * time.Millisecond)
			if n := rec.count(host.EventPromptsListChanged); n < 1 || n > 2 {
				t.Fatalf("%d promptslistchanged events for a burst of 5 changes", n)
			}
			if ps, err := h.Prompts(ctx); err != nil || len(ps) != 6 {
				t.Fatalf("after the changes: %d prompts, %v", len(ps), err)
			}
		})
	}
}

// For #19: a server that did not declare prompts gets nothing sent.
func TestHostPromptsUnsupported(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "no-prompts", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "mem://x", Name: "x"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://x", Text: "x"}}}, nil
	})
	hs := httptest.NewServer(bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return srv }))
	t.Cleanup(hs.Close)
	h, _ := connect(t, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	for _, err := range []error{
		func() error { _, err := h.Prompts(context.Background()); return err }(),
		func() error { _, err := h.GetPrompt(context.Background(), "x", nil); return err }(),
		func() error { _, err := h.CompletePrompt(context.Background(), "x", "a", "", nil); return err }(),
	} {
		if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindUnsupported {
			t.Fatalf("err = %v; want unsupported", err)
		}
	}
}
