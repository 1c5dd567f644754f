// Package host is the engine behind mcphost's JavaScript API: one connection
// to one MCP server, the picker index fed by background listing, the set of
// attachments kept fresh (subscriptions, coalesced re-reads, refresh before a
// turn, reconnection) and the dedupe filter for tool results. The wasm
// package only converts values to and from JavaScript; everything a user can
// observe is decided here and tested natively.
//
// # Freshness
//
//   - Each attached URI is subscribed when the server supports it; Detach
//     unsubscribes.
//   - notifications/resources/updated re-reads the attachment and emits
//     "updated" with the new parts. A read that was in flight when an update
//     arrived is discarded and re-issued, so a stale snapshot never wins the
//     race; a burst of updates for one URI costs one extra read, not one per
//     notification.
//   - Not found on a re-read marks the attachment "gone" (its last copy is
//     kept) and drops the descriptor from the picker.
//   - Refresh re-reads every attachment in parallel; reads not done by the
//     refresh deadline are cancelled on the wire and their attachments
//     marked "stale" with the old copy kept. Retryable failures are retried
//     with capped backoff first.
//   - list_changed re-lists resources and templates into the picker.
//   - A lost connection fails pending calls, emits "disconnected", reconnects
//     with capped exponential backoff, re-subscribes and re-reads the
//     attachments, then emits "reconnected". Nothing in the context is lost.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/dedupe"
)

// Defaults of [Options].
const (
	DefaultRefreshDeadline = 800 * time.Millisecond
	DefaultBackoffMin      = 100 * time.Millisecond
	DefaultBackoffMax      = 5 * time.Second
	retryAttempts          = 3
)

// Options configures [Connect]. A nil *Options means defaults.
type Options struct {
	// Timeout and ToolTimeout bound calls without their own deadline
	// (defaults 5 s and 60 s).
	Timeout, ToolTimeout time.Duration
	// RefreshDeadline bounds Refresh (default 800 ms).
	RefreshDeadline time.Duration
	// Attach configures attachments (accepted image types, remote images,
	// size limits).
	Attach attach.Options
	// ClientInfo is sent in initialize.
	ClientInfo bridge.Implementation
	// Token is sent as the subprotocol entry "mcp.token.<token>".
	Token string
	// ReadLimit is the largest message accepted (default 64 MiB).
	ReadLimit int64
	// PageCap bounds listing (default 1,000 pages).
	PageCap int
	// NoReconnect disables reconnection after a lost connection.
	NoReconnect bool
	// BackoffMin and BackoffMax bound the reconnection and retry delays
	// (defaults 100 ms and 5 s).
	BackoffMin, BackoffMax time.Duration
	// Dedupe configures the ledger.
	Dedupe dedupe.Options
	// OnEvent receives events, one at a time, in order.
	OnEvent func(Event)
}

// Event types, as the JavaScript API names them.
const (
	EventUpdated      = "updated"
	EventStale        = "stale"
	EventGone         = "gone"
	EventSuperseded   = "superseded"
	EventListChanged  = "listchanged"
	EventListProgress = "listprogress"
	EventDisconnected = "disconnected"
	EventReconnected  = "reconnected"
)

// An Event is one notification to the embedding page. Which fields are set
// depends on Type: updated {URI, Parts}, stale {URI, Reason}, gone {URI},
// superseded {URI}, listchanged {}, listprogress {Resources, Templates, Done,
// Truncated, Errors}, disconnected {Reason}, reconnected {}.
type Event struct {
	Type      string
	URI       string
	Parts     []attach.Attachment
	Reason    string
	Resources int
	Templates int
	Done      bool
	Truncated bool
	Errors    []string
}

// States of an attachment.
const (
	StateFresh      = "fresh"
	StateStale      = "stale"
	StateGone       = "gone"
	StateSuperseded = "superseded"
)

// ForModel reports whether a part belongs in the next model request: fresh
// and stale parts do (stale with a warning); gone, superseded and error parts
// do not.
func ForModel(a *attach.Attachment) bool {
	return a.Kind != attach.KindError && (a.State == StateFresh || a.State == StateStale)
}

