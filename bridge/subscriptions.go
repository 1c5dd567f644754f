package bridge

import (
	"context"
	"errors"
	"sync"
)

// A Watcher receives what a [Session] learns about the resources it was asked
// to watch with [Session.Watch], and the server's change notifications. It is
// the one interface between a session and a freshness engine, whatever the
// protocol revision: resources/subscribe in 2025-11-25 and earlier, and
// subscriptions/listen in 2026-07-28.
//
// Callbacks run one at a time on a goroutine of the session, never inside
// Watch, so a caller may hold its own lock while calling Watch. Updated runs
// on the read loop, in order with responses: it must return quickly and must
// not call the session synchronously.
type Watcher interface {
	// Acked says updates about uri reached this session from some moment
	// after the addition it answers: a change made after that moment is
	// notified (unless a later removal ends it).
	//
	// Every addition of a URI to the watched set is answered exactly once,
	// in order, by Acked or Refused: a caller that added a URI n times and
	// has n-1 answers knows the next one answers its latest addition.
	Acked(uri string)
	// Refused answers an addition that will not be watched: the server
	// refused it, does not support subscriptions (err has kind
	// [KindUnsupported]), or a removal of the URI superseded it (err is
	// [ErrWatchRemoved]).
	Refused(uri string, err error)
	// Lost says updates about uris stopped reaching this session (a listen
	// ended); the session watches them again by itself and says Acked once
	// more, unasked, when they are back. Changes made in between may have
	// gone unnotified.
	Lost(uris []string, why error)
	// Updated is notifications/resources/updated.
	Updated(uri string)
	// ListChanged is notifications/resources/list_changed.
	ListChanged()
}

// subs is the legacy (resources/subscribe) side of [Session.Watch]: the
// wanted set, reconciled with the server one URI at a time, in order.
type subs struct {
	mu     sync.Mutex
	uris   map[string]*sub
	closed bool           // the session ended: start nothing more
	wg     sync.WaitGroup // reconcile goroutines; Close waits for them
}

// stop keeps Watch from starting requests and waits for those started.
func (x *subs) stop() {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	x.wg.Wait()
}

type sub struct {
	want bool // the caller wants updates about the URI
	have bool // the server acknowledged resources/subscribe
	busy bool // a reconcile goroutine owns the URI
	owed int  // additions not answered yet
}

// ErrWatchRemoved is the Refused answer to an addition that a later
// removal of the same URI superseded before it took effect.
var ErrWatchRemoved = errors.New("bridge: the watch was removed before it took effect")

// answerWatch answers n additions of u with err (nil: Acked), in order, on the
// callback goroutine.
func (s *Session) answerWatch(u string, n int, err error) {
	for range n {
		if err == nil {
			s.watcherDo(func(w Watcher) { w.Acked(u) })
		} else {
			s.watcherDo(func(w Watcher) { w.Refused(u, err) })
		}
	}
}

// Watch changes the set of resources whose updates this session receives.
// Within one call removals apply before additions (so removing and adding a
// URI keeps it watched); across calls, in call order. Subscribe and
// unsubscribe requests for one URI are sent one at a time, and a change that
// is undone before its request is sent sends nothing. Every addition is
// answered by the [Watcher] in Options with Acked or Refused.
func (s *Session) Watch(add, remove []string) {
	supported := s.Supports("resources/subscribe")
	if s.modern && supported {
		s.watchModern(add, remove)
		return
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if s.subs.uris == nil {
		s.subs.uris = map[string]*sub{}
	}
	touched := make([]string, 0, len(add)+len(remove))
	for _, u := range remove {
		if st := s.subs.uris[u]; st != nil {
			st.want = false
			s.answerWatch(u, st.owed, ErrWatchRemoved)
			st.owed = 0
			touched = append(touched, u)
		}
	}
	for _, u := range add {
		if !supported {
			err := s.gate("resources/subscribe", u)
			s.watcherDo(func(w Watcher) { w.Refused(u, err) })
			continue
		}
		st := s.subs.uris[u]
		if st == nil {
			st = &sub{}
			s.subs.uris[u] = st
		}
		st.want = true
		st.owed++
		touched = append(touched, u)
	}
	for _, u := range touched {
		s.reconcileLocked(u)
	}
}

// reconcileLocked acks a URI already subscribed, or starts the goroutine that
// brings the server in line with what is wanted.
func (s *Session) reconcileLocked(u string) {
	st := s.subs.uris[u]
	if st == nil || st.busy {
		return
	}
	if s.subs.closed {
		delete(s.subs.uris, u)
		return
	}
	if st.want == st.have {
		if st.want {
			s.answerWatch(u, st.owed, nil)
			st.owed = 0
		}
		if !st.want {
			delete(s.subs.uris, u)
		}
		return
	}
	st.busy = true
	s.subs.wg.Add(1)
	go s.reconcile(u, st)
}

func (s *Session) reconcile(u string, st *sub) {
	defer s.subs.wg.Done()
	for {
		s.subs.mu.Lock()
		want, have := st.want, st.have
		if want == have {
			st.busy = false
			s.reconcileLocked(u)
			s.subs.mu.Unlock()
			return
		}
		s.subs.mu.Unlock()
		if want {
			err := s.call(context.Background(), "resources/subscribe", u, map[string]string{"uri": u}, nil)
			s.subs.mu.Lock()
			if err == nil {
				st.have = true
			} else if st.want {
				st.want = false
				s.answerWatch(u, st.owed, err)
				st.owed = 0
			}
			s.subs.mu.Unlock()
			if err != nil && s.connErr() != nil {
				s.subs.mu.Lock()
				st.busy = false
				delete(s.subs.uris, u)
				s.subs.mu.Unlock()
				return
			}
			continue
		}
		// Whatever the answer, the URI is no longer ours to watch: a
		// failed unsubscribe at worst sends an update the host ignores.
		_ = s.call(context.Background(), "resources/unsubscribe", u, map[string]string{"uri": u}, nil)
		s.subs.mu.Lock()
		st.have = false
		s.subs.mu.Unlock()
		if s.connErr() != nil {
			s.subs.mu.Lock()
			st.busy = false
			if !st.want {
				delete(s.subs.uris, u)
			}
			s.subs.mu.Unlock()
			return
		}
	}
}

// watcherDo runs f with the Watcher on the session's callback goroutine.
func (s *Session) watcherDo(f func(Watcher)) {
	if w := s.o.Watcher; w != nil {
		s.notes.Push(func() { f(w) })
	}
}
