package host

import (
	"context"
	"sync"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
)

// listing is the state of the background listing into the picker index.
// Its fields are guarded by mu; h.mu may be taken before mu, never after.
type listing struct {
	mu        sync.Mutex
	done      chan struct{} // closed when the current listing ends
	running   bool          // a re-listing loop is running
	queued    bool          // another re-listing was asked for meanwhile
	resources []bridge.Resource
	templates []bridge.ResourceTemplate
	err       error
	trunc     bool
	invalid   []string
}

func toAttachResource(r bridge.Resource) attach.Resource {
	out := attach.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size, Meta: r.Meta}
	for _, i := range r.Icons {
		out.Icons = append(out.Icons, attach.Icon(i))
	}
	if r.Annotations != nil {
		a := attach.Annotations(*r.Annotations)
		out.Annotations = &a
	}
	return out
}

func toAttachTemplate(t bridge.ResourceTemplate) attach.ResourceTemplate {
	out := attach.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType, Meta: t.Meta}
	for _, i := range t.Icons {
		out.Icons = append(out.Icons, attach.Icon(i))
	}
	if t.Annotations != nil {
		a := attach.Annotations(*t.Annotations)
		out.Annotations = &a
	}
	return out
}

// startListing lists resources and templates in the background, streaming
// pages into the index with listprogress events.
func (h *Host) startListing() {
	h.lst.mu.Lock()
	h.lst.running = true
	done := make(chan struct{})
	h.lst.done = done
	h.lst.mu.Unlock()
	if !h.goRun(func() { h.relistLoop(false, done) }) {
		h.lst.mu.Lock()
		h.lst.running = false
		close(done)
		h.lst.mu.Unlock()
	}
}

// relist follows list_changed and reconnects: re-list everything, then tell
// the page. Bursts coalesce: at most one re-listing runs and one is queued.
func (h *Host) relist() {
	h.lst.mu.Lock()
	if h.lst.running {
		h.tr("list_changed coalesced")
		h.lst.queued = true
		h.lst.mu.Unlock()
		return
	}
	h.lst.running = true
	done := make(chan struct{})
	h.lst.done = done
	h.lst.mu.Unlock()
	if !h.goRun(func() { h.relistLoop(true, done) }) {
		h.lst.mu.Lock()
		h.lst.running = false
		close(done)
		h.lst.mu.Unlock()
	}
}

func (h *Host) listChanged(gen uint64) {
	h.mu.Lock()
	current := gen == h.gen
	h.mu.Unlock()
	if current {
		h.relist()
	}
}

// relistLoop runs one listing, then the queued one if any. done is closed
// when no listing is running any more.
func (h *Host) relistLoop(replace bool, done chan struct{}) {
	for {
		h.listOnce(replace)
		if replace {
			h.emit(Event{Type: EventListChanged})
			h.afterRelist()
		}
		h.lst.mu.Lock()
		if h.lst.queued && h.ctx.Err() == nil {
			h.lst.queued = false
			h.lst.mu.Unlock()
			replace = true
			continue
		}
		h.lst.running = false
		h.lst.queued = false
		close(done)
		h.lst.mu.Unlock()
		return
	}
}