// A Host is one connection to one MCP server with its own context. All
// methods are safe for concurrent use.
type Host struct {
	url string
	o   Options

	mu       sync.Mutex
	sess     *bridge.Session
	atts     map[string]*entry
	order    []string // attach order
	closed   bool
	closedCh chan struct{}

	index  *attach.Index
	ledger *dedupe.Ledger

	listMu    sync.Mutex
	listing   chan struct{} // closed when the current listing ends
	resources []bridge.Resource
	templates []bridge.ResourceTemplate
	listErr   error
	listTrunc bool
	listInval []string

	events *eventQueue
}

type entry struct {
	uri        string
	parts      []attach.Attachment
	updateSeq  uint64 // bumped by each updated notification
	appliedSeq uint64 // updateSeq when the current parts were read
	worker     bool   // an update re-read loop is running
	subscribed bool   // resources/subscribe succeeded on the current session
	listed     bool   // the URI was in the last complete listing when attached
}

// Connect dials url, initializes, and starts listing resources and templates
// into the picker index in the background.
func Connect(ctx context.Context, url string, opts *Options) (*Host, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.RefreshDeadline <= 0 {
		o.RefreshDeadline = DefaultRefreshDeadline
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = DefaultBackoffMin
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	h := &Host{
		url: url, o: o, atts: map[string]*entry{}, closedCh: make(chan struct{}),
		index: attach.NewIndex(), ledger: dedupe.New(o.Dedupe), events: newEventQueue(o.OnEvent),
	}
	s, err := h.dial(ctx)
	if err != nil {
		h.events.close()
		return nil, err
	}
	h.sess = s
	h.startListing()
	go h.watch(s)
	return h, nil
}

func (h *Host) dial(ctx context.Context) (*bridge.Session, error) {
	return bridge.Dial(ctx, h.url, &bridge.Options{
		ClientInfo: h.o.ClientInfo, Token: h.o.Token, ReadLimit: h.o.ReadLimit, PageCap: h.o.PageCap,
		Timeout: h.o.Timeout, ToolTimeout: h.o.ToolTimeout,
		OnResourceUpdated: h.onUpdated,
		OnListChanged: func(list string) {
			if list == "resources" {
				h.relist()
			}
		},
	})
}

// session returns the live session or an unavailable error.
func (h *Host) session() (*bridge.Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, &bridge.Error{Kind: bridge.KindUnavailable, Message: "host closed", Err: bridge.ErrClosed}
	}
	if h.sess == nil || h.sess.Err() != nil {
		return nil, &bridge.Error{Kind: bridge.KindUnavailable, Message: "not connected (reconnecting)", Err: bridge.ErrConnectionLost}
	}
	return h.sess, nil
}

// InitializeResult returns what the server said at the last initialize.
func (h *Host) InitializeResult() bridge.InitializeResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sess.InitializeResult()
}

// Server is the namespace of this host's documents in the ledger (its URL).
func (h *Host) Server() string { return h.url }

// Close ends the session and stops reconnecting. It is idempotent.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	close(h.closedCh)
	s := h.sess
	h.mu.Unlock()
	if s != nil {
		s.Close()
	}
	h.events.close()
	return nil
}

func (h *Host) emit(e Event) { h.events.push(e) }

// ---- listing ----

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

// startListing lists resources then templates in the background, streaming
// pages into the index with listprogress events.
func (h *Host) startListing() { h.list(false, nil) }

// relist follows list_changed: re-list everything, then tell the page.
//
// Many servers announce a deleted document only with list_changed, never
// with resources/updated; an attachment whose URI left a complete listing
// is therefore re-read at once, so it turns "gone" without waiting for the
// next refresh.
func (h *Host) relist() {
	h.list(true, func() {
		h.emit(Event{Type: EventListChanged})
		h.listMu.Lock()
		complete := !h.listTrunc && h.listErr == nil
		listed := make(map[string]bool, len(h.resources))
		for _, r := range h.resources {
			listed[r.URI] = true
		}
		h.listMu.Unlock()
		if !complete {
			return
		}
		h.mu.Lock()
		var vanished []string
		for _, u := range h.order {
			if !listed[u] && h.atts[u].listed {
				vanished = append(vanished, u)
			}
		}
		h.mu.Unlock()
		for _, u := range vanished {
			h.onUpdated(u)
		}
	})
}

