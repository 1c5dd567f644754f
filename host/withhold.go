package host

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
)

// DefaultMaxModelTokens is the default of [Options.MaxModelTokens].
const DefaultMaxModelTokens = 100_000

// Why a part is withheld from the model ([attach.Attachment.Withheld]).
const (
	// WithheldTooLarge: the part's estimated tokens are over MaxModelTokens.
	WithheldTooLarge = "too_large"
	// WithheldMCPApp: the part is an MCP App view ([attach.IsMCPApp]),
	// interactive UI for the host to render, not text for a model.
	WithheldMCPApp = "mcp_app"
)

// ModelTokens is the token estimate the size rule compares with
// MaxModelTokens: the ledger's provider-neutral estimate of the part's
// decoded size ([dedupe.EstimateTokens], ⌈bytes/4⌉), for text and images
// alike.
func ModelTokens(a *attach.Attachment) int64 { return dedupe.EstimateTokens(a.Size) }

// maxTokens is the per-part token limit; 0 means none.
func (h *Host) maxTokens() int64 {
	switch m := h.o.MaxModelTokens; {
	case m < 0:
		return 0
	case m == 0:
		return DefaultMaxModelTokens
	default:
		return m
	}
}

// withheldWhy says why a part would be kept from the model, and the reason
// in words ("" when it would not be).
func (h *Host) withheldWhy(a *attach.Attachment) (string, string) {
	switch t, max := ModelTokens(a), h.maxTokens(); {
	case a.Kind == attach.KindError:
		return "", ""
	case a.MCPApp:
		return WithheldMCPApp, "an MCP App view (" + a.MIMEType + "): interactive UI for the host to render in a sandbox, not text for the model"
	case max > 0 && t > max:
		return WithheldTooLarge, "about " + strconv.FormatInt(t, 10) + " tokens (estimated as bytes / 4), over maxModelTokens (" +
			strconv.FormatInt(max, 10) + ")"
	}
	return "", ""
}

func withheldWarning(reason, uri string) string {
	return reason + "; attached but not sent to the model: host.include(" + strconv.Quote(uri) + ") sends it anyway"
}

// withheldWarning is withheldWarning(reason, e.uri), kept for the entry's
// next read: a re-read of an unchanged part has the same reason, and
// building the text (quoting the URI) was ~0.07 ms of every re-read of the
// bench's image under wasm (CPU profile of 100 re-reads). h.mu is held.
func (e *entry) withheldWarning(reason string) string {
	if e.withheld.text == "" || e.withheld.reason != reason {
		e.withheld.reason, e.withheld.text = reason, withheldWarning(reason, e.uri)
	}
	return e.withheld.text
}

func includedWarning(reason string) string {
	return reason + "; sent to the model anyway (host.include)"
}

// withhold applies the model policy to a read's attachments before they
// are applied: MCP App views and parts over MaxModelTokens are withheld
// (forModel false, with a warning) unless e was included, and the ledger
// is told, so the tool-result filter does not count them as in the
// context. h.mu is held.
func (h *Host) withhold(e *entry, atts []attach.Attachment) {
	for i := range atts {
		a := &atts[i]
		if a.Kind == attach.KindError {
			continue
		}
		if a.MCPApp && a.UI == nil {
			if d := h.descriptorOf(a.URI); len(d) > 0 {
				a.UI = attach.UIMeta(d[0].Meta)
			}
		}
		why, reason := h.withheldWhy(a)
		switch {
		case why == "":
		case e.included:
			a.Warnings = append(a.Warnings, includedWarning(reason))
		default:
			a.Withheld = why
			a.Warnings = append(a.Warnings, e.withheldWarning(reason))
		}
		h.ledger.Hold(h.url, a.URI, a.Withheld != "")
	}
}

// Include sends the withheld parts of the attached document uri to the
// model after all (forModel true: over MaxModelTokens, MCP App views) and
// returns its parts; their warning then says they were included anyway. It
// lasts as long as the attachment, across updates and re-reads: Detach
// ends it. A URI still being attached is included once attached (Include
// joins the Attach). A URI not attached fails with kind invalid naming it.
func (h *Host) Include(ctx context.Context, uri string) ([]attach.Attachment, error) {
	h.mu.Lock()
	e := h.atts[uri]
	if e == nil || e.phase == phaseRemoved {
		h.mu.Unlock()
		return nil, &bridge.Error{Kind: bridge.KindInvalid, URI: uri,
			Message: "include " + strconv.Quote(uri) + ": not attached; attach it first"}
	}
	e.included = true
	if e.phase == phasePending {
		h.mu.Unlock()
		return h.Attach(ctx, uri) // joins the pending attach, whose copy is included
	}
	defer h.mu.Unlock()
	for i := range e.parts {
		a := &e.parts[i]
		if a.Withheld == "" {
			continue
		}
		_, reason := h.withheldWhy(a)
		for j, w := range a.Warnings {
			if w == e.withheldWarning(reason) {
				a.Warnings[j] = includedWarning(reason)
			}
		}
		a.Withheld = ""
		h.ledger.Hold(h.url, a.URI, false)
	}
	return cloneAtts(e.parts), nil
}

// Hint is what a picker can show of a descriptor before it is chosen:
// tokens estimated from its listed size (-1 when it has none), and why its
// parts would be withheld from the model ("" when they would not, as far
// as the descriptor tells: the size rule applies to each part read).
// uri may be a URI template.
func (h *Host) Hint(uri, mimeType string, size *int64) (tokens int64, withheld string) {
	tokens = -1
	if size != nil {
		tokens = dedupe.EstimateTokens(*size)
	}
	switch max := h.maxTokens(); {
	case attach.IsMCPApp(uri, mimeType):
		withheld = WithheldMCPApp
	case max > 0 && tokens > max:
		withheld = WithheldTooLarge
	}
	return tokens, withheld
}

// ToolUI returns a tool's MCP Apps metadata from its _meta: ui is _meta.ui
// as sent (resourceUri, visibility), or {"resourceUri": ...} made from the
// deprecated flat _meta["ui/resourceUri"]; nil when there is neither.
// modelVisible is false when _meta.ui.visibility is a list without
// "model" (["app"]: callable by the app only, so not for the model's tool
// list); an absent or malformed visibility means the default, ["model",
// "app"].
func ToolUI(meta json.RawMessage) (ui json.RawMessage, modelVisible bool) {
	if ui = attach.UIMeta(meta); ui == nil {
		var flat struct {
			URI json.RawMessage `json:"ui/resourceUri"`
		}
		if json.Unmarshal(meta, &flat) == nil && len(flat.URI) > 2 && flat.URI[0] == '"' {
			ui = json.RawMessage(`{"resourceUri":` + string(flat.URI) + `}`)
		}
		return ui, true
	}
	var v struct {
		Visibility *[]string `json:"visibility"`
	}
	if json.Unmarshal(ui, &v) != nil || v.Visibility == nil {
		return ui, true
	}
	return ui, slices.Contains(*v.Visibility, "model")
}
