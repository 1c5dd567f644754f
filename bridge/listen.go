package bridge

import (
	stdjson "encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// listens is the 2026-07-28 side of [Session.Watch]: one subscriptions/listen
// per URI, plus one for resourcesListChanged.
//
// The shape follows a defect of go-sdk v1.8.0 servers (reproduced; see the
// README's interop notes): they key subscriptions by URI and session and
// list-changed interest by session, and a listen that ends (even one the
// client cancelled) unsubscribes its URIs and deletes the session's
// list-changed interest, whatever other listens remain. So a URI is listened
// to again only after its old listen has answered, one refused URI holds up
// no other, and after any listen ends the list-changed listen is replaced
// (the old one answers first) and the host told to re-list once.
type listens struct {
	mu       sync.Mutex
	uris     map[string]*uriListen
	byID     map[int64]*listenReq
	list     *listenReq // the current list-changed listen
	again    bool       // a listen ended while the list listen was being replaced
	replaced bool       // the current list listen replaced an earlier one
	closed   bool
	wg       sync.WaitGroup // listen goroutines; Close waits for them
}

type uriListen struct {
	want    bool
	owed    int        // additions not answered yet
	relost  bool       // Lost was said: one unasked Acked when the new listen is acknowledged
	cur     *listenReq // open or opening
	old     *listenReq // cancelled, not answered yet: no new listen before it answers
	backoff time.Duration
	waiting bool // a reopen is scheduled after backoff
}

type listenReq struct {
	id        int64
	uri       string // "" for the list-changed listen
	acked     bool
	cancelled bool
	cancel    chan struct{} // closed when cancelled
	ended     bool
}

// cancelWait bounds how long a cancelled listen may take to answer before it
// is taken as ended (a server may legitimately never answer it).
const cancelWait = 500 * time.Millisecond

func (s *Session) watchModern(add, remove []string) {
	l := &s.listens
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.uris == nil {
		l.uris = map[string]*uriListen{}
	}
	for _, u := range remove {
		st := l.uris[u]
		if st == nil {
			continue
		}
		st.want, st.relost = false, false
		s.answerWatch(u, st.owed, ErrWatchRemoved)
		st.owed = 0
		if st.cur != nil {
			s.cancelListenLocked(st.cur)
		}
	}
	for _, u := range add {
		st := l.uris[u]
		if st == nil {
			st = &uriListen{}
			l.uris[u] = st
		}
		st.want = true
		st.owed++
		switch {
		case st.cur != nil && !st.cur.cancelled:
			if st.cur.acked {
				s.answerWatch(u, st.owed, nil)
				st.owed = 0
			}
		case st.cur != nil:
			// Cancelled, not answered yet: it becomes old; the next listen
			// opens when it answers.
			st.old, st.cur = st.cur, nil
		}
		if st.cur == nil && st.old == nil && !st.waiting {
			s.openListenLocked(u, st)
		}
	}
}

// openListenLocked sends a listen for uri ("" = list changes). l.mu is held;
// the id is registered before the request goes out, so its acknowledgement
// cannot arrive first.
func (s *Session) openListenLocked(uri string, st *uriListen) {
	l := &s.listens
	if l.closed {
		return
	}
	if l.byID == nil {
		l.byID = map[int64]*listenReq{}
	}
	r := &listenReq{id: s.nextID.Add(1), uri: uri, cancel: make(chan struct{})}
	l.byID[r.id] = r
	if st != nil {
		st.cur = r
	} else {
		l.list = r
	}
	filter := s.listFilter()
	if uri != "" {
		b, _ := stdjson.Marshal(uri)
		filter = `{"resourceSubscriptions":[` + string(b) + `]}`
	}
	params := s.withMeta([]byte(`{"notifications":` + filter + `}`))
	l.wg.Add(1)
	go s.runListen(r, params)
}

// runListen sends one listen and waits for its end: its answer, the server
// cancelling it, or the session ending.
func (s *Session) runListen(r *listenReq, params []byte) {
	defer s.listens.wg.Done()
	ch, err := s.send(r.id, "subscriptions/listen", r.uri, params)
	if err != nil {
		s.listenEnded(r, nil, err)
		return
	}
	var timeout <-chan time.Time
	cancel := r.cancel
	for {
		select {
		case env, ok := <-ch:
			if !ok {
				return // the session ended: the host reconnects and watches again
			}
			var e error
			switch {
			case env.local != nil:
				e = s.callErr(env.local, "subscriptions/listen", r.uri)
			case env.err != nil:
				e = s.fromWire("subscriptions/listen", r.uri, env.err)
			}
			s.listenEnded(r, env, e)
			return
		case <-cancel:
			timeout, cancel = time.After(cancelWait), nil
		case <-timeout:
			s.take(r.id) // a late answer is dropped
			s.listenEnded(r, nil, nil)
			return
		case <-s.done:
			return
		}
	}
}

func (s *Session) cancelListenLocked(r *listenReq) {
	if r.cancelled || r.ended {
		return
	}
	r.cancelled = true
	close(r.cancel)
	id := r.id
	s.listens.wg.Add(1)
	go func() {
		defer s.listens.wg.Done()
		s.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "subscription set changed"})
	}()
}

