//go:build !js

package docserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The documents server measures its reach per client and decides from
// those figures which clients get fetch_document (see doc.go, "# Figures",
// and docs/figures.md). This file holds the figures' types, the store
// interface (package figures implements it over SQLite; this package never
// links SQLite), what one session counts, and the gate.

// A Client is who a session says it is: initialize's clientInfo (legacy) or
// the first 2026-07-28 request's _meta clientInfo. Known is false when the
// session gave none ("unknown", never gated). Name and Version are the
// client's strings, cut to maxClientName and maxClientVersion bytes: they
// are attacker-controlled and are escaped wherever they are shown.
type Client struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Known   bool   `json:"known"`
}

// Label is the client as a person reads it: "name version", or "unknown".
func (c Client) Label() string {
	if !c.Known {
		return "unknown (no clientInfo)"
	}
	if c.Version == "" {
		return c.Name
	}
	return c.Name + " " + c.Version
}

// Bounds on what a client's clientInfo may put into the store.
const (
	maxClientName    = 128
	maxClientVersion = 64
)

// An EventKind is one thing a session did that the figures count.
type EventKind uint8

// The events a session records. EventSessionStart comes first and carries
// the client; the others only the session.
const (
	EventSessionStart EventKind = iota + 1
	EventList                   // a resources/list answered
	EventRead                   // a resources/read answered with the document
	EventFetch                  // a fetch_document call
	EventDuplicate              // a fetch_document of a URI the session already read or fetched
	EventSearch                 // a search_documents call
	EventLinkFollowed           // a read or fetch of a URI a search of the session returned (once per URI)
)

// An Event is one count for one session.
type Event struct {
	Session string    // a random id, one per connection
	Kind    EventKind //
	Client  Client    // EventSessionStart only
	At      time.Time // EventSessionStart only: the session's start, which places it in the window
}

// Figures are one client's counts over the sessions that started in the
// window.
type Figures struct {
	Client          Client `json:"client"`
	Sessions        int64  `json:"sessions"`
	Listing         int64  `json:"listingSessions"`     // sessions that listed resources
	Reading         int64  `json:"readingSessions"`     // sessions that read at least one resource
	ListWithoutRead int64  `json:"listWithoutRead"`     // listing sessions that never read
	ReadWithoutList int64  `json:"readWithoutList"`     // reading sessions that never listed (the assumption's check)
	Fetches         int64  `json:"fetchCalls"`          // fetch_document calls
	Duplicates      int64  `json:"duplicateDeliveries"` // fetch_document calls of a URI the session already had
	Searches        int64  `json:"searchCalls"`         // search_documents calls
	LinksFollowed   int64  `json:"linksFollowed"`       // search results read or fetched afterwards
}

// Reach is reading sessions ÷ sessions (0 without sessions).
func (f Figures) Reach() float64 { return ratio(f.Reading, f.Sessions) }

// ListWithoutReadRate is listing sessions that never read ÷ sessions.
func (f Figures) ListWithoutReadRate() float64 { return ratio(f.ListWithoutRead, f.Sessions) }

// DuplicateRate is duplicate deliveries ÷ fetch_document calls (0 without
// calls: no fetch, no duplicate).
func (f Figures) DuplicateRate() float64 { return ratio(f.Duplicates, f.Fetches) }

func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// A Decision is one outcome of the gate for one client, stored with the
// figures and thresholds that justified it, so that it can be reviewed
// later by someone who was not there.
type Decision struct {
	At      time.Time `json:"at"`
	Client  Client    `json:"client"`
	Fetch   bool      `json:"fetchDocument"`
	Reason  string    `json:"reason"`
	Figures Figures   `json:"figures"`
	Gate    Gate      `json:"gate"`
}

// A Point is one client's reach at one evaluation of the gate.
type Point struct {
	At       time.Time `json:"at"`
	Client   Client    `json:"-"`
	Sessions int64     `json:"sessions"`
	Reach    float64   `json:"reach"`
}

