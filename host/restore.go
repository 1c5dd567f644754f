package host

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
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

// Snapshot constants.
const (
	// SnapshotVersion is the version of the snapshot format this host
	// writes and the newest it reads.
	SnapshotVersion = 1
	// DigestAlg names the part digests of a snapshot: SHA-256 of the
	// payload (the text's UTF-8 bytes, a blob's decoded bytes), lowercase
	// hex. Stable across processes and pages, unlike the ledger's.
	DigestAlg = "sha-256"
	// DefaultRestoreTimeout bounds a Restore whose context has no deadline.
	DefaultRestoreTimeout = 30 * time.Second

	maxSnapshotAttachments = 1000
	maxSnapshotParts       = 10000
	maxSnapshotURI         = 8 << 10
	restoreConcurrency     = 6
)

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

// A DigestFunc returns the lowercase hex SHA-256 of data. Natively the
// default is crypto/sha256; the wasm module passes one backed by the
// page's WebCrypto, so crypto/sha256 is not linked into it.
type DigestFunc func(ctx context.Context, data []byte) (string, error)

// A Snapshot is what a host needs to reopen a conversation's documents: a
// plain JSON value (see web/mcphost.d.ts for the JavaScript shape).
type Snapshot struct {
	Version         int                  `json:"version"`
	Server          string               `json:"server"`
	ProtocolVersion string               `json:"protocolVersion"`
	TakenAt         string               `json:"takenAt"`
	DigestAlg       string               `json:"digestAlg"`
	Attachments     []SnapshotAttachment `json:"attachments"`
}

// A SnapshotAttachment is one attached document: its descriptor fields (as
// listed, when it was), its state and its parts.
type SnapshotAttachment struct {
	URI      string         `json:"uri"`
	Name     string         `json:"name,omitempty"`
	Title    string         `json:"title,omitempty"`
	MIMEType string         `json:"mimeType,omitempty"`
	State    string         `json:"state"`
	Parts    []SnapshotPart `json:"parts"`
}

