//go:build !js

package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// promptServer is a go-sdk server with six prompts (pages of four): simple
// ones, one with a required and an optional argument, one that embeds a
// resource, and completion for ref/prompt.
func promptServer(t *testing.T, versions ...string) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1"}, &mcp.ServerOptions{
		PageSize:                  4,
		SupportedProtocolVersions: versions,
		CompletionHandler: func(ctx context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			if r.Params.Ref.Type != "ref/prompt" || r.Params.Ref.Name != "summarize" || r.Params.Argument.Name != "uri" {
				return nil, fmt.Errorf("unexpected completion %+v", r.Params)
			}
			var vals []string
			for _, v := range []string{"docs://a", "docs://ab", "docs://b"} {
				if strings.HasPrefix(v, r.Params.Argument.Value) {
					vals = append(vals, v)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
		},
	})
	for i := range 4 {
		name := fmt.Sprintf("simple-%d", i)
		s.AddPrompt(&mcp.Prompt{Name: name, Title: fmt.Sprintf("Simple %d", i)}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello from " + name}}}}, nil
		})
	}
	s.AddPrompt(&mcp.Prompt{Name: "summarize", Description: "Summarize a document", Arguments: []*mcp.PromptArgument{
		{Name: "uri", Required: true}, {Name: "style"},
	}}, func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: "summary", Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "Summarize " + r.Params.Arguments["uri"] + " " + r.Params.Arguments["style"]}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "Sure."}},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "embed"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.EmbeddedResource{
			Resource: &mcp.ResourceContents{URI: "docs://a", MIMEType: "text/markdown", Text: "# A"},
		}}}}, nil
	})
	return s
}

// For #19: prompts/list across pages, prompts/get with and without
// arguments (content blocks kept as sent), ref/prompt completion and
// list_changed, against go-sdk in both revisions.
func TestPromptsGoSDK(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions []string
		want     string
	}{
		{"legacy", []string{"2025-11-25"}, bridge.ProtocolLegacy},
		{"modern", []string{"2026-07-28"}, bridge.ProtocolModern},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := promptServer(t, tc.versions...)
			url := serve(t, bridge.ServerHandler(nil, func(*bridge.Conn) *mcp.Server { return srv }))
			changed := make(chan string, 8)
			s := dial(t, url, &bridge.Options{OnListChanged: func(what string) { changed <- what }})
			if got := s.InitializeResult().ProtocolVersion; got != tc.want {
				t.Fatalf("revision %s; want %s", got, tc.want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			var pages int
			l, err := s.ListPrompts(ctx, func([]bridge.Prompt, []error) { pages++ })
			if err != nil || len(l.Items) != 6 || l.Pages != 2 || pages != 2 || l.Truncated {
				t.Fatalf("ListPrompts = %d items in %d pages (callback %d), %v", len(l.Items), l.Pages, pages, err)
			}
			var sum *bridge.Prompt
			for i := range l.Items {
				if l.Items[i].Name == "summarize" {
					sum = &l.Items[i]
				}
			}
			if sum == nil || len(sum.Arguments) != 2 || !sum.Arguments[0].Required || sum.Arguments[1].Required || sum.Description != "Summarize a document" {
				t.Fatalf("summarize = %+v", sum)
			}

			r, err := s.GetPrompt(ctx, "simple-2", nil)
			if err != nil || len(r.Messages) != 1 || r.Messages[0].Role != "user" || !strings.Contains(string(r.Messages[0].Content), `"hello from simple-2"`) {
				t.Fatalf("GetPrompt(simple-2) = %+v, %v", r, err)
			}
			args := map[string]string{"uri": "docs://a", "style": "short"}
			if err := sum.CheckArgs(args); err != nil {
				t.Fatal(err)
			}
			r, err = s.GetPrompt(ctx, "summarize", args)
			if err != nil || len(r.Messages) != 2 || r.Description != "summary" || !strings.Contains(string(r.Messages[0].Content), "Summarize docs://a short") || r.Messages[1].Role != "assistant" {
				t.Fatalf("GetPrompt(summarize) = %+v, %v", r, err)
			}
			r, err = s.GetPrompt(ctx, "embed", nil)
			var block struct {
				Type     string `json:"type"`
				Resource struct {
					URI, Text string
				} `json:"resource"`
			}
			if err != nil || json.Unmarshal(r.Messages[0].Content, &block) != nil || block.Type != "resource" || block.Resource.URI != "docs://a" || block.Resource.Text != "# A" {
				t.Fatalf("GetPrompt(embed) = %s, %v", r.Messages[0].Content, err)
			}

			_, err = s.GetPrompt(ctx, "no-such-prompt", nil)
			if e, ok := bridge.AsError(err); !ok || !strings.Contains(e.Message, `"no-such-prompt"`) || (e.Kind != bridge.KindInvalid && e.Kind != bridge.KindNotFound) {
				t.Fatalf("GetPrompt(unknown) = %v", err)
			}

			c, err := s.CompletePrompt(ctx, "summarize", "uri", "docs://a", nil)
			if err != nil || strings.Join(c.Values, ",") != "docs://a,docs://ab" {
				t.Fatalf("CompletePrompt = %+v, %v", c, err)
			}

			srv.AddPrompt(&mcp.Prompt{Name: "late"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
			})
			// In 2026-07-28 through the list-changed listen, which asks for
			// promptsListChanged when the server announces it.
			for what := ""; what != "prompts"; {
				select {
				case what = <-changed:
				case <-ctx.Done():
					t.Fatal("no prompts list_changed")
				}
			}
			if l, err := s.ListPrompts(ctx, nil); err != nil || len(l.Items) != 7 {
				t.Fatalf("after a change: %d prompts, %v", len(l.Items), err)
			}
		})
	}
}