// A FiguresStore keeps the figures, the evaluations and the decisions.
// Package figures implements it over SQLite. Its methods may be called
// concurrently.
type FiguresStore interface {
	// Record queues e and returns at once: writes are batched, so no
	// request waits for the disk. A full queue drops e (counted by Dropped).
	Record(e Event)
	// Figures returns the counts of every client whose sessions started at
	// or after since, most sessions first (at most maxClients), after
	// writing what Record queued.
	Figures(ctx context.Context, since time.Time) ([]Figures, error)
	// SaveEvaluation stores one evaluation at at: each client's figures (the
	// reach chart) and the decisions it made, and forgets sessions and
	// evaluations older than before.
	SaveEvaluation(ctx context.Context, at time.Time, figs []Figures, decided []Decision, before time.Time) error
	// Decisions returns up to perClient latest decisions of each client,
	// oldest first.
	Decisions(ctx context.Context, perClient int) ([]Decision, error)
	// Series returns the points since since, oldest first, at most
	// perClient per client (the latest).
	Series(ctx context.Context, since time.Time, perClient int) ([]Point, error)
	// Persistent reports whether the figures survive a restart (a file).
	Persistent() bool
	// Dropped returns how many events were lost (a full queue, a failed
	// write).
	Dropped() int64
}

// maxClients is the most clients one evaluation considers (the ones with
// the most sessions): clientInfo is the client's to choose, and a client
// that invents a name per session must not grow the work without bound.
const maxClients = 1000

// Hysteresis is how far above Gate.Reach a gated client's reach must rise
// before it loses fetch_document, so that a client near the threshold does
// not flap between evaluations.
const Hysteresis = 0.05

// A Gate holds the thresholds, written down before any decision is made.
type Gate struct {
	Window      time.Duration `json:"window"`      // the rolling window the figures cover (-gate-window)
	Reach       float64       `json:"reach"`       // below this read reach a client gets fetch_document (-gate-reach)
	Duplicates  float64       `json:"duplicates"`  // above this duplicate rate it loses it, whatever its reach (-gate-duplicates)
	MinSessions int64         `json:"minSessions"` // fewer sessions in the window: no change (-gate-min-sessions)
	Every       time.Duration `json:"every"`       // re-derived at start and this often (-gate-every)
}

// MarshalJSON writes the durations as Go duration strings ("720h0m0s").
func (g Gate) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Window      string  `json:"window"`
		Reach       float64 `json:"reach"`
		Duplicates  float64 `json:"duplicates"`
		MinSessions int64   `json:"minSessions"`
		Every       string  `json:"every"`
	}{g.Window.String(), g.Reach, g.Duplicates, g.MinSessions, g.Every.String()})
}

// Decide is the gate's rule for one client whose current state is on
// (it has fetch_document): the new state and the reason, in words that
// name the figures and the thresholds.
//
//   - Fewer than MinSessions sessions in the window: unchanged.
//   - A duplicate rate above Duplicates: off (this rule wins).
//   - Off, and a read reach below Reach: on.
//   - On, and a read reach above Reach + [Hysteresis]: off.
//   - Otherwise: unchanged.
func (g Gate) Decide(on bool, f Figures) (bool, string) {
	reach, dup := f.Reach(), f.DuplicateRate()
	switch {
	case f.Sessions < g.MinSessions:
		return on, fmt.Sprintf("%d sessions in the window, fewer than %d: unchanged", f.Sessions, g.MinSessions)
	case dup > g.Duplicates:
		return false, fmt.Sprintf("duplicate rate %.3f (%d of %d fetch_document calls) > %.2f", dup, f.Duplicates, f.Fetches, g.Duplicates)
	case !on && reach < g.Reach:
		return true, fmt.Sprintf("read reach %.3f (%d of %d sessions) < %.2f", reach, f.Reading, f.Sessions, g.Reach)
	case on && reach > g.Reach+Hysteresis:
		return false, fmt.Sprintf("read reach %.3f (%d of %d sessions) > %.2f (%.2f + %.2f hysteresis)", reach, f.Reading, f.Sessions,
			g.Reach+Hysteresis, g.Reach, Hysteresis)
	case on:
		return true, fmt.Sprintf("read reach %.3f (%d of %d sessions) ≤ %.2f and duplicate rate %.3f ≤ %.2f: kept", reach, f.Reading, f.Sessions,
			g.Reach+Hysteresis, dup, g.Duplicates)
	}
	return false, fmt.Sprintf("read reach %.3f (%d of %d sessions) ≥ %.2f: not gated", reach, f.Reading, f.Sessions, g.Reach)
}

// gate holds each client's current decision, re-derived from the store.
type gate struct {
	cfg   Gate
	store FiguresStore

	mu        sync.Mutex
	on        map[Client]bool
	decided   map[Client]bool // clients with a stored decision
	evaluated time.Time       // the last evaluation's time
	lastErr   error
}