func (h *Host) list(replace bool, after func()) {
	done := make(chan struct{})
	h.listMu.Lock()
	prev := h.listing
	h.listing = done
	h.listMu.Unlock()
	run := func() {
		defer close(done)
		if prev != nil {
			<-prev // one listing at a time, in order
		}
		s, err := h.session()
		if err != nil {
			h.setList(nil, nil, err, true, nil)
			return
		}
		ctx := context.Background()
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
					h.index.AddTemplates(ts...)
				}
				pm.Lock()
				defer pm.Unlock()
				ntpl += len(page)
				for _, b := range bad {
					errs = append(errs, b.Error())
				}
				progress(false, false)
			})
			tpls, tplTrunc = l.Items, l.Truncated
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
					h.index.AddResources(rs...)
				}
				pm.Lock()
				defer pm.Unlock()
				nres += len(page)
				for _, b := range bad {
					errs = append(errs, b.Error())
				}
				progress(false, false)
			})
			res, trunc = l.Items, l.Truncated
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
		if after != nil {
			after()
		}
	}
	go run()
}

func (h *Host) setList(res []bridge.Resource, tpls []bridge.ResourceTemplate, err error, trunc bool, errs []string) {
	h.listMu.Lock()
	defer h.listMu.Unlock()
	h.resources, h.templates, h.listErr, h.listTrunc, h.listInval = res, tpls, err, trunc, errs
}

// isListed reports whether uri was in the last listing. Only documents that
// were listed can "vanish" from a later one; a URI typed by the user or
// expanded from a template never was.
func (h *Host) isListed(uri string) bool {
	h.listMu.Lock()
	defer h.listMu.Unlock()
	for _, r := range h.resources {
		if r.URI == uri {
			return true
		}
	}
	return false
}

// waitList waits for the current listing to end.
func (h *Host) waitList(ctx context.Context) error {
	h.listMu.Lock()
	ch := h.listing
	h.listMu.Unlock()
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
	h.listMu.Lock()
	defer h.listMu.Unlock()
	sum := ListSummary{Truncated: h.listTrunc, Errors: h.listInval}
	if h.resources == nil && h.listErr != nil {
		return nil, sum, h.listErr
	}
	return append([]bridge.Resource{}, h.resources...), sum, nil
}

// Templates is [Host.Resources] for resource templates.
func (h *Host) Templates(ctx context.Context) ([]bridge.ResourceTemplate, ListSummary, error) {
	if err := h.waitList(ctx); err != nil {
		return nil, ListSummary{}, err
	}
	h.listMu.Lock()
	defer h.listMu.Unlock()
	return append([]bridge.ResourceTemplate{}, h.templates...), ListSummary{Truncated: h.listTrunc, Errors: h.listInval}, nil
}

// Tools lists the server's tools (every page).
func (h *Host) Tools(ctx context.Context) ([]bridge.Tool, error) {
	s, err := h.session()
	if err != nil {
		return nil, err
	}
	l, err := s.ListTools(ctx)
	if l == nil {
		return nil, err
	}
	return l.Items, err
}

// Mention queries the picker index (synchronous; never touches the network).
func (h *Host) Mention(q string, opts attach.QueryOptions) []attach.Match {
	return h.index.Query(q, opts)
}

// Index returns the picker index.
func (h *Host) Index() *attach.Index { return h.index }

// Complete asks the server for completion values of a template argument.
func (h *Host) Complete(ctx context.Context, uriTemplate, name, value string, args map[string]string) (*bridge.Completion, error) {
	s, err := h.session()
	if err != nil {
		return nil, err
	}
	return s.Complete(ctx, uriTemplate, name, value, args)
}

// ---- attachments ----

// read reads uri and turns its contents into attachments; malformed parts
// become error attachments in their place.
func (h *Host) read(ctx context.Context, s *bridge.Session, uri string) ([]attach.Attachment, []dedupe.Part, error) {
	contents, err := s.ReadResource(ctx, uri)
	var pe *bridge.PartsError
	if err != nil && !errors.As(err, &pe) {
		return nil, nil, err
	}
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
	return atts, parts, nil
}