// listenEnded handles the end of a listen: env is its answer (nil when the
// server cancelled it, the send failed with err, or it never answered a
// cancel).
func (s *Session) listenEnded(r *listenReq, env *envelope, err error) {
	l := &s.listens
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.ended {
		return
	}
	r.ended = true
	delete(l.byID, r.id)
	if l.closed || s.connErr() != nil {
		return
	}
	if r.uri == "" {
		if l.list == r {
			l.list = nil
			if r.cancelled {
				s.openListenLocked("", nil) // replaced: the old one answered first
				l.replaced = true
			} else {
				s.reopenLater("", nil, 0)
			}
		}
		return
	}
	st := l.uris[r.uri]
	if st == nil {
		return
	}
	switch {
	case st.old == r:
		st.old = nil
	case st.cur == r:
		st.cur = nil
		switch {
		case r.cancelled:
		case err != nil || env == nil:
			// The server refused the URI (or the send failed): the
			// attachment gets a warning; other URIs are not affected.
			if st.want {
				st.want, st.relost = false, false
				if err == nil {
					err = newError(KindUnavailable, ErrConnectionLost, "subscriptions/listen", r.uri, "the server ended the listen")
				}
				if st.owed == 0 {
					st.owed = 1 // acknowledged before: the refusal still reaches the caller
				}
				s.answerWatch(r.uri, st.owed, err)
				st.owed = 0
			}
		default:
			// The server ended the listen: updates stop until it is
			// reopened and acknowledged.
			if st.want {
				st.relost = true
				u := r.uri
				s.watcherDo(func(w Watcher) { w.Lost([]string{u}, fmt.Errorf("the server ended the listen for %q", u)) })
				st.backoff = min(max(2*st.backoff, 100*time.Millisecond), 5*time.Second)
				s.reopenLater(r.uri, st, st.backoff)
			}
		}
	}
	if st.want && st.cur == nil && st.old == nil && !st.waiting {
		s.openListenLocked(r.uri, st)
	}
	if !st.want && st.cur == nil && st.old == nil && !st.waiting {
		delete(l.uris, r.uri)
	}
	s.replaceListListenLocked()
}

// replaceListListenLocked reopens the list-changed listen after another
// listen ended (go-sdk deleted its interest): the old one is cancelled, and
// the new one opens once it answered.
func (s *Session) replaceListListenLocked() {
	l := &s.listens
	switch {
	case l.list == nil:
		return // none (not announced), or already being reopened
	case l.list.cancelled:
		l.again = true
	default:
		s.cancelListenLocked(l.list)
	}
}

// listFilter is the notifications filter of the list-changed listen: the
// lists whose changes the server announces ("{}" when none).
func (s *Session) listFilter() string {
	c := s.init.Capabilities
	var f []string
	if c.Resources != nil && c.Resources.ListChanged {
		f = append(f, `"resourcesListChanged":true`)
	}
	if c.Prompts != nil && c.Prompts.ListChanged {
		f = append(f, `"promptsListChanged":true`)
	}
	return "{" + strings.Join(f, ",") + "}"
}

