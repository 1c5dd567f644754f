package host

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
)

// Workspace restore: a saved conversation names documents by URI, and a
// document may have changed, moved or gone by the time it reopens. The read
// is the only place that discovers it; the model cannot fix a URI it did
// not choose, so the host reports each document's outcome to the page, and
// for a gone one the closest listed documents, which [Host.Replace] swaps
// in.

// Restore outcomes, one per URI of a snapshot.
const (
	// OutcomeUnchanged: the read's digests equal the snapshot's; the parts
	// are fresh and no updated event fires.
	OutcomeUnchanged = "unchanged"
	// OutcomeChanged: the document was read and differs; updated fires
	// when the page held no copy of it.
	OutcomeChanged = "changed"
	// OutcomeGone: not found. The snapshot's copy, when it has one, is kept
	// with state gone (not for the model); suggestions name the closest
	// listed documents.
	OutcomeGone = "gone"
	// OutcomeFailed: the read failed (retryable errors retried with capped
	// backoff first). The snapshot's copy, when it has one, is kept stale
	// with the error as a warning; without one nothing is kept.
	OutcomeFailed = "failed"
	// OutcomeRefused: the server refused the read as invalid or
	// unsupported. Nothing is kept.
	OutcomeRefused = "refused"
)

// A RestoreResult is the outcome of one URI of a snapshot.
type RestoreResult struct {
	URI     string
	Outcome string
	// Parts is the copy in the context (nil when nothing is kept).
	Parts []attach.Attachment
	// Err is why the document is gone, failed or refused.
	Err error
	// Suggestions (gone only) are the closest listed documents not already
	// in the context, best first ([attach.Suggest]).
	Suggestions []attach.Suggestion
	// SuggestionsIncomplete says the listing did not complete in time (no
	// suggestions) or was truncated or failed (suggestions from what was
	// listed).
	SuggestionsIncomplete bool
}

// seed is what a restore gives an entry it created: the semaphore bounding
// its first read, and whether the snapshot holds a copy to keep if that
// read fails (then failed leaves the entry pending for restore to settle).
type seed struct {
	sem  chan struct{}
	copy bool
}

// restoring is one URI of a restore in flight.
type restoring struct {
	sa      *SnapshotAttachment
	e       *entry
	w       *waiter
	created bool // restore registered the entry
	done    bool
	err     error
	res     RestoreResult
}

// Restore re-attaches every document of snap, in parallel (at most a few
// reads at a time) after one subscription change for all of them, and
// returns one result per URI in snapshot order. Reads never come from a
// cache; a URI already attached is re-read, never duplicated; a snapshot
// taken under another protocol revision is fine. A snapshot of another
// server, of a newer version or malformed is refused with kind invalid
// naming the field, and nothing changes.
//
// ctx bounds the whole restore (DefaultRestoreTimeout when it has no
// deadline): a read still going when it passes is failed (timeout), and
// suggestions whose listing did not complete are empty with
// SuggestionsIncomplete. A cancelled ctx rejects with kind cancelled; the
// documents it had not settled are not attached. The restored event
// carries the results.
func (h *Host) Restore(ctx context.Context, snap *Snapshot) ([]RestoreResult, error) {
	if err := snap.validate(h.url); err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRestoreTimeout)
		defer cancel()
	}
	dl, _ := ctx.Deadline()
	sem := make(chan struct{}, restoreConcurrency)
	items := make([]*restoring, len(snap.Attachments))

	h.mu.Lock()
	if _, err := h.sessionLocked(); err != nil {
		h.mu.Unlock()
		return nil, err
	}
	var watch []string
	for i := range snap.Attachments {
		sa := &snap.Attachments[i]
		it := &restoring{sa: sa}
		h.ledger.RecordRead()
		e := h.atts[sa.URI]
		switch {
		case e == nil:
			e = h.newEntry(sa.URI)
			e.seed, e.why, e.deadline = &seed{sem: sem, copy: hasCopy(sa)}, "restore", dl
			it.w, it.created = e.join(), true
			watch = append(watch, sa.URI)
		case e.phase == phasePending:
			it.w = e.join()
		default:
			it.w = e.wait(h.need(e, "restore", time.Until(dl)))
		}
		it.e = e
		items[i] = it
	}
	if len(watch) > 0 {
		h.watchAdd(h.sess, watch...) // one subscription change for all of them
	}
	h.mu.Unlock()

	for _, it := range items {
		select {
		case it.err = <-it.w.ch:
			it.done = true
		case <-ctx.Done():
		}
	}
	h.mu.Lock()
	for _, it := range items {
		if !it.done {
			select {
			case it.err = <-it.w.ch:
				it.done = true
			default:
				it.e.unwait(it.w)
			}
		}
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) && ctx.Err() != nil {
		// Cancelled: what restore registered and did not settle never happened.
		for _, it := range items {
			if !it.created {
				continue
			}
			it.e.seed = nil
			if it.e.phase == phasePending && len(it.e.joins) == 0 && len(it.e.waiters) == 0 {
				h.remove(it.e, nil)
			}
		}
		h.mu.Unlock()
		return nil, &bridge.Error{Kind: bridge.KindCancelled, Method: "restore", Message: fmt.Sprintf("cancelled: %v", context.Cause(ctx)), Err: context.Cause(ctx)}
	}
	h.mu.Unlock()

	for _, it := range items {
		if !it.done {
			it.err = ctxError(ctx, it.sa.URI)
		}
		h.settleRestored(ctx, it)
	}
	h.suggest(ctx, items)

	out := make([]RestoreResult, len(items))
	for i, it := range items {
		out[i] = it.res
	}
	h.mu.Lock()
	h.emit(Event{Type: EventRestored, Restored: cloneResults(out)})
	h.mu.Unlock()
	return out, nil
}

