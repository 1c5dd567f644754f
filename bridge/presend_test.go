//go:build !js

package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// presendPeer is a scripted server over a real loopback WebSocket: legacy
// (server/discover → -32601, then initialize) or modern (server/discover
// lists 2026-07-28, initialize → -32022). It serves pages of resources/list
// by cursor and records every request it received.
type presendPeer struct {
	modern   bool
	pages    int
	closeAt  string // a method after whose request the server closes ("" never)
	mu       sync.Mutex
	got      []string // "method id params", in order
	answered int      // answers written
}

func (p *presendPeer) record(method, id, params string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, method+" "+id+" "+params)
}

func (p *presendPeer) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, g := range p.got {
		if strings.HasPrefix(g, method+" ") {
			n++
		}
	}
	return n
}

func (p *presendPeer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(Endpoint(nil, func(ctx context.Context, c *Conn) {
		for {
			data, err := c.ReadRaw(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			json.Unmarshal(data, &m)
			p.record(m.Method, string(m.ID), string(m.Params))
			if p.closeAt == m.Method {
				c.Close()
				return
			}
			if m.ID == nil {
				continue
			}
			var out string
			ok := func(r string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, r) }
			fail := func(code int, msg string) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, m.ID, code, msg)
			}
			switch m.Method {
			case "server/discover":
				if p.modern {
					out = ok(`{"supportedVersions":["2026-07-28"],"capabilities":{"resources":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"p","version":"1"}}}`)
				} else {
					out = fail(-32601, "Method not found")
				}
			case "initialize":
				if p.modern {
					out = fail(-32022, "Unsupported protocol version")
				} else {
					out = ok(`{"protocolVersion":"2025-11-25","capabilities":{"resources":{}},"serverInfo":{"name":"p","version":"1"}}`)
				}
			case "resources/list":
				var q struct {
					Cursor string `json:"cursor"`
				}
				json.Unmarshal(m.Params, &q)
				i, _ := strconv.Atoi(q.Cursor)
				next := ""
				if i+1 < p.pages {
					next = fmt.Sprintf(`,"nextCursor":"%d"`, i+1)
				}
				out = ok(fmt.Sprintf(`{"resources":[{"uri":"test://r/%d","name":"r%d"}]%s}`, i, i, next))
			case "resources/templates/list":
				out = ok(`{"resourceTemplates":[]}`)
			default:
				out = fail(-32601, "Method not found")
			}
			if c.WriteRaw(ctx, []byte(out)) != nil {
				return
			}
			p.mu.Lock()
			p.answered++
			p.mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// earlySocket is a dialled socket carrying a transcript, as the page's glue
// hands one to Go: the frames come once.
type earlySocket struct {
	socket
	mu    sync.Mutex
	sent  [][]byte
	done  bool // the glue sends no more: transcript says so
	asked int  // calls of transcript
}

func (e *earlySocket) early() bool { return true }

func (e *earlySocket) transcript() ([][]byte, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked++
	out := e.sent
	e.sent = nil
	return out, !e.done
}

// The frames mcphost.js writes (web/mcphost.js startEarly), for the default
// clientInfo: they must equal what the session writes, byte for byte.
const (
	testMeta      = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcphost","version":"0.1.0"}}`
	frameDiscover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + testMeta + `}}`
	frameInit     = `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"mcphost","version":"0.1.0"},"protocolVersion":"2025-11-25"}}`
	frameInited   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func legacyTranscript(pages int) []string {
	t := []string{frameDiscover, frameInit, frameInited,
		`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}`}
	for i := 1; i < pages; i++ {
		t = append(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/list","params":{"cursor":"%d"}}`, 4+i, i))
	}
	return t
}

func modernTranscript() []string {
	return []string{frameDiscover,
		`{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"_meta":` + testMeta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/templates/list","params":{"_meta":` + testMeta + `}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/list","params":{"_meta":` + testMeta + `,"cursor":"1"}}`}
}

func testOptions() Options {
	return Options{ClientInfo: Implementation{Name: "mcphost", Version: "0.1.0"}, Capabilities: json.RawMessage(`{}`),
		Timeout: 5 * time.Second, ToolTimeout: 5 * time.Second, PageCap: 100, MaxDescriptors: 1000, MaxListBytes: 1 << 20}
}

// startEarly dials url, sends the transcript as the page would, waits (bounded)
// until the peer answered every request in it, then starts the session on
// that socket as Dial does.
func startEarly(t *testing.T, p *presendPeer, url string, frames []string, wantAnswers int) (*Session, []error, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, err := dialSocket(ctx, url, []string{Subprotocol})
	if err != nil {
		t.Fatal(err)
	}
	var sent [][]byte
	for _, f := range frames {
		if err := ws.write(ctx, []byte(f)); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, []byte(f))
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		p.mu.Lock()
		n := p.answered
		p.mu.Unlock()
		if n >= wantAnswers || time.Now().After(deadline) {
			break
		}
	}
	var mu sync.Mutex
	var perrs []error
	o := testOptions()
	o.OnProtocolError = func(err error) {
		mu.Lock()
		perrs = append(perrs, err)
		mu.Unlock()
	}
	s, err := startSession(ctx, url, &earlySocket{socket: ws, sent: sent}, o)
	mu.Lock()
	defer mu.Unlock()
	return s, perrs, err
}

func TestTranscriptAdopted(t *testing.T) {
	cases := []struct {
		name       string
		modern     bool
		transcript []string
		answers    int
		wantModern bool
		once       []string // methods the server must have received exactly once
		lists      int      // resources/list requests the server must have received
	}{
		{"legacy handshake and every page sent early", false, legacyTranscript(3), 6, false,
			[]string{"server/discover", "initialize", "notifications/initialized", "resources/templates/list"}, 3},
		{"modern handshake and the first pages sent early", true, modernTranscript(), 4, true,
			[]string{"server/discover", "resources/templates/list"}, 3},
		// Early frames Go does not want are answered and ignored; Go sends its own.
		{"legacy prediction, modern server", true, legacyTranscript(1), 4, true,
			[]string{"server/discover"}, 1 + 3},
		{"modern prediction, legacy server", false, modernTranscript(), 4, false,
			[]string{"server/discover", "initialize"}, 2 + 3},
		{"only the handshake's first frame", false, []string{frameDiscover}, 1, false,
			[]string{"server/discover", "initialize", "notifications/initialized", "resources/templates/list"}, 3},
		{"a transcript of another client (other clientInfo)", false,
			[]string{strings.Replace(frameDiscover, `"mcphost"`, `"other"`, 1)}, 1, false,
			[]string{"initialize", "notifications/initialized", "resources/templates/list"}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &presendPeer{modern: tc.modern, pages: 3}
			url := p.start(t)
			s, perrs, err := startEarly(t, p, url, tc.transcript, tc.answers)
			if err != nil {
				t.Fatalf("handshake: %v", err)
			}
			defer s.Close()
			if got := s.InitializeResult().ProtocolVersion == ProtocolModern; got != tc.wantModern {
				t.Fatalf("modern = %v, want %v (version %q)", got, tc.wantModern, s.InitializeResult().ProtocolVersion)
			}
			l, err := s.ListResources(context.Background(), nil)
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			if len(l.Items) != 3 || l.Items[2].URI != "test://r/2" {
				t.Fatalf("listed %+v", l.Items)
			}
			if _, err := s.ListTemplates(context.Background(), nil); err != nil {
				t.Fatalf("templates: %v", err)
			}
			for _, m := range tc.once {
				if n := p.count(m); n != 1 {
					t.Errorf("server got %s %d times, want once; requests: %q", m, n, p.got)
				}
			}
			// An early page the session adopted was not asked for again.
			if n := p.count("resources/list"); n != tc.lists {
				t.Errorf("server got resources/list %d times, want %d; requests: %q", n, tc.lists, p.got)
			}
			for _, e := range perrs {
				t.Errorf("protocol error reported: %v", e)
			}
		})
	}
}

// TestTranscriptPagesNotResent: with every page of a legacy listing sent
// early, the server sees each page request once.
func TestTranscriptPagesNotResent(t *testing.T) {
	p := &presendPeer{pages: 4}
	url := p.start(t)
	s, _, err := startEarly(t, p, url, legacyTranscript(4), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := s.ListResources(context.Background(), nil)
	if err != nil || len(l.Items) != 4 {
		t.Fatalf("list: %v %+v", err, l)
	}
	if n := p.count("resources/list"); n != 4 {
		t.Fatalf("server got resources/list %d times, want 4: %q", n, p.got)
	}
	// The session's own requests go past the transcript's ids.
	if err := s.Call(context.Background(), "ping", nil, nil); err == nil {
		t.Fatal("ping answered by a peer that does not implement it")
	}
	p.mu.Lock()
	last := p.got[len(p.got)-1]
	p.mu.Unlock()
	if want := fmt.Sprintf("ping %d ", presentIDs+1); !strings.HasPrefix(last, want) {
		t.Fatalf("session's first own request: %q, want id %d (past the glue's ids)", last, presentIDs+1)
	}
}

// TestTranscriptServerCloses: a server that closes after the early
// handshake fails the session with an error, never a hang.
func TestTranscriptServerCloses(t *testing.T) {
	p := &presendPeer{closeAt: "initialize"}
	url := p.start(t)
	_, _, err := startEarly(t, p, url, []string{frameDiscover, frameInit}, 1)
	if err == nil {
		t.Fatal("handshake succeeded against a closed connection")
	}
	if e, ok := AsError(err); !ok || e.Kind != KindUnavailable {
		t.Fatalf("error %v (%T), want kind unavailable", err, err)
	}
}

// TestTranscriptBounds: the kept early answers are bounded, and frames the
// glue could not have written (no method, an id past its range) are
// ignored.
func TestTranscriptBounds(t *testing.T) {
	s := &Session{pending: map[int64]chan *envelope{}}
	frames := [][]byte{[]byte(frameDiscover), []byte(`{"jsonrpc":"2.0","id":9,"method":`), []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`),
		[]byte(`{"jsonrpc":"2.0","id":65,"method":"resources/list"}`)}
	for i := 0; i < 2*maxPresentFrames; i++ {
		frames = append(frames, []byte(frameInited))
	}
	s.setPresent(&earlySocket{sent: frames})
	if len(s.pre.frames) > maxPresentFrames {
		t.Fatalf("%d frames kept, bound %d", len(s.pre.frames), maxPresentFrames)
	}
	for _, f := range s.pre.frames {
		if f.id > presentIDs || f.method == "" {
			t.Fatalf("kept %s", f.frame)
		}
	}
	if got := s.nextID.Load(); got != presentIDs {
		t.Fatalf("the session's ids start after %d, want %d", got, presentIDs)
	}
	big := &envelope{id: []byte("1"), result: make([]byte, maxPresentBytes)}
	if !s.keepEarly(1, big) {
		t.Fatal("an answer to the transcript's request was not recognised")
	}
	if len(s.pre.answers) != 0 || s.pre.frames[0].state != presentLost {
		t.Fatalf("an answer past the bound was kept (%d answers, state %d)", len(s.pre.answers), s.pre.frames[0].state)
	}
	// A lost request is made again by the session with an id of its own.
	if _, _, ok := s.adoptRequest("server/discover", []byte(`{"_meta":`+testMeta+`}`)); ok {
		t.Fatal("a request whose answer was dropped was adopted")
	}
	if s.keepEarly(5, &envelope{}) || s.keepEarly(presentIDs+1, &envelope{}) {
		t.Fatal("an id outside the transcript was kept")
	}
}

// lateTranscript starts a session on a socket whose glue sent the
// handshake and the first page of a 3-page legacy listing (first) and
// sends the rest later, through more.
func lateTranscript(t *testing.T) (p *presendPeer, s *Session, es *earlySocket, more func(done bool)) {
	t.Helper()
	p = &presendPeer{pages: 3}
	url := p.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	ws, err := dialSocket(ctx, url, []string{Subprotocol})
	if err != nil {
		t.Fatal(err)
	}
	es = &earlySocket{socket: ws}
	all := legacyTranscript(3)
	for _, f := range all[:5] { // handshake and first pages now, next pages later
		ws.write(ctx, []byte(f))
		es.sent = append(es.sent, []byte(f))
	}
	s, err = startSession(ctx, url, es, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	more = func(done bool) {
		es.mu.Lock()
		defer es.mu.Unlock()
		for _, f := range all[5:] {
			ws.write(ctx, []byte(f))
			es.sent = append(es.sent, []byte(f))
		}
		es.done = done
	}
	return p, s, es, more
}

// TestTranscriptLater: frames the glue sends after the session started
// (the next pages, as their cursors arrive) are adopted too, and an answer
// that comes before the session read the frame it answers is kept.
func TestTranscriptLater(t *testing.T) {
	p, s, _, more := lateTranscript(t)
	// The glue sends page 2 and 3 before the session asks (it sees each
	// answer first); the server answers them at once.
	more(false)
	l, err := s.ListResources(context.Background(), nil)
	if err != nil || len(l.Items) != 3 {
		t.Fatalf("list: %v %+v", err, l)
	}
	if n := p.count("resources/list"); n != 3 {
		t.Fatalf("server got resources/list %d times, want 3: %q", n, p.got)
	}
}

// TestTranscriptEnded: once the glue says it sends no more, the session
// stops asking it for frames, and the frames that came with that answer
// still count (the last pages are adopted, not sent again).
func TestTranscriptEnded(t *testing.T) {
	p, s, es, more := lateTranscript(t)
	ctx := context.Background()
	more(true) // the last pages go out with the glue's last word
	l, err := s.ListResources(ctx, nil)
	if err != nil || len(l.Items) != 3 {
		t.Fatalf("list: %v %+v", err, l)
	}
	if n := p.count("resources/list"); n != 3 {
		t.Fatalf("server got resources/list %d times, want 3 (a page sent with the last word was sent again): %q", n, p.got)
	}
	es.mu.Lock()
	asked := es.asked
	es.mu.Unlock()
	for range 3 {
		_ = s.Call(ctx, "ping", nil, nil) // the peer refuses it; only the asking counts
	}
	if _, err := s.ListTemplates(ctx, nil); err != nil {
		t.Fatal(err)
	}
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.asked != asked {
		t.Fatalf("transcript asked %d more times after the glue said it sends no more", es.asked-asked)
	}
}