func setState(atts []attach.Attachment, state string) {
	for i := range atts {
		if atts[i].Kind != attach.KindError {
			atts[i].State = state
		}
	}
}

// Attach reads uri and records every part in the context, replacing an
// earlier copy of the same URI (never a second copy). It subscribes to the
// URI when the server supports subscriptions.
func (h *Host) Attach(ctx context.Context, uri string) ([]attach.Attachment, error) {
	s, err := h.session()
	if err != nil {
		return nil, err
	}
	h.ledger.RecordRead()
	h.mu.Lock()
	e := h.atts[uri]
	var seq uint64
	if e != nil {
		seq = e.updateSeq
	}
	h.mu.Unlock()
	atts, parts, err := h.read(ctx, s, uri)
	if err != nil {
		return nil, err
	}
	setState(atts, StateFresh)
	h.ledger.Attach(h.url, uri, parts) // unmeasurable parts are already error attachments
	h.mu.Lock()
	if e = h.atts[uri]; e == nil {
		e = &entry{uri: uri}
		h.atts[uri] = e
		h.order = append(h.order, uri)
	} else if e.updateSeq != seq {
		// An update raced this read; the update worker re-reads.
		seq = e.appliedSeq
	}
	e.parts, e.appliedSeq = atts, seq
	e.listed = h.isListed(uri)
	out := cloneAtts(atts)
	subscribe := !e.subscribed && s.Supports("resources/subscribe")
	e.subscribed = e.subscribed || subscribe
	h.mu.Unlock()
	if subscribe {
		if err := s.Subscribe(ctx, uri); err != nil {
			// The attachment stands; it just won't update by itself.
			h.mu.Lock()
			e.subscribed = false
			h.mu.Unlock()
			out = withWarning(out, "not subscribed to updates: "+err.Error())
		}
	}
	return out, nil
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

// Detach removes uri from the context and unsubscribes. It reports whether
// uri was attached.
func (h *Host) Detach(uri string) bool {
	h.mu.Lock()
	_, ok := h.atts[uri]
	if ok {
		delete(h.atts, uri)
		for i, u := range h.order {
			if u == uri {
				h.order = append(h.order[:i:i], h.order[i+1:]...)
				break
			}
		}
	}
	s := h.sess
	h.mu.Unlock()
	if !ok {
		return false
	}
	h.ledger.Detach(h.url, uri)
	if s != nil && s.Supports("resources/unsubscribe") {
		go s.Unsubscribe(context.Background(), uri)
	}
	return true
}

// Attachments returns the context: every part of every attached document, in
// attach order, with its state. Stale parts carry a warning saying why.
func (h *Host) Attachments() []attach.Attachment {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []attach.Attachment
	for _, u := range h.order {
		out = append(out, cloneAtts(h.atts[u].parts)...)
	}
	return out
}

// Attached returns the parts of one attached URI (nil when not attached).
func (h *Host) Attached(uri string) []attach.Attachment {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.atts[uri]; e != nil {
		return cloneAtts(e.parts)
	}
	return nil
}

// ---- freshness ----

// findEntry returns the attachment an updated URI refers to: the URI itself,
// one of its part URIs, or a sub-resource of it.
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

func (h *Host) onUpdated(uri string) {
	h.mu.Lock()
	e := h.findEntry(uri)
	if e == nil {
		h.mu.Unlock()
		return // never subscribed, or detached since: ignore
	}
	e.updateSeq++
	if e.worker {
		h.mu.Unlock()
		return // coalesced into the running worker's next read
	}
	e.worker = true
	h.mu.Unlock()
	go h.updateWorker(e)
}

// updateWorker re-reads e until its parts reflect the latest update.
func (h *Host) updateWorker(e *entry) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), h.callTimeout())
		h.reread(ctx, e, "update")
		cancel()
		h.mu.Lock()
		if h.atts[e.uri] != e || e.appliedSeq == e.updateSeq || h.closed {
			e.worker = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
	}
}

