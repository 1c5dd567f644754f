package host

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
)

// Attach reads uri and records every part in the context, replacing an
// earlier copy of the same URI (never a second copy).
//
// The URI is registered before any I/O, so an update arriving at any moment
// is counted; it is watched (subscribed) before it is read, so no change made
// after the returned snapshot goes unnoticed. A second Attach of a URI still
// being attached joins the first. Attaching a URI already attached re-reads
// it (never from a cache) and returns the current copy.
func (h *Host) Attach(ctx context.Context, uri string) ([]attach.Attachment, error) {
	if err := checkURI(uri); err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.callTimeout())
		defer cancel()
	}
	h.ledger.RecordRead()
	h.mu.Lock()
	if _, err := h.sessionLocked(); err != nil {
		// Disconnected (or closed): fail at once, retryable, as every call
		// made while reconnecting does. An attach already in flight when
		// the connection drops goes on on the next session instead.
		h.mu.Unlock()
		return nil, err
	}
	e := h.atts[uri]
	var w *waiter
	switch {
	case e == nil:
		e = h.newEntry(uri)
		w = e.join()
		h.watchAdd(h.sess, uri)
	case e.phase == phasePending:
		h.tr("concurrent attach joins a pending one")
		w = e.join()
	default:
		if e.reading {
			h.tr("re-attach while a read is in flight")
		}
		w = e.wait(h.need(e, "re-attach", h.callTimeout()))
	}
	h.mu.Unlock()

	select {
	case err := <-w.ch:
		return h.attached(e, err)
	case <-ctx.Done():
		h.mu.Lock()
		select {
		case err := <-w.ch: // settled as the deadline passed
			h.mu.Unlock()
			return h.attached(e, err)
		default:
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && e.making != 0 && e.making >= w.target {
			// The server answered in time and the parts are being made
			// (Markdown rendering, bounded by its own budget): the deadline
			// is the server's, so the copy is waited for, never lost.
			h.mu.Unlock()
			return h.attached(e, <-w.ch)
		}
		e.unwait(w)
		if e.phase == phasePending && len(e.joins) == 0 {
			// Nobody waits for this attach any more: it never happened.
			h.remove(e, nil)
		}
		h.mu.Unlock()
		return nil, ctxError(ctx, uri)
	}
}

// MaxURIBytes bounds the URI of an attach (and of a snapshot's
// attachment): a longer one is refused with kind limit before anything is
// sent. Why: the subscription and the read carry the URI whole, and a frame
// over the server's read limit (the documents server accepts 4 MiB) makes it
// close the connection with 1009; the attach, still pending, would then be
// sent again on every reconnect until its deadline, each time failing every
// other call in flight. 8 KiB is what common HTTP servers accept in a
// request line; no resource URI comes near it.
const MaxURIBytes = 8 << 10

// checkURI refuses an empty or overlong URI, naming what is wrong. An empty
// URI is not a document (it is the list subscription's key on the wire).
func checkURI(uri string) error {
	switch {
	case uri == "":
		return &bridge.Error{Kind: bridge.KindInvalid, Method: "resources/read", Message: "the uri is empty",
			Data: []byte(`{"field":"uri"}`)}
	case len(uri) > MaxURIBytes:
		return &bridge.Error{Kind: bridge.KindLimit, Method: "resources/read", URI: uri,
			Message: fmt.Sprintf("the uri is %d bytes, over the %d this client sends", len(uri), MaxURIBytes),
			Data:    []byte(`{"field":"uri","limit":` + strconv.Itoa(MaxURIBytes) + `}`)}
	}
	return nil
}

// attached is the outcome of an Attach whose waiter got err.
func (h *Host) attached(e *entry, err error) ([]attach.Attachment, error) {
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return cloneAtts(e.parts), nil
}

// ctxError turns a finished call context into kind timeout or cancelled.
func ctxError(ctx context.Context, uri string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &bridge.Error{Kind: bridge.KindTimeout, Method: "resources/read", URI: uri, Message: "no response before the deadline", Err: bridge.ErrTimeout}
	}
	return &bridge.Error{Kind: bridge.KindCancelled, Method: "resources/read", URI: uri, Message: fmt.Sprintf("cancelled: %v", context.Cause(ctx)), Err: context.Cause(ctx)}
}

