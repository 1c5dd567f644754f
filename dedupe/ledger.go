package dedupe

import (
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// State says whether an attached part's copy is still what the model
// should see.
type State string

const (
	// Fresh: the copy matches the server's last answer.
	Fresh State = "fresh"
	// Stale: an update was announced, a re-read failed, or (with
	// KeepNewer) a tool result delivered a different copy. The copy stays
	// in the context, with a warning.
	Stale State = "stale"
	// Gone: the server said the resource no longer exists. The last copy
	// is kept in the ledger but is no longer the model's.
	Gone State = "gone"
	// Superseded: a tool result delivered a newer copy, which replaced the
	// attached one in the context.
	Superseded State = "superseded"
)

// live reports whether the attached copy is in the model's context.
func (s State) live() bool { return s == Fresh || s == Stale }

// NewerPolicy decides what Filter does with a copy of an attached URI
// whose content differs from the attachment.
type NewerPolicy uint8

const (
	// Replace keeps the newer copy, records its hash and marks the
	// attachment Superseded, so the context holds one copy: the newest.
	Replace NewerPolicy = iota
	// KeepNewer keeps the newer copy and flags the attachment Stale; the
	// host decides what to do with the two versions.
	KeepNewer
)

// Options configures a Ledger. The zero value is ready to use.
type Options struct {
	// NormalizeURIs compares URIs after RFC 3986 syntax-based
	// normalisation (case of scheme and host, percent-encoding, default
	// and empty ports of http, https, ws and wss). Off, URIs are compared
	// as exact strings. Paths are never resolved: "a/./b" and "a/b" differ.
	NormalizeURIs bool
	// OnNewer is the policy for a newer copy of an attached URI.
	OnNewer NewerPolicy
	// Now stamps reads; nil means time.Now.
	Now func() time.Time
}

// ErrNotAttached is returned (wrapped, naming the URI) by methods that need
// an attached document.
var ErrNotAttached = errors.New("not attached")

// Ledger is one session's record of the documents in a model's context.
// Keys are (server, URI): the server string is the host's choice (for
// example the WebSocket URL), so the same URI from two servers names two
// documents. A Ledger keeps hashes, sizes and states, never content.
type Ledger struct {
	mu   sync.Mutex
	opts Options
	docs map[key]*doc
	// parts indexes every part of every document by part URI. Two
	// documents can share a part URI; the most recently read is last and
	// is the one consulted.
	parts map[key][]*part
	// held lists the part URIs the host keeps out of the model's context
	// (see Hold); it outlives re-reads of their documents.
	held map[key]bool
	c    counters
}

type key struct{ server, uri string }

type doc struct {
	server, uri string
	readAt      time.Time
	parts       []*part
}

type part struct {
	doc    *doc
	uri    string
	m      measure // the attached copy
	state  State
	reason string
	held   bool // attached but kept out of the model's context (Hold)
	// A copy delivered by a tool result after the last read and kept in
	// the context (see NewerPolicy).
	delivered    digest
	hasDelivered bool
}

// inContext reports whether the context holds a copy of this part whose
// content hashes to d.
func (p *part) inContext(d digest) bool {
	return !p.held && p.state.live() && p.m.sum == d || p.hasDelivered && p.delivered == d
}

// anyInContext reports whether the context holds some copy of this part.
func (p *part) anyInContext() bool { return !p.held && p.state.live() || p.hasDelivered }

// New returns an empty Ledger.
func New(opts Options) *Ledger {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Ledger{opts: opts, docs: make(map[key]*doc), parts: make(map[key][]*part), held: make(map[key]bool)}
}

func (l *Ledger) key(server, uri string) key {
	if l.opts.NormalizeURIs {
		uri = normalizeURI(uri)
	}
	return key{server, uri}
}

// Entry is a snapshot of one attached document.
type Entry struct {
	Server string     `json:"server"`
	URI    string     `json:"uri"`
	ReadAt time.Time  `json:"readAt"`
	Parts  []PartInfo `json:"parts"`
}

// PartInfo is a snapshot of one part of an attached document.
type PartInfo struct {
	URI    string `json:"uri"`
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"` // why it is stale
	// Hash is the hex 64-bit hash of the attached copy's payload (per
	// process: compare hashes, never store them).
	Hash string `json:"hash"`
	// Delivered is the hash of a different copy a tool result put in the
	// context since the last read, if any.
	Delivered string `json:"delivered,omitempty"`
	Size      int64  `json:"size"`   // payload bytes (decoded for blobs)
	Tokens    int64  `json:"tokens"` // estimate: ceil(Size/4)
}

func (d *doc) entry() Entry {
	e := Entry{Server: d.server, URI: d.uri, ReadAt: d.readAt, Parts: make([]PartInfo, len(d.parts))}
	for i, p := range d.parts {
		e.Parts[i] = PartInfo{URI: p.uri, State: p.state, Reason: p.reason,
			Hash: hex.EncodeToString(p.m.sum[:]), Size: p.m.size, Tokens: p.m.tokens}
		if p.hasDelivered {
			e.Parts[i].Delivered = hex.EncodeToString(p.delivered[:])
		}
	}
	return e
}

// Attach records the parts of a resources/read result of uri as attached,
// all Fresh. Attaching a URI that is already attached replaces its record
// (a second copy never exists in the ledger) and does not count as another
// attachment in the figures. A part with an empty URI takes the document's
// URI. A part that cannot be measured (no payload, both payloads, bad
// base64, a URI repeated within the read) is left out and named in the
// returned error; the others are recorded.
func (l *Ledger) Attach(server, uri string, parts []Part) (Entry, error) {
	return l.record(server, uri, parts, true)
}

// Refresh records a new read of an attached document, as Attach does, for
// the host's freshness engine: every part becomes Fresh and copies that
// tool results delivered meanwhile stop counting as the current copy. It
// returns ErrNotAttached if uri is not attached.
func (l *Ledger) Refresh(server, uri string, parts []Part) (Entry, error) {
	return l.record(server, uri, parts, false)
}

func (l *Ledger) record(server, uri string, in []Part, attach bool) (Entry, error) {
	// Hash outside the lock: blobs can be large.
	type measured struct {
		uri string
		m   measure
	}
	ms := make([]measured, 0, len(in))
	var errs []error
	seen := make(map[key]bool, len(in))
	for i := range in {
		pu := in[i].URI
		if pu == "" {
			pu = uri
		}
		m, err := measurePart(&in[i])
		if err != nil {
			errs = append(errs, fmt.Errorf("dedupe: %s: part %d (uri %q): %w", uri, i, pu, err))
			continue
		}
		if k := l.key(server, pu); seen[k] {
			errs = append(errs, fmt.Errorf("dedupe: %s: part %d (uri %q): uri repeats an earlier part of the same read", uri, i, pu))
			continue
		} else {
			seen[k] = true
		}
		ms = append(ms, measured{pu, m})
	}
	now := l.opts.Now()

	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(server, uri)
	d := l.docs[k]
	if d == nil {
		if !attach {
			return Entry{}, fmt.Errorf("dedupe: refresh %s (server %q): %w", uri, server, ErrNotAttached)
		}
		d = &doc{server: server, uri: uri}
		l.docs[k] = d
		l.c.attachments++
	}
	l.unindex(d)
	d.readAt = now
	d.parts = make([]*part, len(ms))
	for i, x := range ms {
		pk := l.key(server, x.uri)
		p := &part{doc: d, uri: x.uri, m: x.m, state: Fresh, held: l.held[pk]}
		d.parts[i] = p
		l.parts[pk] = append(l.parts[pk], p)
	}
	return d.entry(), errors.Join(errs...)
}

// unindex removes d's parts from the part index.
func (l *Ledger) unindex(d *doc) {
	for _, p := range d.parts {
		k := l.key(d.server, p.uri)
		s := l.parts[k]
		for i := range s {
			if s[i] == p {
				s = append(s[:i:i], s[i+1:]...)
				break
			}
		}
		if len(s) == 0 {
			delete(l.parts, k)
		} else {
			l.parts[k] = s
		}
	}
}

// lookupPart returns the indexed part for k, or nil.
func (l *Ledger) lookupPart(k key) *part {
	if s := l.parts[k]; len(s) > 0 {
		return s[len(s)-1]
	}
	return nil
}

// Detach forgets an attached document and reports whether it was attached.
func (l *Ledger) Detach(server, uri string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(server, uri)
	d := l.docs[k]
	if d == nil {
		return false
	}
	delete(l.docs, k)
	l.unindex(d)
	for _, p := range d.parts {
		delete(l.held, l.key(server, p.uri))
	}
	return true
}

// Hold keeps the part with URI uri (a part URI, or a single-part
// document's URI) out of the model's context, or puts it back with held
// false: a host that attaches a part without sending it to the model (over
// a size limit, an MCP App view) holds it. A held part is still recorded,
// hashed and refreshed, but is not "in the context": Filter keeps a tool
// result's embedded copy of it (the model has no other) and a link to it,
// and supersedes nothing. The mark outlives Attach and Refresh of its
// document until Detach or Hold(..., false); it may be set before the part
// is first attached.
func (l *Ledger) Hold(server, uri string, held bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(server, uri)
	if held {
		l.held[k] = true
	} else {
		delete(l.held, k)
	}
	for _, p := range l.parts[k] {
		p.held = held
	}
}

// MarkStale flags the parts of an attached document (or the one part, if
// uri names a part) Stale with a reason such as "updated" or "refresh
// failed: timeout". Gone and Superseded parts keep their state: their
// attached copy has already left the context.
func (l *Ledger) MarkStale(server, uri, reason string) error {
	return l.mark(server, uri, func(p *part) {
		if p.state.live() {
			p.state, p.reason = Stale, reason
		}
	})
}

// MarkGone marks the parts of an attached document (or the one part, if uri
// names a part) Gone, after the server answered not-found. Their record is
// kept until Detach or a successful Refresh.
func (l *Ledger) MarkGone(server, uri string) error {
	return l.mark(server, uri, func(p *part) { p.state, p.reason = Gone, "" })
}

func (l *Ledger) mark(server, uri string, f func(*part)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(server, uri)
	if d := l.docs[k]; d != nil {
		for _, p := range d.parts {
			f(p)
		}
		return nil
	}
	if p := l.lookupPart(k); p != nil {
		f(p)
		return nil
	}
	return fmt.Errorf("dedupe: %s (server %q): %w", uri, server, ErrNotAttached)
}

// Lookup returns the attached document whose URI, or one of whose part
// URIs, is uri.
func (l *Ledger) Lookup(server, uri string) (Entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(server, uri)
	if d := l.docs[k]; d != nil {
		return d.entry(), true
	}
	if p := l.lookupPart(k); p != nil {
		return p.doc.entry(), true
	}
	return Entry{}, false
}

// Entries returns every attached document, ordered by server and URI.
func (l *Ledger) Entries() []Entry {
	l.mu.Lock()
	out := make([]Entry, 0, len(l.docs))
	for _, d := range l.docs {
		out = append(out, d.entry())
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].URI < out[j].URI
	})
	return out
}