func (h *Host) callTimeout() time.Duration {
	if h.o.Timeout > 0 {
		return h.o.Timeout
	}
	return bridge.DefaultTimeout
}

// reread reads an attached document again and applies the outcome. A read
// that raced an update notification is discarded and re-issued. Retryable
// failures are retried with capped backoff while ctx allows; then the
// attachment is marked stale, keeping its copy.
func (h *Host) reread(ctx context.Context, e *entry, why string) {
	backoff := h.o.BackoffMin
	for attempt := 0; ; attempt++ {
		h.mu.Lock()
		seq := e.updateSeq
		h.mu.Unlock()
		var atts []attach.Attachment
		var parts []dedupe.Part
		s, err := h.session()
		if err == nil {
			atts, parts, err = h.read(ctx, s, e.uri)
		}
		h.mu.Lock()
		if h.atts[e.uri] != e {
			h.mu.Unlock()
			return // detached meanwhile
		}
		if e.updateSeq != seq && ctx.Err() == nil {
			h.mu.Unlock()
			continue // an update arrived while reading: this snapshot may be stale
		}
		switch {
		case err == nil:
			setState(atts, StateFresh)
			e.parts, e.appliedSeq = atts, seq
			out := cloneAtts(atts)
			h.mu.Unlock()
			if _, lerr := h.ledger.Refresh(h.url, e.uri, parts); errors.Is(lerr, dedupe.ErrNotAttached) {
				h.ledger.Attach(h.url, e.uri, parts)
			}
			h.emit(Event{Type: EventUpdated, URI: e.uri, Parts: out})
			return
		case bridge.IsNotFound(err):
			setState(e.parts, StateGone)
			e.appliedSeq = seq
			h.mu.Unlock()
			h.ledger.MarkGone(h.url, e.uri)
			h.index.RemoveResources(e.uri)
			h.emit(Event{Type: EventGone, URI: e.uri})
			return
		case bridge.IsRetryable(err) && ctx.Err() == nil && attempt < retryAttempts:
			h.mu.Unlock()
			if !sleepCtx(ctx, backoff) {
				continue // ctx ended: the next attempt fails fast and marks stale
			}
			backoff = min(backoff*2, h.o.BackoffMax)
			continue
		default:
			reason := fmt.Sprintf("%s failed: %v", why, err)
			if ctx.Err() != nil {
				reason = fmt.Sprintf("%s did not finish in time: %v", why, err)
			}
			e.appliedSeq = seq
			for i := range e.parts {
				if e.parts[i].State == StateFresh {
					e.parts[i].State = StateStale
				}
			}
			h.mu.Unlock()
			h.ledger.MarkStale(h.url, e.uri, reason)
			h.emit(Event{Type: EventStale, URI: e.uri, Reason: reason})
			return
		}
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

// Refresh re-reads every attachment in parallel before a turn. Reads not done
// by the refresh deadline (or ctx) are cancelled and their attachments marked
// stale, keeping the old copy. It returns when every attachment is settled.
func (h *Host) Refresh(ctx context.Context) error {
	if _, err := h.session(); err != nil {
		h.markAllStale("refresh failed: " + err.Error())
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, h.o.RefreshDeadline)
	defer cancel()
	h.mu.Lock()
	es := make([]*entry, 0, len(h.order))
	for _, u := range h.order {
		es = append(es, h.atts[u])
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range es {
		wg.Add(1)
		go func() { defer wg.Done(); h.reread(ctx, e, "refresh") }()
	}
	wg.Wait()
	return nil
}

func (h *Host) markAllStale(reason string) {
	h.mu.Lock()
	var uris []string
	for _, u := range h.order {
		e := h.atts[u]
		changed := false
		for i := range e.parts {
			if e.parts[i].State == StateFresh {
				e.parts[i].State, changed = StateStale, true
			}
		}
		if changed {
			uris = append(uris, u)
		}
	}
	h.mu.Unlock()
	for _, u := range uris {
		h.ledger.MarkStale(h.url, u, reason)
		h.emit(Event{Type: EventStale, URI: u, Reason: reason})
	}
}

// ---- reconnection ----

func (h *Host) watch(s *bridge.Session) {
	<-s.Done()
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return
	}
	reason := "connection lost"
	if err := s.Err(); err != nil {
		reason = err.Error()
	}
	h.emit(Event{Type: EventDisconnected, Reason: reason})
	if h.o.NoReconnect {
		return
	}
	backoff := h.o.BackoffMin
	for {
		select {
		case <-h.closedCh:
			return
		case <-time.After(backoff):
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.callTimeout())
		ns, err := h.dial(ctx)
		cancel()
		if err != nil {
			backoff = min(backoff*2, h.o.BackoffMax)
			continue
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			ns.Close()
			return
		}
		h.sess = ns
		es := make([]*entry, 0, len(h.order))
		for _, u := range h.order {
			es = append(es, h.atts[u])
		}
		h.mu.Unlock()
		go h.watch(ns)
		h.resync(ns, es)
		h.emit(Event{Type: EventReconnected})
		return
	}
}

// resync re-subscribes and re-reads attachments after a reconnect, and
// re-lists into the picker.
func (h *Host) resync(s *bridge.Session, es []*entry) {
	ctx, cancel := context.WithTimeout(context.Background(), h.callTimeout())
	defer cancel()
	var wg sync.WaitGroup
	for _, e := range es {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.Supports("resources/subscribe") {
				err := s.Subscribe(ctx, e.uri)
				h.mu.Lock()
				e.subscribed = err == nil
				h.mu.Unlock()
			}
			h.reread(ctx, e, "re-read after reconnect")
		}()
	}
	wg.Wait()
	h.list(true, nil)
}

// ---- tools and dedupe ----

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
func (h *Host) CallTool(ctx context.Context, name string, args any) (*ToolResult, error) {
	s, err := h.session()
	if err != nil {
		return nil, err
	}
	raw, err := s.CallTool(ctx, name, args)
	if err != nil {
		return nil, err
	}
	return h.FilterToolResult(raw)
}

// FilterToolResult applies the dedupe filter to a tools/call result obtained
// elsewhere. A result that is not an object with a content array is returned
// unchanged with the error.
func (h *Host) FilterToolResult(raw json.RawMessage) (*ToolResult, error) {
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
			h.mu.Unlock()
			if hit != "" {
				ev := Event{Type: typ, URI: u}
				if typ == EventStale {
					ev.Reason = "a tool result carried a different copy"
				}
				h.emit(ev)
			}
		}
	}
	mark(rep.Superseded, StateSuperseded, EventSuperseded)
	mark(rep.Stale, StateStale, EventStale)
}