// afterRelist re-reads the attachments a complete listing contradicts.
//
// Many servers announce a deleted document only with list_changed, never
// with resources/updated; an attachment whose URI left a complete listing
// is therefore re-read at once, so it turns "gone" without waiting for the
// next refresh. A gone attachment is re-read only when its URI is listed
// again, never on every list_changed.
func (h *Host) afterRelist() {
	h.lst.mu.Lock()
	complete := !h.lst.trunc && h.lst.err == nil
	listed := make(map[string]bool, len(h.lst.resources))
	for _, r := range h.lst.resources {
		listed[r.URI] = true
	}
	h.lst.mu.Unlock()
	if !complete {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, u := range h.order {
		e := h.atts[u]
		if e.phase != phaseAttached {
			continue
		}
		switch {
		case e.gone && listed[u]:
			h.tr("gone document listed again")
			e.listed = true
			h.need(e, "re-read of a document listed again", h.callTimeout())
		case !e.gone && e.listed && !listed[u]:
			h.need(e, "re-read of a document no longer listed", h.callTimeout())
		case listed[u]:
			e.listed = true
		}
	}
}

func (h *Host) listOnce(replace bool) {
	s, err := h.session()
	if err != nil {
		h.setList(nil, nil, err, true, nil)
		return
	}
	ctx := h.ctx
	// Resources and templates are listed concurrently (two cursors,
	// independent): the listing takes the longer of the two, not both.
	var pm sync.Mutex // guards nres, ntpl, errs and the order of progress events
	var nres, ntpl int
	var errs []string
	progress := func(done, trunc bool) {
		h.emit(Event{Type: EventListProgress, Resources: nres, Templates: ntpl, Done: done, Truncated: trunc, Errors: append([]string(nil), errs...)})
	}
	var tpls []bridge.ResourceTemplate
	var tplErr error
	var tplTrunc bool
	tplDone := make(chan struct{})
	go func() {
		defer close(tplDone)
		if !s.Supports("resources/templates/list") {
			return
		}
		l, err := s.ListTemplates(ctx, func(page []bridge.ResourceTemplate, bad []error) {
			if !replace {
				ts := make([]attach.ResourceTemplate, len(page))
				for i, t := range page {
					ts[i] = toAttachTemplate(t)
				}
				h.index.AddTemplatesLater(ts...)
			}
			pm.Lock()
			defer pm.Unlock()
			ntpl += len(page)
			for _, b := range bad {
				errs = append(errs, b.Error())
			}
			progress(false, false)
		})
		if l != nil {
			tpls, tplTrunc = l.Items, l.Truncated
		}
		// -32601 on templates/list means the server has none.
		if e, ok := bridge.AsError(err); err != nil && (!ok || e.Kind != bridge.KindUnsupported) {
			tplErr = err
		}
	}()
	h.ledger.RecordList()
	var res []bridge.Resource
	var firstErr error
	trunc := false
	if s.Supports("resources/list") {
		l, err := s.ListResources(ctx, func(page []bridge.Resource, bad []error) {
			if !replace {
				rs := make([]attach.Resource, len(page))
				for i, r := range page {
					rs[i] = toAttachResource(r)
				}
				h.index.AddResourcesLater(rs...)
			}
			pm.Lock()
			defer pm.Unlock()
			nres += len(page)
			for _, b := range bad {
				errs = append(errs, b.Error())
			}
			progress(false, false)
		})
		if l != nil {
			res, trunc = l.Items, l.Truncated
		}
		if err != nil {
			firstErr, trunc = err, true
			pm.Lock()
			errs = append(errs, err.Error())
			pm.Unlock()
		}
	}
	<-tplDone
	if tplErr != nil {
		if firstErr == nil {
			firstErr = tplErr
		}
		trunc = trunc || tplTrunc
		errs = append(errs, tplErr.Error())
	}
	if replace {
		rs := make([]attach.Resource, len(res))
		for i, r := range res {
			rs[i] = toAttachResource(r)
		}
		ts := make([]attach.ResourceTemplate, len(tpls))
		for i, t := range tpls {
			ts[i] = toAttachTemplate(t)
		}
		if trunc {
			h.index.AddResources(rs...)
			h.index.AddTemplates(ts...)
		} else {
			h.index.SetResources(rs)
			h.index.SetTemplates(ts)
		}
	}
	h.setList(res, tpls, firstErr, trunc, errs)
	progress(true, trunc)
	if !replace {
		h.foldLater()
	}
}

// The picker index is folded foldDelay after the listing ends, in pieces of
// foldPiece descriptors foldPause apart.
const (
	foldDelay = 50 * time.Millisecond
	foldPiece = 500
	foldPause = time.Millisecond
)

// foldLater folds what the listing added to the picker index unfolded
// (AddResourcesLater) once the listing has been handed over, in pieces. In
// the page Go holds the thread while it runs: folded page by page inside
// the listing, the bench's 1,000 descriptors delayed resources() and the
// listing's end by their whole fold. The first piece waits foldDelay, not
// a millisecond: a timer that is due while resources() still writes its
// answer runs before that answer reaches the page. A query that comes
// first folds what still waits itself, so it answers the same.
func (h *Host) foldLater() {
	h.goRun(func() {
		pause := foldDelay
		for {
			select {
			case <-h.ctx.Done():
				return
			case <-time.After(pause):
			}
			if h.index.FoldPending(foldPiece) == 0 {
				return
			}
			pause = foldPause
		}
	})
}

func (h *Host) setList(res []bridge.Resource, tpls []bridge.ResourceTemplate, err error, trunc bool, errs []string) {
	h.lst.mu.Lock()
	defer h.lst.mu.Unlock()
	h.lst.resources, h.lst.templates, h.lst.err, h.lst.trunc, h.lst.invalid = res, tpls, err, trunc, errs
}

// isListed reports whether uri was in the last listing. Only documents that
// were listed can "vanish" from a later one; a URI typed by the user or
// expanded from a template never was.
func (h *Host) isListed(uri string) bool {
	h.lst.mu.Lock()
	defer h.lst.mu.Unlock()
	for _, r := range h.lst.resources {
		if r.URI == uri {
			return true
		}
	}
	return false
}

// waitList waits for the current listing to end.
func (h *Host) waitList(ctx context.Context) error {
	h.lst.mu.Lock()
	ch := h.lst.done
	h.lst.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return &bridge.Error{Kind: bridge.KindTimeout, Message: "listing did not finish in time", Err: ctx.Err()}
	}
}

// ListSummary reports the last listing's outcome.
type ListSummary struct {
	Truncated bool
	Errors    []string
}

// Resources returns every resource descriptor the listing gathered, waiting
// for it to finish. At the page cap it returns what was gathered with
// Truncated set; the error is returned only when nothing could be listed.
func (h *Host) Resources(ctx context.Context) ([]bridge.Resource, ListSummary, error) {
	if err := h.waitList(ctx); err != nil {
		return nil, ListSummary{}, err
	}
	h.lst.mu.Lock()
	defer h.lst.mu.Unlock()
	sum := ListSummary{Truncated: h.lst.trunc, Errors: h.lst.invalid}
	if h.lst.resources == nil && h.lst.err != nil {
		err := h.lst.err
		h.lst.mu.Unlock()
		err = h.afterClose(err)
		h.lst.mu.Lock()
		return nil, sum, err
	}
	return append([]bridge.Resource{}, h.lst.resources...), sum, nil
}

// Templates is [Host.Resources] for resource templates.
func (h *Host) Templates(ctx context.Context) ([]bridge.ResourceTemplate, ListSummary, error) {
	if err := h.waitList(ctx); err != nil {
		return nil, ListSummary{}, err
	}
	h.lst.mu.Lock()
	defer h.lst.mu.Unlock()
	return append([]bridge.ResourceTemplate{}, h.lst.templates...), ListSummary{Truncated: h.lst.trunc, Errors: h.lst.invalid}, nil
}
