package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A Prompt is an entry of prompts/list: a template the user picks (a slash
// command), never offered to the model by itself and never mixed with
// resources.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        json.RawMessage  `json:"_meta,omitempty"`
}

// A PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// A PromptMessage is one message of a prompts/get result. Content is the
// content block as the server sent it (text, image, audio, resource,
// resource_link...), so types this package does not know pass unchanged.
type PromptMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// A PromptResult is what prompts/get returned.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ListPrompts follows nextCursor through every page of prompts/list, with
// the same page cap, loop guard, bounds and salvage of malformed entries as
// [Session.ListResources]. A server that did not declare "prompts" gets
// nothing sent: the error is kind unsupported.
func (s *Session) ListPrompts(ctx context.Context, onPage PageFunc[Prompt]) (*List[Prompt], error) {
	return listAll(ctx, s, "prompts/list", "prompts", validPrompt, onPage)
}

// GetPrompt performs prompts/get with the given arguments (nil for none).
// A message whose role is neither "user" nor "assistant", or without
// content, makes the result a protocol error: a host must not hand the
// model a conversation it cannot place.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	const method = "prompts/get"
	if err := s.gate(method, ""); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, newError(KindInvalid, nil, method, "", "prompts/get: the prompt name is empty")
	}
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	var res PromptResult
	if err := s.call(ctx, method, "", params, &res); err != nil {
		return nil, promptErr(err, name)
	}
	if res.Messages == nil {
		return nil, newError(KindProtocol, ErrProtocol, method, "", "prompt %q: result has no \"messages\" array", name)
	}
	for i, m := range res.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, newError(KindProtocol, ErrProtocol, method, "", "prompt %q: message %d has role %q (want \"user\" or \"assistant\")", name, i, m.Role)
		}
		if len(m.Content) == 0 || m.Content[0] != '{' {
			return nil, newError(KindProtocol, ErrProtocol, method, "", "prompt %q: message %d has no content object", name, i)
		}
	}
	return &res, nil
}

// CompletePrompt asks completion/complete for values of one argument of a
// prompt (ref/prompt), like [Session.Complete] does for a template.
func (s *Session) CompletePrompt(ctx context.Context, prompt, argName, value string, args map[string]string) (*Completion, error) {
	c, err := s.complete(ctx, map[string]string{"type": "ref/prompt", "name": prompt}, "", argName, value, args)
	if err != nil {
		return nil, promptErr(err, prompt)
	}
	return c, nil
}

func validPrompt(p *Prompt) error {
	if p.Name == "" {
		return errors.New(`missing "name"`)
	}
	for i, a := range p.Arguments {
		if a.Name == "" {
			return fmt.Errorf(`prompt %q: argument %d: missing "name"`, p.Name, i)
		}
	}
	return nil
}

// promptErr names the prompt in a failed prompts/get.
func promptErr(err error, name string) error {
	e, ok := AsError(err)
	if !ok {
		return err
	}
	c := *e
	c.Message = fmt.Sprintf("prompt %q: %s", name, e.Message)
	return &c
}

// CheckArgs reports, as a kind invalid error naming them, the required
// arguments of p that args lacks (or holds empty) and the arguments p does
// not take. Servers need not check (go-sdk v1.8.0 does not): a host checks
// before prompts/get, so the user learns which argument is missing.
func (p *Prompt) CheckArgs(args map[string]string) error {
	var missing, unknown []string
	known := map[string]bool{}
	for _, a := range p.Arguments {
		known[a.Name] = true
		if a.Required && args[a.Name] == "" {
			missing = append(missing, a.Name)
		}
	}
	for k := range args {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	switch {
	case len(missing) > 0:
		return newError(KindInvalid, nil, "prompts/get", "", "prompt %q: missing required argument %s", p.Name, quoteList(missing))
	case len(unknown) > 0:
		return newError(KindInvalid, nil, "prompts/get", "", "prompt %q takes no argument %s", p.Name, quoteList(unknown))
	}
	return nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