// Figures returns this session's dedupe figures.
func (h *Host) Figures() dedupe.Figures { return h.ledger.Figures() }

// AttachedURIs returns the attached document URIs in attach order.
func (h *Host) AttachedURIs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]string{}, h.order...)
	return out
}

// ---- events ----

type eventQueue struct {
	q  *fifo
	fn func(Event)
}

func newEventQueue(fn func(Event)) *eventQueue {
	e := &eventQueue{q: newFifo(), fn: fn}
	go e.q.run()
	return e
}

func (e *eventQueue) push(ev Event) {
	if e.fn != nil {
		e.q.push(func() { e.fn(ev) })
	}
}

func (e *eventQueue) close() { e.q.close() }

type fifo struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []func()
	closed bool
}

func newFifo() *fifo {
	f := &fifo{}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *fifo) push(fn func()) {
	f.mu.Lock()
	if !f.closed {
		f.items = append(f.items, fn)
		f.cond.Signal()
	}
	f.mu.Unlock()
}

func (f *fifo) close() {
	f.mu.Lock()
	f.closed = true
	f.cond.Signal()
	f.mu.Unlock()
}

func (f *fifo) run() {
	for {
		f.mu.Lock()
		for len(f.items) == 0 && !f.closed {
			f.cond.Wait()
		}
		if len(f.items) == 0 {
			f.mu.Unlock()
			return
		}
		fn := f.items[0]
		f.items[0] = nil
		f.items = f.items[1:]
		f.mu.Unlock()
		fn()
	}
}
