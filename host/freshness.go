package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
)

// The freshness engine: one state machine per attached URI.
//
//	pending ──(watch answered, first read ok)──▶ attached ──(detach)──▶ removed
//	   │  └──(first read fails, detach, close)────────────────────────▶ removed
//
// An entry is read only by its worker, one read at a time, so reads start and
// land in order: every read takes the next ticket when it starts, and the
// applied copy is always that of the newest read that succeeded. A demand for
// a read (an update, refresh, a confirming read) sets want and returns the
// ticket of the first read that will start after it; the worker keeps going
// while demands keep coming, applying each read as it lands, so a sustained
// stream of updates shows progress and ends on the server's last version.
//
// While an entry awaits its watch verdict (at attach, after a reconnect or a
// lost listen) no read starts: a read that starts after the session has
// acknowledged the watch sees every change that will not be notified.

type phase uint8

const (
	phasePending phase = iota
	phaseAttached
	phaseRemoved
)

type entry struct {
	uri    string
	phase  phase
	ctx    context.Context // ends at removal or Close: cancels the read in flight
	cancel context.CancelFunc

	parts  []attach.Attachment
	prints []print // what "changed" compares, one per part
	warn   string  // why the URI is not watched, if it is not
	// withheld is the last withheld warning built (entry.withheldWarning).
	withheld struct{ reason, text string }
	// included: Include lifted the model policy (withhold) for as long as
	// the entry lives.
	included bool
	listed   bool // the URI was in the last complete listing
	gone     bool // the last read said not found (gone fires once per disappearance)

	verdict    bool // no read may start before the session answers the watch
	subscribed bool // the session acknowledged the watch (generation subGen)
	subGen     uint64

	// cachedUntil is when the applied read result's ttlMs (2026-07-28)
	// runs out: until then Refresh needs no re-read, unless an update came.
	cachedUntil time.Time

	want     bool      // a read is demanded after the current one
	why      string    // what demanded it, for stale reasons
	deadline time.Time // the latest deadline among the demands
	reading  bool      // the worker is running
	ticket   uint64    // last ticket issued
	done     uint64    // ticket of the last read that ended
	applied  uint64    // ticket of the copy in parts
	making   uint64    // ticket of the read whose attachments are being made (0: none)

	// seed is set while a restore owns the entry's first read (restore.go).
	seed *seed

	joins   []*waiter // Attach calls waiting for the pending phase to end
	waiters []*waiter // calls waiting for a read with ticket >= target
}

type waiter struct {
	target uint64
	ch     chan error // buffered: one outcome
}

// join waits for the pending phase to end. h.mu is held.
func (e *entry) join() *waiter {
	w := &waiter{ch: make(chan error, 1)}
	e.joins = append(e.joins, w)
	return w
}

// wait waits for the read with ticket target (or a later one) to end.
func (e *entry) wait(target uint64) *waiter {
	w := &waiter{target: target, ch: make(chan error, 1)}
	e.waiters = append(e.waiters, w)
	return w
}

func (e *entry) unwait(w *waiter) {
	e.joins = deleteWaiter(e.joins, w)
	e.waiters = deleteWaiter(e.waiters, w)
}

func deleteWaiter(ws []*waiter, w *waiter) []*waiter {
	for i, x := range ws {
		if x == w {
			return append(ws[:i:i], ws[i+1:]...)
		}
	}
	return ws
}

// releaseHeld lets go of the bytes of parts that stayed in the browser
// (internal/blob): the parts are leaving the context. A page that kept an
// attachment keeps its Uint8Array; Go no longer can hand it out.
func releaseHeld(parts []attach.Attachment) {
	for i := range parts {
		if parts[i].Held != nil {
			parts[i].Held.Release()
		}
	}
}

// releaseUnapplied releases the held bytes of atts that are not e's parts.
func releaseUnapplied(atts []attach.Attachment, e *entry) {
	for i := range atts {
		r := atts[i].Held
		if r == nil {
			continue
		}
		kept := false
		if e.phase != phaseRemoved {
			for j := range e.parts {
				if e.parts[j].Held == r {
					kept = true
					break
				}
			}
		}
		if !kept {
			r.Release()
		}
	}
}

