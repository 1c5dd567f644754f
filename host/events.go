package host

import (
	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/internal/xsync"
)

// Event types, as the JavaScript API names them. docs/embedding.md states
// when each fires and when it does not.
const (
	// EventUpdated: an attached document's content changed (part count, or a
	// part's uri, mimeType, _meta or payload) and the new copy is applied.
	EventUpdated = "updated"
	// EventFresh: an attachment that was stale, gone or superseded is
	// current again, with the same content it had (no new parts).
	EventFresh = "fresh"
	// EventStale: a re-read failed or missed its deadline; the copy is kept.
	EventStale = "stale"
	// EventGone: the server said an attached document does not exist. It
	// fires once per disappearance.
	EventGone = "gone"
	// EventSuperseded: a tool result carried a different copy of an
	// attached part, which replaced it in the context.
	EventSuperseded   = "superseded"
	EventListChanged  = "listchanged"
	EventListProgress = "listprogress"
	EventDisconnected = "disconnected"
	EventReconnected  = "reconnected"
	// EventRestored: a restore settled; Restored holds its results.
	EventRestored = "restored"
)

// An Event is one notification to the embedding page. Which fields are set
// depends on Type: updated {URI, Parts}, fresh {URI}, stale {URI, Reason},
// gone {URI}, superseded {URI}, listchanged {}, listprogress {Resources,
// Templates, Done, Truncated, Errors}, disconnected {Reason}, reconnected {}, restored {Restored}.
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
	// Restored is the results of a restore (restored).
	Restored []RestoreResult
}

// eventQueue delivers events to Options.OnEvent one at a time, in the order
// they were pushed, on a goroutine of its own (so the engine never runs page
// code while it holds a lock). After close it delivers what was queued and
// its goroutine ends.
type eventQueue struct {
	fn func(Event)
	q  *xsync.Queue
}

func newEventQueue(fn func(Event)) *eventQueue {
	e := &eventQueue{fn: fn, q: xsync.NewQueue()}
	if fn != nil {
		go e.q.Run()
	}
	return e
}

func (e *eventQueue) push(ev Event) {
	if e.fn != nil {
		e.q.Push(func() { e.fn(ev) })
	}
}

func (e *eventQueue) close() { e.q.Close() }