// For #19: what a host checks before prompts/get.
func TestPromptCheckArgs(t *testing.T) {
	p := bridge.Prompt{Name: "summarize", Arguments: []bridge.PromptArgument{{Name: "uri", Required: true}, {Name: "style"}, {Name: "lang", Required: true}}}
	for _, tc := range []struct {
		args map[string]string
		want string // "" = accepted; else a fragment of the message
	}{
		{map[string]string{"uri": "x", "lang": "en"}, ""},
		{map[string]string{"uri": "x", "lang": "en", "style": "short"}, ""},
		{nil, `missing required argument "uri", "lang"`},
		{map[string]string{"uri": "x"}, `missing required argument "lang"`},
		{map[string]string{"uri": "", "lang": "en"}, `missing required argument "uri"`},
		{map[string]string{"uri": "x", "lang": "en", "colour": "red"}, `takes no argument "colour"`},
	} {
		err := p.CheckArgs(tc.args)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.args, err)
			}
			continue
		}
		e, ok := bridge.AsError(err)
		if !ok || e.Kind != bridge.KindInvalid || !strings.Contains(e.Message, tc.want) || !strings.Contains(e.Message, `"summarize"`) {
			t.Errorf("%v: %v; want invalid naming %s", tc.args, err, tc.want)
		}
	}
}

