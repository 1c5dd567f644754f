package host

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
)

// ToolResult is a tool result after the dedupe filter.
type ToolResult struct {
	// Result is the CallToolResult JSON with duplicate blocks removed.
	Result json.RawMessage
	// Dropped names every removed block and why.
	Dropped []dedupe.Dropped
	// Superseded lists attached URIs a newer copy in this result replaced.
	Superseded []string
}

// CallTool calls a tool and filters its result against the context.
//
// A tool may change a document and return a link to it, so a result that
// links to an attached document, or embeds a copy different from it, is
// first confirmed by re-reading that attachment (never from a cache, bounded
// by RefreshDeadline); the filter then decides on the current copy: a link
// is dropped unless the document is gone, and an embedded copy equal to the
// re-read one is dropped as a duplicate.
func (h *Host) CallTool(ctx context.Context, name string, args any) (*ToolResult, error) {
	s, err := h.session()
	if err != nil {
		return nil, err
	}
	raw, err := s.CallTool(ctx, name, args)
	if err != nil {
		return nil, h.afterClose(err)
	}
	if ds := h.confirm(raw); len(ds) > 0 {
		cctx, cancel := context.WithTimeout(ctx, h.o.RefreshDeadline)
		h.awaitOrStale(cctx, ds, "confirming read for a tool result did not finish in time")
		cancel()
	}
	return h.filter(raw)
}

// FilterToolResult applies the dedupe filter to a tools/call result obtained
// elsewhere. It decides at once, on the copies in the context, and schedules
// the confirming reads CallTool would wait for. A result that is not an
// object with a content array is returned unchanged with the error.
func (h *Host) FilterToolResult(raw json.RawMessage) (*ToolResult, error) {
	ds := h.confirm(raw) // before the filter records copies it delivers
	tr, err := h.filter(raw)
	h.mu.Lock()
	for _, d := range ds {
		d.e.unwait(d.w) // nobody waits: the reads just happen
	}
	h.mu.Unlock()
	return tr, err
}

func (h *Host) filter(raw json.RawMessage) (*ToolResult, error) {
	out, rep, err := h.ledger.Filter(h.url, raw)
	tr := &ToolResult{Result: out, Dropped: rep.Dropped, Superseded: rep.Superseded}
	if tr.Dropped == nil {
		tr.Dropped = []dedupe.Dropped{}
	}
	if tr.Superseded == nil {
		tr.Superseded = []string{}
	}
	h.applyLedgerStates(rep)
	if err != nil {
		return tr, &bridge.Error{Kind: bridge.KindInvalid, Method: "tools/call", Message: err.Error(), Err: err}
	}
	return tr, nil
}

// confirm demands the confirming reads a tool result calls for.
func (h *Host) confirm(raw json.RawMessage) []demand {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.confirmLocked(raw)
}

func (h *Host) confirmLocked(raw json.RawMessage) []demand {
	if len(h.atts) == 0 {
		return nil
	}
	var ds []demand
	uris := h.ledger.Confirmations(h.url, raw)
	for _, u := range h.order {
		// A document still being attached may have been read before the
		// tool changed it: it is read once more after its first read.
		if e := h.atts[u]; e.phase == phasePending && !slices.Contains(uris, u) {
			if q, _ := json.Marshal(u); bytes.Contains(raw, q) {
				uris = append(uris, u)
			}
		}
	}
	for _, u := range uris {
		e := h.atts[u]
		if e == nil || e.phase == phaseRemoved {
			continue
		}
		h.tr("tool result names an attached document")
		ds = append(ds, demand{e, e.wait(h.need(e, "confirming read for a tool result", h.o.RefreshDeadline)), e.applied})
	}
	return ds
}

// applyLedgerStates mirrors superseded and stale marks from a filter report
// onto the attachments and tells the page.
func (h *Host) applyLedgerStates(rep dedupe.Report) {
	mark := func(uris []string, state, typ string) {
		for _, u := range uris {
			h.mu.Lock()
			hit := ""
			for _, e := range h.atts {
				for i := range e.parts {
					if e.parts[i].URI == u && e.parts[i].Kind != attach.KindError {
						e.parts[i].State, hit = state, e.uri
					}
				}
			}
			if hit != "" {
				ev := Event{Type: typ, URI: u}
				if typ == EventStale {
					ev.Reason = "a tool result carried a different copy"
				}
				h.emit(ev)
			}
			h.mu.Unlock()
		}
	}
	mark(rep.Superseded, StateSuperseded, EventSuperseded)
	mark(rep.Stale, StateStale, EventStale)
}