// drop ends the entry: its read is cancelled and every waiter gets err.
func (e *entry) drop(err error) {
	e.phase = phaseRemoved
	releaseHeld(e.parts)
	if e.cancel != nil {
		e.cancel()
	}
	for _, w := range e.joins {
		w.ch <- err
	}
	for _, w := range e.waiters {
		w.ch <- err
	}
	e.joins, e.waiters = nil, nil
}

// settleWaiters answers the waiters a read with ticket t satisfies.
func (e *entry) settleWaiters(t uint64, err error) {
	kept := e.waiters[:0]
	for _, w := range e.waiters {
		if w.target <= t {
			w.ch <- err
		} else {
			kept = append(kept, w)
		}
	}
	e.waiters = kept
}

// A print is what decides whether a part changed: its uri, mimeType, _meta
// and payload (the ledger's digest), or the error it was replaced by.
type print struct {
	uri, mime, meta, hash, err string
	blob                       bool
}

func printsOf(contents []bridge.ResourceContents, atts []attach.Attachment, ent dedupe.Entry, docURI string) []print {
	hashes := make(map[string]string, len(ent.Parts))
	for _, p := range ent.Parts {
		hashes[p.URI] = p.Hash
	}
	out := make([]print, len(contents))
	for i, c := range contents {
		pu := c.URI
		if pu == "" {
			pu = docURI
		}
		p := print{uri: c.URI, mime: c.MIMEType, meta: string(bytes.TrimSpace(c.Meta)), hash: hashes[pu], blob: c.Blob != nil}
		if i < len(atts) && atts[i].Kind == attach.KindError && atts[i].Error != nil {
			p.err = atts[i].Error.Message
		}
		out[i] = p
	}
	return out
}

func samePrints(a, b []print) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// need demands a read of e that starts after this call and returns its
// ticket. The read is bounded by at least within from now. h.mu is held.
// A demanded read never comes from a cache.
func (h *Host) need(e *entry, why string, within time.Duration) uint64 {
	e.want = true
	e.cachedUntil = time.Time{}
	e.why = why
	if dl := time.Now().Add(within); dl.After(e.deadline) {
		e.deadline = dl
	}
	h.kick(e)
	return e.ticket + 1
}

// kick starts e's worker when a read is wanted and may start. h.mu is held.
func (h *Host) kick(e *entry) {
	if e.reading || e.verdict || !e.want || e.phase == phaseRemoved || h.closed {
		return
	}
	e.reading = h.goLocked(func() { h.worker(e) })
}