// For #19, against a scripted peer: malformed entries are skipped and
// reported while the rest of the page is kept, a repeated cursor stops the
// loop, a message with a bad role is a protocol error, and a server that
// did not declare "prompts" gets nothing sent.
func TestPromptsScripted(t *testing.T) {
	var lists atomic.Int64
	p := &scripted{caps: `{"prompts":{"listChanged":true}}`, reply: func(_ *bridge.Conn, id json.RawMessage, method string, params json.RawMessage) []string {
		switch method {
		case "prompts/list":
			if lists.Add(1) == 1 {
				return []string{result(id, `{"prompts":[{"name":"a"},{"title":"no name"},{"name":"b","arguments":[{"required":true}]},{"name":"c","arguments":[{"name":"x","required":true}]}],"nextCursor":"again"}`)}
			}
			return []string{result(id, `{"prompts":[{"name":"d"}],"nextCursor":"again"}`)}
		case "prompts/get":
			if strings.Contains(string(params), `"system"`) {
				return []string{result(id, `{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}`)}
			}
			return []string{result(id, `{"messages":[{"role":"user","content":{"type":"x-future","payload":[1,2]}}]}`)}
		}
		return []string{rpcError(id, -32601, "no", "")}
	}}
	s := dial(t, startScripted(t, p), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := s.ListPrompts(ctx, nil)
	var names []string
	for _, it := range l.Items {
		names = append(names, it.Name)
	}
	if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindProtocol || !strings.Contains(e.Message, "repeated cursor") {
		t.Fatalf("err = %v; want the loop guard", err)
	}
	if strings.Join(names, ",") != "a,c,d" || len(l.Invalid) != 2 || !l.Truncated {
		t.Fatalf("items %v, invalid %v, truncated %v", names, l.Invalid, l.Truncated)
	}
	r, err := s.GetPrompt(ctx, "future", nil)
	if err != nil || string(r.Messages[0].Content) != `{"type":"x-future","payload":[1,2]}` {
		t.Fatalf("an unknown content type must pass unchanged: %+v, %v", r, err)
	}
	_, err = s.GetPrompt(ctx, "system", map[string]string{"role": "system"})
	if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindProtocol || !strings.Contains(e.Message, `role "system"`) {
		t.Fatalf("bad role: %v", err)
	}

	bare := &scripted{reply: func(_ *bridge.Conn, id json.RawMessage, method string, _ json.RawMessage) []string {
		return []string{rpcError(id, -32601, "no", "")}
	}}
	s2 := dial(t, startScripted(t, bare), nil)
	for _, call := range []func() error{
		func() error { _, err := s2.ListPrompts(ctx, nil); return err },
		func() error { _, err := s2.GetPrompt(ctx, "a", nil); return err },
	} {
		if e, ok := bridge.AsError(call()); !ok || e.Kind != bridge.KindUnsupported || !strings.Contains(e.Message, `"prompts"`) {
			t.Fatalf("ungated: %v", e)
		}
	}
	for _, m := range bare.methods() {
		if strings.HasPrefix(m, "prompts/") {
			t.Fatalf("%s was sent to a server without the prompts capability", m)
		}
	}
}

// TestPromptsModernScripted: in 2026-07-28 a prompt list page carries ttlMs
// and cacheScope like a resource list, and prompts/get may answer
// input_required, which is retried with its requestState verbatim.
func TestPromptsModernScripted(t *testing.T) {
	p := &modernPeer{caps: `{"prompts":{"listChanged":true},"completions":{}}`}
	p.reply = func(_ *bridge.Conn, id json.RawMessage, method string, params json.RawMessage) []string {
		var q struct {
			Name         string          `json:"name"`
			RequestState json.RawMessage `json:"requestState"`
		}
		json.Unmarshal(params, &q)
		switch method {
		case "prompts/list":
			return []string{result(id, `{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}],"ttlMs":2500,"cacheScope":"private"}`)}
		case "prompts/get":
			if len(q.RequestState) == 0 {
				return []string{result(id, `{"resultType":"input_required","requestState":"round-1"}`)}
			}
			if string(q.RequestState) != `"round-1"` {
				return []string{rpcError(id, -32602, "requestState not echoed: "+string(q.RequestState), "")}
			}
			return []string{result(id, `{"resultType":"complete","description":"after one round","messages":[{"role":"user","content":{"type":"text","text":"hello"}}]}`)}
		}
		return []string{rpcError(id, -32601, "no", "")}
	}
	s := dial(t, startModern(t, p), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := s.ListPrompts(ctx, nil)
	if err != nil || len(l.Items) != 1 || l.TTL != 2500*time.Millisecond || l.CacheScope != "private" {
		t.Fatalf("list %+v, %v", l, err)
	}
	if err := l.Items[0].CheckArgs(nil); err == nil || !strings.Contains(err.Error(), `"who"`) {
		t.Fatalf("a missing required argument must be named: %v", err)
	}
	r, err := s.GetPrompt(ctx, "greet", map[string]string{"who": "you"})
	if err != nil || r.Description != "after one round" || len(r.Messages) != 1 {
		t.Fatalf("get %+v, %v", r, err)
	}
}