// load takes each client's latest stored decision as its current state: a
// restart keeps the decisions (and hysteresis works across it).
func (g *gate) load(ctx context.Context) error {
	ds, err := g.store.Decisions(ctx, 1)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.on, g.decided = map[Client]bool{}, map[Client]bool{}
	for _, d := range ds {
		g.on[d.Client] = d.Fetch
		g.decided[d.Client] = true
	}
	return nil
}

// evaluate re-derives every decision from the figures of the window
// ending at now and stores the evaluation. A decision is stored when it
// changes, or when a client first has enough sessions to be decided.
func (g *gate) evaluate(ctx context.Context, now time.Time) error {
	since := now.Add(-g.cfg.Window)
	figs, err := g.store.Figures(ctx, since)
	if err == nil {
		var decided []Decision
		g.mu.Lock()
		for _, f := range figs {
			if !f.Client.Known {
				continue // never gated
			}
			was := g.on[f.Client]
			on, why := g.cfg.Decide(was, f)
			if on != was || (!g.decided[f.Client] && f.Sessions >= g.cfg.MinSessions) {
				decided = append(decided, Decision{At: now, Client: f.Client, Fetch: on, Reason: why, Figures: f, Gate: g.cfg})
			}
		}
		g.mu.Unlock()
		if err = g.store.SaveEvaluation(ctx, now, figs, decided, since); err == nil {
			g.mu.Lock()
			for _, d := range decided {
				g.on[d.Client] = d.Fetch
				g.decided[d.Client] = true
			}
			g.mu.Unlock()
		}
	}
	g.mu.Lock()
	g.evaluated, g.lastErr = now, err
	g.mu.Unlock()
	return err
}

// fetch reports whether the gate gives c fetch_document now.
func (g *gate) fetch(c Client) bool {
	if g == nil || !c.Known {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.on[c]
}

func (g *gate) status() (time.Time, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.evaluated, g.lastErr
}

// maxTracked is the most URIs one session remembers for the duplicate and
// link counts (a client that reads more goes on uncounted for new URIs).
const maxTracked = 4096

// A tally is one session's part of the figures: it remembers what the
// session delivered (to count duplicates) and what its searches returned
// (to count links followed), and records events once the client is known.
type tally struct {
	store FiguresStore
	id    string

	mu        sync.Mutex
	begun     bool
	pending   []EventKind // events before the client was known (few: bounded)
	delivered map[string]bool
	linked    map[string]bool // search results; true once followed
}

func newTally(store FiguresStore) *tally {
	if store == nil {
		return nil
	}
	var b [16]byte
	rand.Read(b[:])
	return &tally{store: store, id: hex.EncodeToString(b[:]), delivered: map[string]bool{}, linked: map[string]bool{}}
}

// begin records the session's start for c (its strings already cut).
func (t *tally) begin(c Client) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.begun {
		return
	}
	t.begun = true
	t.store.Record(Event{Session: t.id, Kind: EventSessionStart, Client: c, At: time.Now()})
	for _, k := range t.pending {
		t.store.Record(Event{Session: t.id, Kind: k})
	}
	t.pending = nil
}

func (t *tally) recordLocked(k EventKind) {
	if t.begun {
		t.store.Record(Event{Session: t.id, Kind: k})
	} else if len(t.pending) < 64 {
		t.pending = append(t.pending, k)
	}
}

func (t *tally) listed() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recordLocked(EventList)
}

// read counts a resources/read that returned uri's document.
func (t *tally) read(uri string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recordLocked(EventRead)
	t.deliveredLocked(uri)
}

// fetched counts a fetch_document call of uri; ok when it returned the
// document.
func (t *tally) fetched(uri string, ok bool) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recordLocked(EventFetch)
	if t.delivered[uri] {
		t.recordLocked(EventDuplicate)
	}
	if ok {
		t.deliveredLocked(uri)
	}
}

func (t *tally) deliveredLocked(uri string) {
	if len(t.delivered) < maxTracked {
		t.delivered[uri] = true
	}
	if followed, ok := t.linked[uri]; ok && !followed {
		t.linked[uri] = true
		t.recordLocked(EventLinkFollowed)
	}
}

// searched counts a search_documents call that returned uris.
func (t *tally) searched(uris []string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recordLocked(EventSearch)
	for _, u := range uris {
		if _, ok := t.linked[u]; !ok && len(t.linked) < maxTracked {
			t.linked[u] = false
		}
	}
}

// cut returns s as valid UTF-8 of at most n bytes, with no control
// characters.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