// A SnapshotPart is one part: its digest and, with content, its payload
// (Text, or Blob as standard base64) and _meta.
type SnapshotPart struct {
	URI      string          `json:"uri"`
	Kind     string          `json:"kind"`               // attach.KindText, KindBinary or KindError
	MIMEType string          `json:"mimeType,omitempty"` // as declared by the server
	Digest   string          `json:"digest,omitempty"`   // "" for error parts
	Text     *string         `json:"text,omitempty"`
	Blob     *string         `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// SnapshotOptions configures [Host.Snapshot]. A nil pointer means defaults.
type SnapshotOptions struct {
	// IncludeContent puts each part's payload in the snapshot, so a
	// document that is gone or unreachable at restore keeps its copy.
	IncludeContent bool
}

// A RestoreResult is the outcome of one URI of a snapshot.
type RestoreResult struct {
	URI     string
	Outcome string
	// Parts is the copy in the context (nil when nothing is kept).
	Parts []attach.Attachment
	// Err is why the document is gone, failed or refused.
	Err error
	// Suggestions (gone only) are the closest listed documents, best first.
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

// invalidSnapshot is the error naming a snapshot's bad field (data.field).
// Messages are concatenated, not formatted: this code is in the wasm module.
func invalidSnapshot(field, msg string) error {
	return &bridge.Error{Kind: bridge.KindInvalid, Message: field + ": " + msg, Data: []byte(`{"field":` + strconv.Quote(field) + `}`)}
}

// ParseSnapshot decodes and checks a snapshot. A malformed one is an error
// of kind invalid naming the field (data.field: "snapshot.attachments[2].uri").
func ParseSnapshot(b []byte) (*Snapshot, error) {
	var w struct {
		Snapshot
		Version     *int                  `json:"version"`
		Attachments *[]SnapshotAttachment `json:"attachments"`
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, invalidSnapshot("snapshot", "not a JSON object")
	}
	if err := json.Unmarshal(b, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, invalidSnapshot("snapshot."+te.Field, te.Value+" where "+te.Type.String()+" is expected")
		}
		return nil, invalidSnapshot("snapshot", err.Error())
	}
	s := w.Snapshot
	if w.Version == nil {
		return nil, invalidSnapshot("snapshot.version", "missing")
	}
	if w.Attachments == nil {
		return nil, invalidSnapshot("snapshot.attachments", "missing")
	}
	s.Version, s.Attachments = *w.Version, *w.Attachments
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// check validates everything but the server.
func (s *Snapshot) check() error {
	switch {
	case s.Version > SnapshotVersion:
		return invalidSnapshot("snapshot.version", strconv.Itoa(s.Version)+" is newer than this host reads (1)")
	case s.Version < 1:
		return invalidSnapshot("snapshot.version", strconv.Itoa(s.Version)+" is not a snapshot version")
	case s.DigestAlg != DigestAlg:
		return invalidSnapshot("snapshot.digestAlg", strconv.Quote(s.DigestAlg)+`, want "sha-256"`)
	case len(s.Attachments) > maxSnapshotAttachments:
		return invalidSnapshot("snapshot.attachments", "more than 1000 attachments")
	}
	seen := make(map[string]bool, len(s.Attachments))
	parts := 0
	for i := range s.Attachments {
		a := &s.Attachments[i]
		f := "snapshot.attachments[" + strconv.Itoa(i) + "]"
		switch {
		case a.URI == "":
			return invalidSnapshot(f+".uri", "missing")
		case len(a.URI) > maxSnapshotURI:
			return invalidSnapshot(f+".uri", "longer than 8 KiB")
		case seen[a.URI]:
			return invalidSnapshot(f+".uri", strconv.Quote(a.URI)+" appears twice")
		}
		seen[a.URI] = true
		switch a.State {
		case StateFresh, StateStale, StateGone, StateSuperseded:
		default:
			return invalidSnapshot(f+".state", strconv.Quote(a.State)+" is not fresh, stale, gone or superseded")
		}
		if parts += len(a.Parts); parts > maxSnapshotParts {
			return invalidSnapshot(f+".parts", "more than 10000 parts in the snapshot")
		}
		withContent := 0
		for j := range a.Parts {
			p := &a.Parts[j]
			pf := f + ".parts[" + strconv.Itoa(j) + "]"
			switch p.Kind {
			case attach.KindText, attach.KindBinary:
				if !isHexDigest(p.Digest) {
					return invalidSnapshot(pf+".digest", "not a lowercase hex SHA-256")
				}
			case attach.KindError:
			default:
				return invalidSnapshot(pf+".kind", strconv.Quote(p.Kind)+" is not text, binary or error")
			}
			switch {
			case p.Text != nil && p.Kind != attach.KindText:
				return invalidSnapshot(pf+".text", "present in a "+p.Kind+" part")
			case p.Blob != nil && p.Kind != attach.KindBinary:
				return invalidSnapshot(pf+".blob", "present in a "+p.Kind+" part")
			case p.Blob != nil:
				if _, err := base64.StdEncoding.Strict().DecodeString(*p.Blob); err != nil {
					return invalidSnapshot(pf+".blob", "not standard base64: "+err.Error())
				}
			}
			if len(p.Meta) > 0 && !json.Valid(p.Meta) {
				return invalidSnapshot(pf+"._meta", "not JSON")
			}
			if p.Text != nil || p.Blob != nil {
				withContent++
			}
		}
		if n := payloadParts(a); withContent != 0 && withContent != n {
			return invalidSnapshot(f+".parts", "some parts carry content and others not: all or none must")
		}
	}
	return nil
}

// validate checks s for a restore on server.
func (s *Snapshot) validate(server string) error {
	if s == nil {
		return invalidSnapshot("snapshot", "missing")
	}
	if s.Server != server {
		return invalidSnapshot("snapshot.server", "taken on "+strconv.Quote(s.Server)+", this host is connected to "+strconv.Quote(server))
	}
	return s.check()
}

func payloadParts(a *SnapshotAttachment) int {
	n := 0
	for i := range a.Parts {
		if a.Parts[i].Kind != attach.KindError {
			n++
		}
	}
	return n
}

// hasCopy reports whether a carries the content of its parts.
func hasCopy(a *SnapshotAttachment) bool {
	for i := range a.Parts {
		if a.Parts[i].Text != nil || a.Parts[i].Blob != nil {
			return true
		}
	}
	return false
}

func isHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// digest is the Options.Digest of the host, or the platform default.
func (h *Host) digest(ctx context.Context, data []byte) (string, error) {
	d := h.o.Digest
	if d == nil {
		d = defaultDigest
	}
	if d == nil {
		return "", &bridge.Error{Kind: bridge.KindUnsupported, Message: "no digest function (Options.Digest) on this platform"}
	}
	return d(ctx, data)
}

// partDigest returns the digest of an attachment's payload ("" for error
// parts).
func (h *Host) partDigest(ctx context.Context, a *attach.Attachment) (string, error) {
	switch a.Kind {
	case attach.KindText:
		return h.digest(ctx, []byte(a.Text))
	case attach.KindBinary:
		return h.digest(ctx, a.Bytes)
	}
	return "", nil
}

// Snapshot returns the attached documents (pending ones are not attached
// yet) in context order with the digests of their parts, and with
// IncludeContent their payloads. It reads nothing from the server.
func (h *Host) Snapshot(ctx context.Context, opts *SnapshotOptions) (*Snapshot, error) {
	var o SnapshotOptions
	if opts != nil {
		o = *opts
	}
	type doc struct {
		uri   string
		parts []attach.Attachment
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errClosed()
	}
	proto := h.proto
	if h.sess != nil {
		proto = h.sess.InitializeResult().ProtocolVersion
	}
	var docs []doc
	for _, u := range h.order {
		if e := h.atts[u]; e.phase == phaseAttached {
			docs = append(docs, doc{u, cloneAtts(e.parts)})
		}
	}
	h.mu.Unlock()
	s := &Snapshot{Version: SnapshotVersion, Server: h.url, ProtocolVersion: proto, DigestAlg: DigestAlg,
		TakenAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Attachments: make([]SnapshotAttachment, 0, len(docs))}
	for _, d := range docs {
		sa := SnapshotAttachment{URI: d.uri, State: docState(d.parts), Parts: make([]SnapshotPart, len(d.parts))}
		if r := h.descriptorOf(d.uri); len(r) > 0 {
			sa.Name, sa.Title, sa.MIMEType = r[0].Name, r[0].Title, r[0].MIMEType
		} else if len(d.parts) > 0 {
			sa.MIMEType = d.parts[0].DeclaredMIMEType
		}
		for i := range d.parts {
			a := &d.parts[i]
			p := SnapshotPart{URI: a.URI, Kind: a.Kind, MIMEType: a.DeclaredMIMEType}
			dg, err := h.partDigest(ctx, a)
			if err != nil {
				return nil, err
			}
			p.Digest = dg
			if o.IncludeContent {
				switch a.Kind {
				case attach.KindText:
					t := a.Text
					p.Text = &t
				case attach.KindBinary:
					b := base64.StdEncoding.EncodeToString(a.Bytes)
					p.Blob = &b
				}
				p.Meta = a.Meta
			}
			sa.Parts[i] = p
		}
		s.Attachments = append(s.Attachments, sa)
	}
	return s, nil
}

// docState is the state a document's parts add up to: gone, stale or
// superseded when any part is, else fresh.
func docState(parts []attach.Attachment) string {
	rank := map[string]int{StateFresh: 0, StateSuperseded: 1, StateStale: 2, StateGone: 3}
	st := StateFresh
	for i := range parts {
		if s := parts[i].State; s != "" && rank[s] > rank[st] {
			st = s
		}
	}
	return st
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
