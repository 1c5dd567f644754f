//go:build !js

package docserver

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// TestGateDecide is the gate's rule, case by case, with the flags'
// default thresholds.
func TestGateDecide(t *testing.T) {
	t.Parallel()
	g := Gate{Window: 720 * time.Hour, Reach: 0.20, Duplicates: 0.30, MinSessions: 50, Every: time.Hour}
	figs := func(sessions, reading, fetches, dups int64) Figures {
		return Figures{Sessions: sessions, Reading: reading, Fetches: fetches, Duplicates: dups}
	}
	cases := []struct {
		name   string
		on     bool
		f      Figures
		want   bool
		reason string
	}{
		{"too few sessions, off", false, figs(49, 0, 0, 0), false, "49 sessions in the window, fewer than 50: unchanged"},
		{"too few sessions, on", true, figs(10, 10, 10, 9), true, "fewer than 50: unchanged"},
		{"low reach gives it", false, figs(100, 10, 0, 0), true, "read reach 0.100 (10 of 100 sessions) < 0.20"},
		{"reach at the threshold: not given", false, figs(100, 20, 0, 0), false, "read reach 0.200 (20 of 100 sessions) ≥ 0.20: not gated"},
		{"high reach, off", false, figs(100, 90, 0, 0), false, "not gated"},
		{"on, reach within the hysteresis", true, figs(100, 25, 10, 3), true, "≤ 0.25 and duplicate rate 0.300 ≤ 0.30: kept"},
		{"on, reach above threshold + 0.05", true, figs(100, 26, 0, 0), false, "read reach 0.260 (26 of 100 sessions) > 0.25 (0.20 + 0.05 hysteresis)"},
		{"on, duplicates above", true, figs(100, 0, 10, 4), false, "duplicate rate 0.400 (4 of 10 fetch_document calls) > 0.30"},
		{"off, low reach but duplicates above: the duplicates rule wins", false, figs(100, 0, 10, 4), false, "duplicate rate 0.400"},
		{"no fetch calls: no duplicate rate", false, figs(50, 0, 0, 0), true, "read reach 0.000 (0 of 50 sessions) < 0.20"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := g.Decide(c.on, c.f)
			if got != c.want || !strings.Contains(why, c.reason) {
				t.Errorf("Decide(%v, %+v) = %v, %q; want %v, %q", c.on, c.f, got, why, c.want, c.reason)
			}
		})
	}
}

// recorder is a FiguresStore that keeps the events (the counting is what
// is under test here; package figures tests the SQLite store).
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) Record(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }
func (r *recorder) Figures(context.Context, time.Time) ([]Figures, error) {
	return nil, nil
}
func (r *recorder) SaveEvaluation(context.Context, time.Time, []Figures, []Decision, time.Time) error {
	return nil
}
func (r *recorder) Decisions(context.Context, int) ([]Decision, error)      { return nil, nil }
func (r *recorder) Series(context.Context, time.Time, int) ([]Point, error) { return nil, nil }
func (r *recorder) Persistent() bool                                        { return false }
func (r *recorder) Dropped() int64                                          { return 0 }
func (r *recorder) sessions() map[string][]Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[string][]Event{}
	for _, e := range r.events {
		m[e.Session] = append(m[e.Session], e)
	}
	return m
}

// TestSessionFigures checks what one session counts, over a real socket:
// its client (cut, and "unknown" without clientInfo), lists, reads,
// fetch_document calls and duplicate deliveries (a fetch of what it read
// or fetched), searches and links followed once per URI.
func TestSessionFigures(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	cfg := testConfig()
	cfg.Figures = rec
	cfg.Gate = Gate{Window: time.Hour, Reach: 0.2, Duplicates: 0.3, MinSessions: 1, Every: time.Hour}
	host, _ := startDocs(t, cfg, "", nil)
	ctx := context.Background()
	long := strings.Repeat("é", 100) // 200 bytes
	s := mcptest.Dial(t, host, &bridge.Options{ClientInfo: bridge.Implementation{Name: "resource-blind-demo", Version: long + "\x01"}})
	list, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := list.Items[0].URI, list.Items[1].URI
	if _, err := s.ReadResource(ctx, a); err != nil {
		t.Fatal(err)
	}
	fetch := func(uri string) {
		if _, err := s.CallTool(ctx, "fetch_document", map[string]any{"uri": uri}); err != nil {
			t.Fatal(err)
		}
	}
	fetch(a)                      // duplicate: read before
	fetch(b)                      // new
	fetch(b)                      // duplicate: fetched before
	fetch("docs://team/x/y/nope") // a fetch, not delivered
	raw, err := s.CallTool(ctx, "search_documents", map[string]any{"query": "incident"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []struct{ URI string } `json:"content"`
	}
	json.Unmarshal(raw, &res)
	if len(res.Content) < 2 {
		t.Fatalf("search: %s", raw)
	}
	link := res.Content[0].URI
	for range 2 { // followed once, however often read
		if _, err := s.ReadResource(ctx, link); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	u := mcptest.DialRaw(t, host, "")
	u.Send(`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	u.Answer("1", 10*time.Second, nil)
	u.Close()

	count := func(es []Event) map[EventKind]int {
		m := map[EventKind]int{}
		for _, e := range es {
			m[e.Kind]++
		}
		return m
	}
	var named, unknown []Event
	for _, es := range rec.sessions() {
		if es[0].Kind != EventSessionStart {
			t.Fatalf("a session's first event is %v, want the start", es[0].Kind)
		}
		if es[0].Client.Known {
			named = es
		} else {
			unknown = es
		}
	}
	if named == nil || unknown == nil {
		t.Fatalf("sessions: %+v", rec.sessions())
	}
	c := named[0].Client
	if c.Name != "resource-blind-demo" || len(c.Version) > maxClientVersion || strings.ContainsRune(c.Version, 1) || !strings.HasPrefix(c.Version, "éé") {
		t.Errorf("client %+v: the version must be cut to %d bytes of valid UTF-8 without control characters", c, maxClientVersion)
	}
	want := map[EventKind]int{EventSessionStart: 1, EventList: 1, EventRead: 3, EventFetch: 4, EventDuplicate: 2, EventSearch: 1}
	want[EventLinkFollowed] = 1
	if got := count(named); !maps.Equal(got, want) {
		t.Errorf("named session counted %v, want %v", got, want)
	}
	if got := count(unknown); !maps.Equal(got, map[EventKind]int{EventSessionStart: 1, EventList: 1}) || unknown[0].Client.Label() != "unknown (no clientInfo)" {
		t.Errorf("unknown session counted %v (%+v)", got, unknown[0].Client)
	}
}

// FuzzClientString checks cut, which bounds what a client's clientInfo
// puts into the figures: valid UTF-8, at most n bytes, no control
// characters, a prefix of the cleaned input, deterministic.
func FuzzClientString(f *testing.F) {
	for _, s := range []string{"", "claude-desktop", strings.Repeat("é", 100), "a\x00b\x1fc\x7f", "\xff\xfe<script>", "日本語のクライアント"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<10 {
			return
		}
		got := cut(s, n)
		if len(got) > n || !utf8.ValidString(got) || strings.ContainsFunc(got, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Fatalf("cut(%q, %d) = %q", s, n, got)
		}
		if cut(s, n) != got || cut(got, n) != got {
			t.Fatalf("cut(%q, %d) is not deterministic or idempotent", s, n)
		}
		if clean := cut(s, len(s)*3+3); !strings.HasPrefix(clean, got) {
			t.Fatalf("cut(%q, %d) = %q is not a prefix of %q", s, n, got, clean)
		}
	})
}
