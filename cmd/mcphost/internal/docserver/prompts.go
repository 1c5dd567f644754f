//go:build !js

package docserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The documents server's prompts: what a user picks as a slash command. Each
// answers with the documents embedded as resources, read with the
// connection's principal like every other door (a document the principal
// may not read is "not found", never quoted).
const (
	promptSummarize = "summarize_document"
	promptCompare   = "compare_documents"
)

// addPrompts adds the prompts to srv, reading through reads (the
// connection's read slots).
func (s *Server) addPrompts(srv *mcp.Server, p *Principal, reads chan struct{}) {
	embed := func(ctx context.Context, arg, uri string) (*mcp.PromptMessage, error) {
		if uri == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("missing required argument %q", arg)}
		}
		c, err := s.readLimited(ctx, reads, uri, p)
		if err != nil {
			return nil, err
		}
		return &mcp.PromptMessage{Role: "user", Content: &mcp.EmbeddedResource{Resource: c}}, nil
	}
	srv.AddPrompt(&mcp.Prompt{
		Name:        promptSummarize,
		Title:       "Summarize a document",
		Description: "Asks for a short summary of one team document, which is embedded in the prompt.",
		Arguments: []*mcp.PromptArgument{
			{Name: "uri", Title: "Document", Description: "The document's URI (completion lists the documents you may read).", Required: true},
		},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		doc, err := embed(ctx, "uri", req.Params.Arguments["uri"])
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Description: "Summarize a document", Messages: []*mcp.PromptMessage{
			doc,
			{Role: "user", Content: &mcp.TextContent{Text: "Summarize the document above in five bullet points for a new team member. Name its owner and when it applies."}},
		}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{
		Name:        promptCompare,
		Title:       "Compare two documents",
		Description: "Asks what two team documents agree and disagree on; both are embedded in the prompt.",
		Arguments: []*mcp.PromptArgument{
			{Name: "first", Title: "First document", Description: "A document URI.", Required: true},
			{Name: "second", Title: "Second document", Description: "Another document URI.", Required: true},
		},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a, err := embed(ctx, "first", req.Params.Arguments["first"])
		if err != nil {
			return nil, err
		}
		b, err := embed(ctx, "second", req.Params.Arguments["second"])
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Description: "Compare two documents", Messages: []*mcp.PromptMessage{
			a, b,
			{Role: "user", Content: &mcp.TextContent{Text: "Compare the two documents above: where do they agree, where do they contradict each other, and what does one cover that the other misses?"}},
		}}, nil
	})
}

// completePrompt completes a prompt's document argument: the URIs the
// principal may read, by case-insensitive substring of the URI or title.
func (s *Server) completePrompt(params *mcp.CompleteParams, p *Principal) *mcp.CompleteResult {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	switch {
	case params.Ref.Name == promptSummarize && params.Argument.Name == "uri":
	case params.Ref.Name == promptCompare && (params.Argument.Name == "first" || params.Argument.Name == "second"):
	default:
		return res
	}
	q := strings.ToLower(params.Argument.Value)
	var vals []string
	for _, d := range s.corpus.current().list {
		if p.mayRead(d.team) && (strings.Contains(strings.ToLower(d.uri), q) || strings.Contains(strings.ToLower(d.title), q)) {
			vals = append(vals, d.uri)
		}
	}
	slices.Sort(vals)
	res.Completion.Total = len(vals)
	if len(vals) > maxCompletions {
		vals, res.Completion.HasMore = vals[:maxCompletions], true
	}
	res.Completion.Values = vals
	return res
}