// newEntry registers a pending entry for uri; it is read once the session
// has answered its watch (Acked or Refused). h.mu is held.
func (h *Host) newEntry(uri string) *entry {
	e := &entry{uri: uri, phase: phasePending, verdict: true, want: true, why: "attach"}
	e.ctx, e.cancel = context.WithCancel(h.ctx)
	h.atts[uri] = e
	h.order = append(h.order, uri)
	return e
}

// remove takes e out of the context; its waiters get err (nil: cancelled by
// detach). h.mu is held.
func (h *Host) remove(e *entry, err error) {
	if e.phase == phaseRemoved {
		return
	}
	if h.atts[e.uri] == e {
		delete(h.atts, e.uri)
		for i, u := range h.order {
			if u == e.uri {
				h.order = append(h.order[:i:i], h.order[i+1:]...)
				break
			}
		}
	}
	if err == nil {
		err = &bridge.Error{Kind: bridge.KindCancelled, Method: "resources/read", URI: e.uri, Message: "detached while attaching"}
	}
	wasAttached := e.phase == phaseAttached
	e.drop(err)
	if wasAttached {
		h.ledger.Detach(h.url, e.uri)
	}
	if h.sess != nil && h.sess.Err() == nil {
		h.sess.Watch(nil, []string{e.uri})
	}
}

// Detach removes uri from the context and stops watching it. It reports
// whether uri was attached or being attached (a pending Attach then rejects
// with kind cancelled).
func (h *Host) Detach(uri string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.atts[uri]
	if e == nil {
		return false
	}
	h.remove(e, nil)
	return true
}

// Attachments returns the context: every part of every attached document, in
// attach order, with its state. Stale parts carry a warning saying why.
// Documents still being attached are not in it.
func (h *Host) Attachments() []attach.Attachment {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []attach.Attachment
	for _, u := range h.order {
		if e := h.atts[u]; e.phase == phaseAttached {
			out = append(out, cloneAtts(e.parts)...)
		}
	}
	return out
}

// Attached returns the parts of one attached URI (nil when not attached).
func (h *Host) Attached(uri string) []attach.Attachment {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.atts[uri]; e != nil && e.phase == phaseAttached {
		return cloneAtts(e.parts)
	}
	return nil
}

// AttachedURIs returns the attached document URIs in attach order.
func (h *Host) AttachedURIs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.order))
	for _, u := range h.order {
		if h.atts[u].phase == phaseAttached {
			out = append(out, u)
		}
	}
	return out
}

// toAttachments turns read contents into attachments (malformed parts become
// error attachments in their place) and the parts the ledger measures.
func (h *Host) toAttachments(uri string, contents []bridge.ResourceContents, pe *bridge.PartsError) ([]attach.Attachment, []dedupe.Part) {
	cs := make([]attach.Contents, len(contents))
	parts := make([]dedupe.Part, 0, len(contents))
	for i, c := range contents {
		cs[i] = attach.Contents(c)
	}
	atts := attach.FromContents(cs, &h.o.Attach)
	for i := range atts {
		if pe != nil && pe.Parts[i] != nil {
			atts[i] = attach.Attachment{URI: contents[i].URI, Part: i, Kind: attach.KindError, Warnings: []string{},
				Error: &attach.Error{Code: attach.CodeMalformedPart, Kind: "protocol", Message: fmt.Sprintf("resources/read %q: %v", uri, pe.Parts[i]), URI: contents[i].URI, Index: i, Offset: -1}}
		}
		if atts[i].Kind != attach.KindError {
			parts = append(parts, dedupe.Part(contents[i]))
		}
	}
	return atts, parts
}

func setState(atts []attach.Attachment, state string) {
	for i := range atts {
		if atts[i].Kind != attach.KindError {
			atts[i].State = state
		}
	}
}

func withWarning(atts []attach.Attachment, w string) []attach.Attachment {
	for i := range atts {
		atts[i].Warnings = append(atts[i].Warnings, w)
	}
	return atts
}

func cloneAtts(in []attach.Attachment) []attach.Attachment {
	out := make([]attach.Attachment, len(in))
	copy(out, in)
	for i := range out {
		out[i].Warnings = append([]string{}, in[i].Warnings...)
	}
	return out
}
