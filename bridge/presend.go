package bridge

import (
	"bytes"
	"strconv"
)

// Requests the page's glue sent on the session's socket (the transcript).
//
// In the page, mcphost.js opens the WebSocket as soon as connect() is
// called and, while the module downloads and compiles, sends the frames the
// session will want: the handshake, notifications/initialized, the first
// resources/list and resources/templates/list pages and each next page by
// the previous answer's nextCursor, which it keeps doing (it sees every
// answer before the session does) after the session took the socket over.
// Answers wait in the socket's queue and arrive through the read loop.
//
// The session stays the decider. It runs its handshake and listing exactly
// as it would have without a transcript; each frame it is about to send is
// compared, byte for byte, with the frames the glue sent (read from it
// anew each time), and one already on the wire is not sent again: the call
// waits for the answer to the glue's id instead, and that answer is
// validated as any other. A frame the glue did not send (the server spoke
// another revision, refused, answered something unexpected) is sent as
// usual. The glue's ids are 1 to [presentIDs]; the session's own start
// past them, so answers to requests nobody adopts are never mistaken for
// the session's; they are kept (bounded) until adopted, or dropped.

// Bounds on a transcript: its frames, and the bytes of early answers kept
// for requests the session has not (yet) made itself.
const (
	maxPresentFrames = 64 // web/mcphost.js EARLY_MAX_FRAMES
	maxPresentBytes  = 16 << 20
	// presentIDs is the id range the glue uses (one id per frame at most).
	presentIDs = maxPresentFrames
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
	src     transcripted // nil: the socket is the session's alone
	ended   bool         // src said it sends no more: nothing left to pull
	frames  []presentFrame
	answers map[int64]*envelope // answers to waiting requests, until adopted
	kept    int                 // bytes held in answers
}

// setPresent makes the session read the transcript of src, and start its
// own ids past the glue's.
func (s *Session) setPresent(src transcripted) {
	s.pre.src = src
	s.pre.answers = map[int64]*envelope{}
	s.nextID.Store(presentIDs)
	s.pullPresent()
}

// pullPresent reads the frames the glue sent since the last call. A frame
// that is not a request or notification the client could have written is
// ignored; one with an id past the glue's range too (the glue never writes
// one). s.mu is held, or the session is not running yet.
func (s *Session) pullPresent() {
	if s.pre.src == nil || s.pre.ended {
		return
	}
	frames, more := s.pre.src.transcript()
	s.pre.ended = !more
	for _, f := range frames {
		if len(s.pre.frames) >= maxPresentFrames {
			return
		}
		env, err := parseEnvelope(f)
		if err != nil || env.method == "" {
			continue
		}
		pf := presentFrame{method: env.method, frame: f}
		if env.id != nil {
			id, ok := idValue(env.id)
			if !ok || id <= 0 || id > presentIDs {
				continue
			}
			pf.id = id
		}
		s.pre.frames = append(s.pre.frames, pf)
	}
}

// adoptRequest reports whether the request the session is about to send is
// already on the wire; if so it registers the call under the transcript's
// id (handing it the answer at once when it already came).
func (s *Session) adoptRequest(method string, params []byte) (int64, chan *envelope, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.pre.src == nil {
		return 0, nil, false
	}
	s.pullPresent()
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
	s.pullPresent()
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
	if s.pre.src == nil || id <= 0 || id > presentIDs {
		return false
	}
	s.pullPresent() // the glue may have sent it since the last look
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