// worker reads e while reads are demanded, one at a time.
func (h *Host) worker(e *entry) {
	for {
		h.mu.Lock()
		if !e.want || e.verdict || e.phase == phaseRemoved || h.closed {
			e.reading = false
			h.mu.Unlock()
			return
		}
		e.want = false
		e.ticket++
		t, why, dl := e.ticket, e.why, e.deadline
		e.deadline = time.Time{}
		if dl.IsZero() {
			dl = time.Now().Add(h.callTimeout())
		}
		s := h.sess
		// A restore's reads are retried from the first, and bounded in
		// number by its semaphore.
		retry := e.phase == phaseAttached || e.seed != nil
		var sem chan struct{}
		if e.seed != nil {
			sem = e.seed.sem
		}
		h.mu.Unlock()

		ctx, cancel := context.WithDeadline(e.ctx, dl)
		var res *bridge.ReadResult
		var err error
		if sem == nil {
			res, err = h.readRetry(ctx, s, e.uri, retry)
		} else {
			select {
			case sem <- struct{}{}:
				res, err = h.readRetry(ctx, s, e.uri, retry)
				<-sem
			case <-ctx.Done():
				err = ctxError(ctx, e.uri)
			}
		}
		timedOut := ctx.Err() != nil
		cancel()

		// The attachments are made before h.mu is taken: rendering Markdown
		// may wait for the page's render Worker, and the page's synchronous
		// calls (mention, attachments) take h.mu on the same thread.
		var out made
		if res != nil {
			h.mu.Lock()
			e.making = t
			h.mu.Unlock()
			out = h.makeAttachments(e.uri, res.Contents, err)
		}

		h.mu.Lock()
		e.making = 0
		if res != nil {
			h.settle(e, t, s, why, timedOut, res.Contents, out, err)
			if e.applied == t && res.TTL > 0 && !e.want {
				e.cachedUntil = time.Now().Add(res.TTL)
			}
		} else {
			h.settle(e, t, s, why, timedOut, nil, made{}, err)
		}
		// Done unless another read is wanted, said under the lock settle
		// held when it woke the read's waiters: otherwise a waiter (Attach)
		// could take h.mu before this worker looped, still find it
		// reading, and demand a read (a Refresh right after an Attach read
		// again within the result's ttlMs, 1 in 300 under -race).
		if !e.want || e.verdict || e.phase == phaseRemoved || h.closed {
			e.reading = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
	}
}

// readRetry reads uri; with retry, retryable failures are retried with
// capped backoff while ctx allows.
func (h *Host) readRetry(ctx context.Context, s session, uri string, retry bool) (*bridge.ReadResult, error) {
	backoff := h.o.BackoffMin
	for attempt := 0; ; attempt++ {
		var res *bridge.ReadResult
		var err error
		if s == nil || s.Err() != nil {
			// Reconnecting: the next session may be there before ctx ends.
			h.mu.Lock()
			s = h.sess
			h.mu.Unlock()
		}
		if s == nil {
			err = errReconnecting
		} else {
			res, err = s.Read(ctx, uri)
		}
		var pe *bridge.PartsError
		if res != nil && (err == nil || errors.As(err, &pe)) {
			return res, err
		}
		if !retry || !bridge.IsRetryable(err) || ctx.Err() != nil || attempt >= retryAttempts {
			return nil, err
		}
		if !sleepCtx(ctx, backoff) {
			return nil, err
		}
		backoff = min(backoff*2, h.o.BackoffMax)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// made is a read's contents made into attachments, before they are applied.
type made struct {
	atts  []attach.Attachment
	parts []dedupe.Part
}

// makeAttachments makes the attachments of a read that returned contents
// (err nil or a *bridge.PartsError); other outcomes make none. h.mu must
// not be held: Markdown rendering may block (see [attach.MarkdownFunc]).
func (h *Host) makeAttachments(uri string, contents []bridge.ResourceContents, err error) made {
	var pe *bridge.PartsError
	if err != nil && !errors.As(err, &pe) {
		return made{}
	}
	atts, parts := h.toAttachments(uri, contents, pe)
	return made{atts, parts}
}

// settle applies the outcome of e's read with ticket t: out holds its
// attachments when it returned contents. h.mu is held.
func (h *Host) settle(e *entry, t uint64, s session, why string, timedOut bool, contents []bridge.ResourceContents, out made, err error) {
	// Bytes kept in the page for attachments that are not applied (the
	// entry was removed, a newer read won, the read failed) are let go of.
	defer releaseUnapplied(out.atts, e)
	e.done = t
	if e.phase == phaseRemoved {
		return
	}
	var pe *bridge.PartsError
	if err != nil && !errors.As(err, &pe) {
		h.failed(e, t, s, why, timedOut, err)
		return
	}
	if h.traceApplied != nil && len(contents) > 0 {
		h.traceApplied(e.uri, contents[0].Text, false)
	}
	atts, parts := out.atts, out.parts
	setState(atts, StateFresh)
	h.withhold(e, atts)
	if e.warn != "" {
		atts = withWarning(atts, e.warn)
	}
	var ent dedupe.Entry
	if e.phase == phasePending {
		ent, _ = h.ledger.Attach(h.url, e.uri, parts) // unmeasurable parts are already error attachments
		e.phase, e.parts, e.applied = phaseAttached, atts, t
		e.prints = printsOf(contents, atts, ent, e.uri)
		e.listed = h.isListed(e.uri)
		for _, w := range e.joins {
			w.ch <- nil
		}
		e.joins = nil
		e.settleWaiters(t, nil)
		return
	}
	ent, lerr := h.ledger.Refresh(h.url, e.uri, parts)
	if errors.Is(lerr, dedupe.ErrNotAttached) {
		ent, _ = h.ledger.Attach(h.url, e.uri, parts)
	}
	prints := printsOf(contents, atts, ent, e.uri)
	changed := !samePrints(e.prints, prints)
	wasFresh := !e.gone
	for i := range e.parts {
		if e.parts[i].Kind != attach.KindError && e.parts[i].State != StateFresh {
			wasFresh = false
		}
	}
	if e.gone {
		e.gone = false
		if e.listed {
			h.index.AddResources(h.descriptorOf(e.uri)...)
		}
	}
	if e.want {
		h.tr("read applied while another is demanded (sustained progress)")
	}
	releaseHeld(e.parts)
	e.parts, e.prints, e.applied = atts, prints, t
	switch {
	case changed:
		h.emit(Event{Type: EventUpdated, URI: e.uri, Parts: cloneAtts(atts)})
	case !wasFresh:
		h.emit(Event{Type: EventFresh, URI: e.uri})
	}
	e.settleWaiters(t, nil)
}

// descriptorOf returns the listed descriptor of uri, if any, for the index.
func (h *Host) descriptorOf(uri string) []attach.Resource {
	h.lst.mu.Lock()
	defer h.lst.mu.Unlock()
	for _, r := range h.lst.resources {
		if r.URI == uri {
			return []attach.Resource{toAttachResource(r)}
		}
	}
	return nil
}

// failed applies a failed read. h.mu is held.
func (h *Host) failed(e *entry, t uint64, s session, why string, timedOut bool, err error) {
	if e.phase == phasePending {
		if !bridge.IsNotFound(err) && !h.o.NoReconnect && (s == nil || s.Err() != nil) && !h.closed {
			// The connection went away under the first read: the
			// reconnect watches it on the next session (it may have
			// already) and the read follows the verdict.
			e.want = true
			if h.sess == s {
				e.verdict = true // not reconnected yet: resync re-watches
			}
			return
		}
		if e.seed != nil && e.seed.copy {
			// A restore with the snapshot's copy decides what stays: it
			// keeps the entry (gone or stale) or removes it (refused).
			for _, w := range e.joins {
				w.ch <- err
			}
			e.joins = nil
			e.settleWaiters(t, err)
			return
		}
		h.remove(e, err)
		return
	}
	if bridge.IsNotFound(err) {
		if !e.gone {
			e.gone = true
			setState(e.parts, StateGone)
			h.ledger.MarkGone(h.url, e.uri)
			h.index.RemoveResources(e.uri)
			h.emit(Event{Type: EventGone, URI: e.uri})
			if h.traceApplied != nil {
				h.traceApplied(e.uri, nil, true)
			}
		}
		e.settleWaiters(t, err)
		return
	}
	reason := fmt.Sprintf("%s failed: %v", why, err)
	if timedOut {
		reason = fmt.Sprintf("%s did not finish in time: %v", why, err)
	}
	h.markStale(e, reason)
	e.settleWaiters(t, err)
}

// markStale marks e's fresh parts stale; stale fires only on that change.
// h.mu is held.
func (h *Host) markStale(e *entry, reason string) {
	changed := false
	for i := range e.parts {
		if e.parts[i].Kind != attach.KindError && e.parts[i].State == StateFresh {
			e.parts[i].State, changed = StateStale, true
		}
	}
	if changed {
		h.ledger.MarkStale(h.url, e.uri, reason)
		h.emit(Event{Type: EventStale, URI: e.uri, Reason: reason})
	}
}

// findEntry returns the attachment an updated URI refers to: the URI itself,
// one of its part URIs, or a sub-resource of it. h.mu is held.
func (h *Host) findEntry(uri string) *entry {
	if e := h.atts[uri]; e != nil {
		return e
	}
	for _, e := range h.atts {
		for _, p := range e.parts {
			if p.URI == uri {
				return e
			}
		}
		if strings.HasPrefix(uri, strings.TrimSuffix(e.uri, "/")+"/") {
			return e
		}
	}
	return nil
}

// updated is notifications/resources/updated from session generation gen.
func (h *Host) updated(gen uint64, uri string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen {
		return // the next session re-reads everything once it watches it
	}
	if e := h.findEntry(uri); e != nil {
		if e.phase == phasePending {
			h.tr("update during first attach")
		} else if e.reading {
			h.tr("update during a read")
		}
		h.need(e, "update", h.callTimeout())
	}
}

// watchAdd asks s to watch uris, counting the answers owed. h.mu is held.
func (h *Host) watchAdd(s session, uris ...string) {
	for _, u := range uris {
		h.owed[u]++
	}
	s.Watch(uris, nil)
}

// verdict is the session's answer to a watch of uri: err nil for Acked.
// Additions are answered once each, in order: while later additions of uri
// are unanswered, this answer is about an older one (perhaps before a
// removal opened a gap) and lets no read start.
func (h *Host) verdict(gen uint64, uri string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen {
		return
	}
	if h.owed[uri] > 0 {
		h.owed[uri]--
		if h.owed[uri] > 0 {
			h.tr("stale watch answer ignored")
			return
		}
		delete(h.owed, uri)
	}
	e := h.atts[uri]
	if e == nil || e.phase == phaseRemoved {
		return
	}
	if err == nil {
		e.subscribed, e.subGen, e.warn = true, gen, ""
	} else {
		e.subscribed = false
		if be, ok := bridge.AsError(err); !ok || be.Kind != bridge.KindUnsupported {
			// The attachment stands; it just won't update by itself.
			e.warn = "not subscribed to updates: " + err.Error()
		}
	}
	if e.verdict {
		e.verdict = false
		h.kick(e)
	}
}

// lost is a session saying updates about uris stopped for a while: each gets
// one confirming read once it is acknowledged again.
func (h *Host) lost(gen uint64, uris []string, _ error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen {
		return
	}
	for _, u := range uris {
		if e := h.atts[u]; e != nil && e.phase != phaseRemoved {
			e.subscribed, e.verdict = false, true
			e.want, e.why = true, "confirming read after a lost subscription"
		}
	}
}

// Refresh re-reads every attachment in parallel before a turn, never
// regressing: a copy applied meanwhile stands, and an attachment is marked
// stale only when nothing newer was applied before the refresh deadline (or
// ctx) passed; its old copy is kept. It returns when every attachment is
// settled.
func (h *Host) Refresh(ctx context.Context) error {
	if _, err := h.session(); err != nil {
		h.markAllStale("refresh failed: " + err.Error())
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, h.o.RefreshDeadline)
	defer cancel()
	within := h.o.RefreshDeadline
	if dl, ok := ctx.Deadline(); ok {
		within = time.Until(dl)
	}
	h.mu.Lock()
	ws := make([]demand, 0, len(h.order))
	for _, u := range h.order {
		e := h.atts[u]
		if e.phase != phaseAttached {
			continue
		}
		a := e.applied
		if !e.reading && !e.want && e.cachedUntil.After(time.Now()) && allFresh(e) {
			continue // its read result is still within its ttlMs, and no update came
		}
		if e.reading {
			h.tr("refresh while a read is in flight")
		}
		ws = append(ws, demand{e, e.wait(h.need(e, "refresh", within)), a})
	}
	h.mu.Unlock()
	h.awaitOrStale(ctx, ws, "refresh did not finish in time")
	return nil
}

func allFresh(e *entry) bool {
	for i := range e.parts {
		if e.parts[i].Kind != attach.KindError && e.parts[i].State != StateFresh {
			return false
		}
	}
	return true
}

// A demand is a caller waiting for a read of e; applied0 is e's applied
// ticket when it began.
type demand struct {
	e        *entry
	w        *waiter
	applied0 uint64
}

// awaitOrStale waits for every demand until ctx ends (the reads run in
// parallel); an entry still waiting then, with no copy applied since its
// demand began, is marked stale with reason.
func (h *Host) awaitOrStale(ctx context.Context, ds []demand, reason string) {
	for _, d := range ds {
		select {
		case <-d.w.ch:
			continue
		case <-ctx.Done():
		}
		h.mu.Lock()
		select {
		case <-d.w.ch:
		default:
			d.e.unwait(d.w)
			if d.e.phase == phaseAttached && d.e.applied == d.applied0 {
				h.markStale(d.e, reason)
			} else if d.e.phase == phaseAttached {
				h.tr("deadline passed after a newer copy was applied (no stale)")
			}
		}
		h.mu.Unlock()
	}
}

func (h *Host) markAllStale(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, u := range h.order {
		if e := h.atts[u]; e.phase == phaseAttached {
			h.markStale(e, reason)
		}
	}
}