// reopenLater reopens a listen after d, unless the session ends first.
func (s *Session) reopenLater(uri string, st *uriListen, d time.Duration) {
	l := &s.listens
	if st != nil {
		st.waiting = true
	}
	if d <= 0 {
		d = 100 * time.Millisecond
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		select {
		case <-time.After(d):
		case <-s.done:
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if st == nil {
			if l.list == nil {
				s.openListenLocked("", nil)
			}
			return
		}
		st.waiting = false
		if st.want && st.cur == nil && st.old == nil {
			s.openListenLocked(uri, st)
		}
	}()
}

// startListListen opens the list-changed listen of a 2026-07-28 session
// whose server announces list changes, when the session has someone to
// tell (a Watcher or OnListChanged): a session without (the relay door's
// one read) would only hold a stream open for nothing.
func (s *Session) startListListen() {
	if s.listFilter() == "{}" || (s.o.Watcher == nil && s.o.OnListChanged == nil) {
		return
	}
	s.listens.mu.Lock()
	s.openListenLocked("", nil)
	s.listens.mu.Unlock()
}

// acknowledged handles notifications/subscriptions/acknowledged.
func (s *Session) acknowledged(params []byte) {
	var p struct {
		Meta          map[string]stdjson.RawMessage `json:"_meta"`
		Notifications struct {
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
			ResourcesListChanged  bool     `json:"resourcesListChanged"`
		} `json:"notifications"`
	}
	if err := stdjson.Unmarshal(params, &p); err != nil {
		s.protocolError(fmt.Errorf("%w: notifications/subscriptions/acknowledged: %v", ErrProtocol, err))
		return
	}
	id, ok := subscriptionID(p.Meta)
	l := &s.listens
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.byID[id]
	if !ok || r == nil || r.ended {
		return // a listen already cancelled or unknown: ignored
	}
	r.acked = true
	if r.uri == "" {
		if r == l.list && l.replaced {
			// Replaced after another listen ended: list changes may have
			// been missed meanwhile, so the host re-lists once.
			l.replaced = false
			if l.again {
				l.again = false
				s.cancelListenLocked(r)
			}
			s.watcherDo(func(w Watcher) { w.ListChanged() })
			if p := s.init.Capabilities.Prompts; p != nil && p.ListChanged && s.o.OnListChanged != nil {
				s.notes.Push(func() { s.o.OnListChanged("prompts") })
			}
		}
		return
	}
	st := l.uris[r.uri]
	if st == nil || st.cur != r {
		return
	}
	if !contains(p.Notifications.ResourceSubscriptions, r.uri) {
		st.want, st.relost = false, false
		s.cancelListenLocked(r)
		u := r.uri
		err := newError(KindUnsupported, ErrNotSupported, "subscriptions/listen", u, "the server did not acknowledge updates about %q", u)
		s.answerWatch(u, max(st.owed, 1), err)
		st.owed = 0
		return
	}
	st.backoff = 0
	if st.want {
		n := st.owed
		if st.relost && n == 0 {
			n = 1 // back after Lost: one unasked Acked
		}
		st.owed, st.relost = 0, false
		s.answerWatch(r.uri, n, nil)
	}
}

// serverCancelled handles notifications/cancelled from the server: for a
// listen, the server ended it.
func (s *Session) serverCancelled(params []byte) {
	var p struct {
		RequestID stdjson.RawMessage `json:"requestId"`
	}
	if stdjson.Unmarshal(params, &p) != nil {
		return
	}
	id, err := strconv.ParseInt(string(p.RequestID), 10, 64)
	if err != nil {
		return
	}
	s.listens.mu.Lock()
	r := s.listens.byID[id]
	s.listens.mu.Unlock()
	if r == nil {
		return
	}
	if ch := s.take(id); ch != nil {
		s.listenEnded(r, &envelope{}, nil)
		close(ch) // its goroutine returns
	}
}

// fromListen reports whether a notification's subscriptionId names a listen
// of this session that has not ended (absent: true, for lenient servers).
func (s *Session) fromListen(params []byte) bool {
	var p struct {
		Meta map[string]stdjson.RawMessage `json:"_meta"`
	}
	if stdjson.Unmarshal(params, &p) != nil || p.Meta == nil {
		return true
	}
	if _, present := p.Meta[metaSubscriptionID]; !present {
		return true
	}
	id, ok := subscriptionID(p.Meta)
	if !ok {
		return false
	}
	s.listens.mu.Lock()
	defer s.listens.mu.Unlock()
	r := s.listens.byID[id]
	return r != nil && !r.cancelled
}

// subscriptionID reads _meta's subscriptionId: the listen's request id, a
// number (a number stays a number: a string never names our numeric ids).
func subscriptionID(meta map[string]stdjson.RawMessage) (int64, bool) {
	raw, ok := meta[metaSubscriptionID]
	if !ok || len(raw) == 0 || raw[0] == '"' {
		return 0, false
	}
	id, err := strconv.ParseInt(string(raw), 10, 64)
	return id, err == nil
}

// stop keeps Watch from opening listens and waits for the listen goroutines
// (the session has ended, so each returns at once).
func (l *listens) stop() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.wg.Wait()
}