// outcomeOf classifies a failed read of a restore.
func outcomeOf(err error) string {
	switch {
	case bridge.IsNotFound(err):
		return OutcomeGone
	}
	if be, ok := bridge.AsError(err); ok {
		switch be.Kind {
		case bridge.KindInvalid, bridge.KindUnsupported, bridge.KindRefused:
			return OutcomeRefused
		}
	}
	return OutcomeFailed
}

// settleRestored decides its outcome and what stays in the context.
func (h *Host) settleRestored(ctx context.Context, it *restoring) {
	uri := it.sa.URI
	it.res = RestoreResult{URI: uri}
	if it.err == nil {
		h.mu.Lock()
		e := it.e
		if e.seed != nil {
			e.seed = nil
		}
		parts := cloneAtts(e.parts)
		attached := e.phase == phaseAttached
		h.mu.Unlock()
		if !attached { // detached meanwhile
			it.res.Outcome, it.res.Err = OutcomeFailed, &bridge.Error{Kind: bridge.KindCancelled, Method: "resources/read", URI: uri, Message: "detached while restoring"}
			return
		}
		same, err := h.sameDigests(ctx, parts, it.sa.Parts)
		switch {
		case err != nil:
			// No digest, no comparison: the copy read is applied, so changed.
			it.res.Outcome = OutcomeChanged
		case same:
			it.res.Outcome = OutcomeUnchanged
		default:
			it.res.Outcome = OutcomeChanged
		}
		it.res.Parts = parts
		if it.res.Outcome == OutcomeChanged && it.created {
			h.mu.Lock()
			if e.phase == phaseAttached {
				h.emit(Event{Type: EventUpdated, URI: uri, Parts: cloneAtts(e.parts)})
			}
			h.mu.Unlock()
		}
		return
	}

	it.res.Outcome, it.res.Err = outcomeOf(it.err), it.err
	if !it.created {
		// The page already held it (or another attach registered it): the
		// engine kept, marked or removed its copy as for any read.
		h.mu.Lock()
		if it.e.phase == phaseAttached && h.atts[uri] == it.e {
			it.res.Parts = cloneAtts(it.e.parts)
		}
		h.mu.Unlock()
		return
	}
	var m made
	var contents []bridge.ResourceContents
	keep := it.e.seed != nil && it.e.seed.copy && it.res.Outcome != OutcomeRefused
	if keep {
		contents = seedContents(it.sa)
		m = h.makeAttachments(uri, contents, nil) // without h.mu: Markdown may block
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	e := it.e
	if h.atts[uri] != e || e.phase == phaseRemoved {
		return // detached meanwhile, or removed by the engine (no copy)
	}
	if e.phase == phaseAttached {
		// The read landed after the deadline: the copy read stands.
		e.seed = nil
		it.res.Parts = cloneAtts(e.parts)
		return
	}
	if !keep {
		h.remove(e, it.err)
		return
	}
	e.seed = nil
	atts := m.atts
	reason := "restore failed: " + it.err.Error()
	if it.res.Outcome == OutcomeGone {
		setState(atts, StateGone)
	} else {
		setState(atts, StateStale)
		atts = withWarning(atts, reason)
	}
	h.withhold(e, atts)
	ent, _ := h.ledger.Attach(h.url, uri, m.parts)
	e.phase, e.parts = phaseAttached, atts
	e.prints = printsOf(contents, atts, ent, uri)
	e.listed = h.isListed(uri)
	if it.res.Outcome == OutcomeGone {
		e.gone = true
		h.ledger.MarkGone(h.url, uri)
	} else {
		h.ledger.MarkStale(h.url, uri, reason)
	}
	for _, w := range e.joins {
		w.ch <- it.err // an Attach that joined meanwhile: the read failed
	}
	e.joins = nil
	it.res.Parts = cloneAtts(atts)
}

// seedContents turns a snapshot's copy back into read contents.
func seedContents(sa *SnapshotAttachment) []bridge.ResourceContents {
	out := make([]bridge.ResourceContents, 0, len(sa.Parts))
	for i := range sa.Parts {
		p := &sa.Parts[i]
		if p.Kind == attach.KindError {
			continue
		}
		out = append(out, bridge.ResourceContents{URI: p.URI, MIMEType: p.MIMEType, Text: p.Text, Blob: p.Blob, Meta: p.Meta})
	}
	return out
}

// sameDigests reports whether the parts read equal the snapshot's: same
// count and, part by part, uri, kind, declared type and digest.
func (h *Host) sameDigests(ctx context.Context, parts []attach.Attachment, old []SnapshotPart) (bool, error) {
	if len(parts) != len(old) {
		return false, nil
	}
	for i := range parts {
		a, o := &parts[i], &old[i]
		if a.URI != o.URI || a.Kind != o.Kind || a.DeclaredMIMEType != o.MIMEType {
			return false, nil
		}
	}
	for i := range parts {
		d, err := h.partDigest(ctx, &parts[i])
		if err != nil {
			return false, err
		}
		if d != old[i].Digest {
			return false, nil
		}
	}
	return true, nil
}

// suggest fills the suggestions of the gone results once the listing has
// completed (bounded by ctx).
func (h *Host) suggest(ctx context.Context, items []*restoring) {
	var gone []*restoring
	for _, it := range items {
		if it.res.Outcome == OutcomeGone {
			gone = append(gone, it)
		}
	}
	if len(gone) == 0 {
		return
	}
	if err := h.waitList(ctx); err != nil {
		for _, it := range gone {
			it.res.Suggestions, it.res.SuggestionsIncomplete = []attach.Suggestion{}, true
		}
		return
	}
	h.mu.Lock()
	attached := map[string]bool{}
	for _, u := range h.order {
		if e := h.atts[u]; e.phase == phaseAttached && !e.gone {
			attached[u] = true
		}
	}
	h.mu.Unlock()
	h.lst.mu.Lock()
	incomplete := h.lst.trunc || h.lst.err != nil
	cands := make([]attach.Resource, 0, len(h.lst.resources))
	for _, r := range h.lst.resources {
		if !attached[r.URI] {
			cands = append(cands, toAttachResource(r))
		}
	}
	h.lst.mu.Unlock()
	for _, it := range gone {
		old := attach.Resource{URI: it.sa.URI, Name: it.sa.Name, Title: it.sa.Title, MIMEType: it.sa.MIMEType}
		it.res.Suggestions = attach.Suggest(old, cands)
		if it.res.Suggestions == nil {
			it.res.Suggestions = []attach.Suggestion{}
		}
		it.res.SuggestionsIncomplete = incomplete
	}
}

func cloneResults(rs []RestoreResult) []RestoreResult {
	out := make([]RestoreResult, len(rs))
	copy(out, rs)
	for i := range out {
		if rs[i].Parts != nil {
			out[i].Parts = cloneAtts(rs[i].Parts)
		}
	}
	return out
}

// Replace swaps the attached document oldURI (typically gone, for one of
// its suggestions) for newURI, in the same position in the context, and
// returns newURI's parts. newURI is attached as by [Host.Attach]; if that
// fails, oldURI stays as it was. Unknown oldURI, or oldURI == newURI, is
// kind invalid.
func (h *Host) Replace(ctx context.Context, oldURI, newURI string) ([]attach.Attachment, error) {
	h.mu.Lock()
	e := h.atts[oldURI]
	switch {
	case e == nil || e.phase != phaseAttached:
		h.mu.Unlock()
		return nil, &bridge.Error{Kind: bridge.KindInvalid, URI: oldURI, Message: "replace " + strconv.Quote(oldURI) + ": not attached"}
	case oldURI == newURI || strings.TrimSpace(newURI) == "":
		h.mu.Unlock()
		return nil, &bridge.Error{Kind: bridge.KindInvalid, URI: newURI, Message: "replace " + strconv.Quote(oldURI) + ": the new URI " + strconv.Quote(newURI) + " is not another document"}
	}
	h.mu.Unlock()
	if _, err := h.Attach(ctx, newURI); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ne := h.atts[newURI]
	if ne == nil || ne.phase != phaseAttached {
		return nil, &bridge.Error{Kind: bridge.KindCancelled, URI: newURI, Message: "replace: " + strconv.Quote(newURI) + " was detached meanwhile"}
	}
	if old := h.atts[oldURI]; old != nil {
		h.order = without(h.order, newURI)
		at := indexOf(h.order, oldURI)
		h.order = append(h.order[:at], append([]string{newURI}, h.order[at:]...)...)
		h.remove(old, nil)
	}
	return cloneAtts(ne.parts), nil
}

func without(list []string, s string) []string {
	if i := indexOf(list, s); i >= 0 {
		return append(list[:i:i], list[i+1:]...)
	}
	return list
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
