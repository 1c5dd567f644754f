package bridge

import (
	"bytes"
	"strconv"
)

// Requests sent before the session existed (the page's transcript).
//
// In the page, mcphost.js opens the WebSocket as soon as connect() is
// called and, while the module downloads and compiles, sends the frames the
// session will want: the handshake, notifications/initialized, the first
// resources/list and resources/templates/list pages and each next page by
// the previous answer's nextCursor. When the session starts it is handed
// the frames that went out (the transcript); answers that came meanwhile
// wait in the socket's queue and arrive through the read loop as usual.
//
// The session stays the decider. It runs its handshake and listing exactly
// as it would have without a transcript; each frame it is about to send is
// compared, byte for byte, with the transcript's frames, and one that is
// already on the wire is not sent again: the call waits for the answer to
// the transcript's id instead, and that answer is validated as any other.
// A frame the transcript does not hold (the server spoke another revision,
// refused, answered something unexpected) is sent as usual, with an id past
// the transcript's, so answers to requests nobody adopts are never mistaken
// for the session's own; they are kept (bounded) until adopted, or dropped.

// Bounds on a transcript: its frames, and the bytes of early answers kept
// for requests the session has not (yet) made itself.
const (
	maxPresentFrames = 64
	maxPresentBytes  = 16 << 20
)

// presentFrame is one frame of the transcript.
type presentFrame struct {
	id     int64 // 0: a notification
	method string
	frame  []byte
	state  uint8 // presentWaiting, presentAdopted or presentLost
}

const (
	presentWaiting = iota // sent by the page; the session has not made it
	presentAdopted        // the session made the same request: it owns the id
	presentLost           // its answer could not be kept: the session sends its own
)

// present is the transcript's state in a Session, guarded by Session.mu.
type present struct {
	frames  []presentFrame
	answers map[int64]*envelope // answers to waiting requests, until adopted
	kept    int                 // bytes held in answers
}

// setPresent installs a transcript before the read loop starts, and moves
// the session's ids past the transcript's. A frame that is not a request
// or notification the client could have written is ignored, but its id is
// still skipped.
func (s *Session) setPresent(frames [][]byte) {
	if len(frames) > maxPresentFrames {
		frames = frames[:maxPresentFrames]
	}
	var top int64
	for _, f := range frames {
		env, err := parseEnvelope(f)
		if err != nil {
			if id, _, ok := probeID(f); ok && id > top {
				top = id
			}
			continue
		}
		pf := presentFrame{method: env.method, frame: f}
		if env.id != nil {
			id, ok := idValue(env.id)
			if !ok || id <= 0 {
				continue
			}
			pf.id = id
			top = max(top, id)
		}
		if env.method != "" {
			s.pre.frames = append(s.pre.frames, pf)
		}
	}
	if top > s.nextID.Load() {
		s.nextID.Store(top)
	}
	if len(s.pre.frames) > 0 {
		s.pre.answers = map[int64]*envelope{}
	}
}

// adoptRequest reports whether the request the session is about to send is
// already on the wire; if so it registers the call under the transcript's
// id (handing it the answer at once when it already came).
func (s *Session) adoptRequest(method string, params []byte) (int64, chan *envelope, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || len(s.pre.frames) == 0 {
		return 0, nil, false
	}
	for i := range s.pre.frames {
		f := &s.pre.frames[i]
		if f.state != presentWaiting || f.id == 0 || f.method != method {
			continue
		}
		if !bytes.Equal(f.frame, encodeRequest(strconv.AppendInt(nil, f.id, 10), method, params)) {
			continue
		}
		f.state = presentAdopted
		ch := make(chan *envelope, 1)
		if a, ok := s.pre.answers[f.id]; ok {
			delete(s.pre.answers, f.id)
			s.pre.kept -= envelopeSize(a)
			ch <- a
		} else {
			s.pending[f.id] = ch
		}
		return f.id, ch, true
	}
	return 0, nil, false
}

// adoptNotification reports whether the notification is already on the wire.
func (s *Session) adoptNotification(frame []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.pre.frames {
		f := &s.pre.frames[i]
		if f.state == presentWaiting && f.id == 0 && bytes.Equal(f.frame, frame) {
			f.state = presentAdopted
			return true
		}
	}
	return false
}

// keepEarly keeps an answer to a transcript request the session has not
// made (yet), reporting whether id was one. Past the byte bound the answer
// is dropped and the request marked lost: the session will send its own.
func (s *Session) keepEarly(id int64, env *envelope) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.pre.frames {
		f := &s.pre.frames[i]
		if f.id != id || f.state != presentWaiting {
			continue
		}
		if _, dup := s.pre.answers[id]; dup {
			return false // a second answer: the caller reports it
		}
		n := envelopeSize(env)
		if s.pre.kept+n > maxPresentBytes {
			f.state = presentLost
			return true
		}
		s.pre.answers[id] = env
		s.pre.kept += n
		return true
	}
	return false
}

func envelopeSize(e *envelope) int { return len(e.result) + len(e.id) + 64 }
