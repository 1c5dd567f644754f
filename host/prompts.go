package host

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
)

// EventPromptsListChanged: the server's prompts changed; Prompts lists them
// anew. A burst of notifications fires it once.
const EventPromptsListChanged = "promptslistchanged"

// promptsCoalesce is how long a prompts list_changed waits for more before
// the event fires.
const promptsCoalesce = 50 * time.Millisecond

// A promptSession is a session that speaks prompts (*bridge.Session does;
// the engine's model fakes need not).
type promptSession interface {
	ListPrompts(ctx context.Context, onPage bridge.PageFunc[bridge.Prompt]) (*bridge.List[bridge.Prompt], error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*bridge.PromptResult, error)
	CompletePrompt(ctx context.Context, prompt, argName, value string, args map[string]string) (*bridge.Completion, error)
}

var _ promptSession = (*bridge.Session)(nil)

// promptState is the host's copy of the server's prompts: listed on first
// use, dropped on list_changed and on every new session generation.
type promptState struct {
	list    []bridge.Prompt
	gen     uint64 // the session generation list came from (0: none)
	pending bool   // a promptslistchanged event is waiting to fire
}

// A PromptMessage is one message of a prompt after the attachment path and
// the dedupe filter.
type PromptMessage struct {
	Role string `json:"role"`
	// Content is the content block as the server sent it.
	Content json.RawMessage `json:"content"`
	// Parts are the attachments an embedded resource becomes, exactly as a
	// read's parts would be (sniffing, Markdown, limits); nil otherwise.
	Parts []attach.Attachment `json:"parts,omitempty"`
}

// A PromptResult is what GetPrompt returns: the messages the context does
// not already hold, and what the filter removed.
type PromptResult struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Messages    []PromptMessage `json:"messages"`
	// Dropped names each message removed (its index among the server's
	// messages) because the context already holds its document.
	Dropped    []dedupe.Dropped `json:"dropped"`
	Superseded []string         `json:"superseded"`
}

func (h *Host) promptSession() (promptSession, uint64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.sessionLocked()
	if err != nil {
		return nil, 0, err
	}
	ps, ok := s.(promptSession)
	if !ok || !s.Supports("prompts/list") {
		return nil, 0, &bridge.Error{Kind: bridge.KindUnsupported, Method: "prompts/list", Err: bridge.ErrNotSupported,
			Message: `the server did not declare the "prompts" capability; nothing was sent`}
	}
	return ps, h.gen, nil
}

// Prompts lists the server's prompts (every page), from the host's copy
// when it is current. A server without the prompts capability gets nothing
// sent: the error is kind unsupported. Entries that do not parse are left
// out (the listing's salvage rule).
func (h *Host) Prompts(ctx context.Context) ([]bridge.Prompt, error) {
	ps, gen, err := h.promptSession()
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.prompts.gen == gen && h.prompts.list != nil {
		out := append([]bridge.Prompt(nil), h.prompts.list...)
		h.mu.Unlock()
		return out, nil
	}
	h.mu.Unlock()
	l, err := ps.ListPrompts(ctx, nil)
	if err != nil && (l == nil || len(l.Items) == 0) {
		return nil, h.afterClose(err)
	}
	items := l.Items
	if items == nil {
		items = []bridge.Prompt{}
	}
	h.mu.Lock()
	if h.gen == gen && err == nil {
		h.prompts.list, h.prompts.gen = items, gen
	}
	h.mu.Unlock()
	return append([]bridge.Prompt(nil), items...), nil
}

// GetPrompt gets a prompt with its arguments, after checking them against
// the listing (a missing required argument is kind invalid naming it). Each
// embedded resource becomes attachments through the same path as a read,
// and the dedupe filter removes the messages whose document the context
// already holds (a newer copy supersedes the attached one, as in a tool
// result), so choosing a prompt never puts a second copy in the
// conversation.
func (h *Host) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	ps, _, err := h.promptSession()
	if err != nil {
		return nil, err
	}
	if list, lerr := h.Prompts(ctx); lerr == nil {
		found := false
		for i := range list {
			if list[i].Name == name {
				found = true
				if err := list[i].CheckArgs(args); err != nil {
					return nil, err
				}
			}
		}
		if !found {
			return nil, &bridge.Error{Kind: bridge.KindInvalid, Method: "prompts/get",
				Message: fmt.Sprintf("the server lists no prompt %q", name)}
		}
	}
	r, err := ps.GetPrompt(ctx, name, args)
	if err != nil {
		return nil, h.afterClose(err)
	}
	blocks := make([]json.RawMessage, len(r.Messages))
	for i, m := range r.Messages {
		blocks[i] = m.Content
	}
	raw, _ := json.Marshal(map[string]any{"content": blocks})
	tr, ferr := h.filter(raw)
	if ferr != nil {
		return nil, ferr
	}
	dropped := map[int]bool{}
	for _, d := range tr.Dropped {
		dropped[d.Index] = true
	}
	out := &PromptResult{Name: name, Description: r.Description, Messages: []PromptMessage{}, Dropped: tr.Dropped, Superseded: tr.Superseded}
	for i, m := range r.Messages {
		if dropped[i] {
			continue
		}
		pm := PromptMessage{Role: m.Role, Content: m.Content}
		var block struct {
			Type     string           `json:"type"`
			Resource *attach.Contents `json:"resource"`
		}
		if json.Unmarshal(m.Content, &block) == nil && block.Type == "resource" && block.Resource != nil {
			pm.Parts = h.promptParts(*block.Resource)
		}
		out.Messages = append(out.Messages, pm)
	}
	return out, nil
}

// promptParts turns a prompt's embedded resource into attachments as a read
// would, current (they arrived just now) and under the same model policy:
// an MCP App view or a part over MaxModelTokens is not for the model.
func (h *Host) promptParts(c attach.Contents) []attach.Attachment {
	atts := attach.FromContents([]attach.Contents{c}, &h.o.Attach)
	for i := range atts {
		a := &atts[i]
		if a.Kind == attach.KindError {
			continue
		}
		a.State = StateFresh
		if why, reason := h.withheldWhy(a); why != "" {
			a.Withheld = why
			a.Warnings = append(a.Warnings, reason+"; a prompt's document, not sent to the model (attach it and use host.include to send it anyway)")
		}
	}
	return atts
}

// CompletePrompt asks the server for values of one argument of a prompt.
func (h *Host) CompletePrompt(ctx context.Context, prompt, argName, value string, args map[string]string) (*bridge.Completion, error) {
	ps, _, err := h.promptSession()
	if err != nil {
		return nil, err
	}
	c, err := ps.CompletePrompt(ctx, prompt, argName, value, args)
	return c, h.afterClose(err)
}

// promptsChanged handles notifications/prompts/list_changed of session
// generation gen: the copy is dropped at once, and the event fires once per
// burst.
func (h *Host) promptsChanged(gen uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen || h.closed {
		return
	}
	h.prompts.list = nil
	if h.prompts.pending {
		return
	}
	h.prompts.pending = true
	time.AfterFunc(promptsCoalesce, func() {
		h.mu.Lock()
		h.prompts.pending = false
		closed := h.closed
		h.mu.Unlock()
		if !closed {
			h.emit(Event{Type: EventPromptsListChanged})
		}
	})
}
