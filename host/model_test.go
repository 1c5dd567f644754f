package host

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// The model-based test of the freshness engine: a fake server with versioned
// documents and scripted latencies behind the host's session interface, run
// under testing/synctest (virtual time; the bubble proves that no goroutine
// outlives Close). Each run is a seeded random interleaving of operations; the
// invariants are checked on every event and once the run is quiet.

var (
	modelRuns = flag.Int("model.runs", 2000, "interleavings of TestModel")
	modelSeed = flag.Uint64("model.seed", 0, "run only this seed of TestModel")
)

// fakeServer holds versioned documents. A read takes its snapshot when the
// request arrives (like go-sdk), then answers after the scripted latency.
type fakeServer struct {
	mu       sync.Mutex
	rng      *rand.Rand
	docs     map[string]*fakeDoc
	ver      int // global version counter: every change gets a new one
	sessions []*fakeSession
	slow     map[string]time.Duration // extra latency of reads of a URI
	deletes  map[string]int
	notified map[string]int // version of the last change subscribers were told of
	// resubscribe counts Watch additions of a URI whose removal was still
	// queued or in flight (detach then quick re-attach).
	requeued int
}

type fakeDoc struct {
	ver    int
	exists bool
}

func (f *fakeServer) delay() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return time.Duration(1+f.rng.IntN(8)) * time.Millisecond
}

func text(uri string, ver int) string { return uri + "@v" + strconv.Itoa(ver) }

// change bumps uri's version (creating or deleting it) and notifies the
// sessions subscribed to it; notify false is a silent change (a tool).
func (f *fakeServer) change(uri string, exists, notify bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.docs[uri]
	if d == nil {
		d = &fakeDoc{}
		f.docs[uri] = d
	}
	listChange := d.exists != exists
	if d.exists && !exists {
		f.deletes[uri]++
	}
	f.ver++
	d.ver, d.exists = f.ver, exists
	if notify {
		f.notified[uri] = f.ver
	}
	for _, s := range f.sessions {
		if notify && s.subs[uri] {
			s.push(time.Duration(1+f.rng.IntN(5))*time.Millisecond, func() { s.w.Updated(uri) })
		}
		if listChange {
			s.push(time.Duration(1+f.rng.IntN(5))*time.Millisecond, s.w.ListChanged)
		}
	}
}

func (f *fakeServer) latest(uri string) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.docs[uri]
	if d == nil {
		return 0, false
	}
	return d.ver, d.exists
}

// fakeSession is one connection. Deliveries to the host (acks, updates,
// list changes) go through one FIFO, as over one socket.
type fakeSession struct {
	f     *fakeServer
	w     bridge.Watcher
	done  chan struct{}
	once  sync.Once
	inbox chan delivery
	watch chan watchOp
	subs  map[string]bool // guarded by f.mu
	queue map[string]int  // removals queued or in flight, by URI (f.mu)
	ops   map[string]int  // watch operations queued or in flight, by URI (f.mu)
	wg    sync.WaitGroup
}

type delivery struct {
	at time.Time
	f  func()
}

type watchOp struct {
	uri string
	add bool
}

func (f *fakeServer) dial(ctx context.Context, w bridge.Watcher, _ string) (session, error) {
	select {
	case <-time.After(f.delay()):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s := &fakeSession{f: f, w: w, done: make(chan struct{}), inbox: make(chan delivery, 1<<14),
		watch: make(chan watchOp, 1<<14), subs: map[string]bool{}, queue: map[string]int{}, ops: map[string]int{}}
	f.mu.Lock()
	f.sessions = append(f.sessions, s)
	f.mu.Unlock()
	s.wg.Add(2)
	go s.deliver()
	go s.watcher()
	return s, nil
}

// push queues a delivery after d (f.mu may be held).
func (s *fakeSession) push(d time.Duration, fn func()) {
	select {
	case s.inbox <- delivery{time.Now().Add(d), fn}:
	default:
		panic("fake session inbox full")
	}
}

func (s *fakeSession) deliver() {
	defer s.wg.Done()
	for {
		select {
		case m := <-s.inbox:
			select {
			case <-time.After(time.Until(m.at)):
			case <-s.done:
				return
			}
			select {
			case <-s.done:
				return
			default:
				m.f()
			}
		case <-s.done:
			return
		}
	}
}

// watcher applies watch operations one at a time, in order: the request
// travels, the server applies it, the answer travels back.
func (s *fakeSession) watcher() {
	defer s.wg.Done()
	for {
		var op watchOp
		select {
		case op = <-s.watch:
		case <-s.done:
			return
		}
		// A subscription takes a while to reach the server (up to 30 ms),
		// so a read sent without waiting for it would often snapshot a
		// version whose successor is never notified.
		s.f.mu.Lock()
		d := time.Duration(1+s.f.rng.IntN(30)) * time.Millisecond
		s.f.mu.Unlock()
		if !s.sleep(d) {
			return
		}
		s.f.mu.Lock()
		s.subs[op.uri] = op.add
		s.ops[op.uri]--
		if !op.add {
			s.queue[op.uri]--
		}
		// The Watcher contract: every addition answered once, in order;
		// an Acked may be followed by a removal still queued (the host
		// counts answers, so that one lets no read start).
		if op.add {
			u := op.uri
			s.push(time.Duration(1+s.f.rng.IntN(8))*time.Millisecond, func() { s.w.Acked(u) })
		}
		s.f.mu.Unlock()
	}
}

func (s *fakeSession) sleep(d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-s.done:
		return false
	}
}

func (s *fakeSession) kill() {
	s.once.Do(func() { close(s.done) })
}

func (s *fakeSession) Supports(method string) bool { return method != "resources/templates/list" }

func (s *fakeSession) Watch(add, remove []string) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	for _, u := range remove {
		s.queue[u]++
		s.ops[u]++
		s.watch <- watchOp{u, false}
	}
	for _, u := range add {
		if s.queue[u] > 0 {
			s.f.requeued++
		}
		s.ops[u]++
		s.watch <- watchOp{u, true}
	}
}

var errLost = &bridge.Error{Kind: bridge.KindUnavailable, Message: "connection lost", Err: bridge.ErrConnectionLost}

func (s *fakeSession) wait(ctx context.Context, d time.Duration, method, uri string) error {
	select {
	case <-time.After(d):
		return nil
	case <-s.done:
		return errLost
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &bridge.Error{Kind: bridge.KindTimeout, Method: method, URI: uri, Message: "no response before the deadline", Err: bridge.ErrTimeout}
		}
		return &bridge.Error{Kind: bridge.KindCancelled, Method: method, URI: uri, Message: "cancelled", Err: ctx.Err()}
	}
}

func (s *fakeSession) Read(ctx context.Context, uri string) (*bridge.ReadResult, error) {
	if err := s.wait(ctx, s.f.delay(), "resources/read", uri); err != nil {
		return nil, err
	}
	s.f.mu.Lock()
	d := s.f.docs[uri]
	ver, exists := 0, false
	if d != nil {
		ver, exists = d.ver, d.exists
	}
	lat := s.f.slow[uri] + time.Duration(s.f.rng.IntN(40))*time.Millisecond
	s.f.mu.Unlock()
	if err := s.wait(ctx, lat+s.f.delay(), "resources/read", uri); err != nil {
		return nil, err
	}
	if !exists {
		return nil, &bridge.Error{Kind: bridge.KindNotFound, Code: bridge.CodeInvalidParams, Method: "resources/read", URI: uri, Message: "resource not found"}
	}
	t := text(uri, ver)
	return &bridge.ReadResult{Contents: []bridge.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: &t}}}, nil
}

func (s *fakeSession) ListResources(ctx context.Context, onPage bridge.PageFunc[bridge.Resource]) (*bridge.List[bridge.Resource], error) {
	s.f.mu.Lock()
	var rs []bridge.Resource
	for u, d := range s.f.docs {
		if d.exists {
			rs = append(rs, bridge.Resource{URI: u, Name: u})
		}
	}
	s.f.mu.Unlock()
	sort.Slice(rs, func(i, j int) bool { return rs[i].URI < rs[j].URI })
	if err := s.wait(ctx, 2*s.f.delay(), "resources/list", ""); err != nil {
		return &bridge.List[bridge.Resource]{}, err
	}
	onPage(rs, nil)
	return &bridge.List[bridge.Resource]{Items: rs, Pages: 1}, nil
}

func (s *fakeSession) ListTemplates(context.Context, bridge.PageFunc[bridge.ResourceTemplate]) (*bridge.List[bridge.ResourceTemplate], error) {
	return &bridge.List[bridge.ResourceTemplate]{}, nil
}

func (s *fakeSession) ListTools(context.Context) (*bridge.List[bridge.Tool], error) {
	return &bridge.List[bridge.Tool]{}, nil
}

func (s *fakeSession) Complete(context.Context, string, string, string, map[string]string) (*bridge.Completion, error) {
	return &bridge.Completion{}, nil
}

// CallTool "edit": changes the document silently (as server-everything's
// gzip-file-as-resource does) and links to it.
func (s *fakeSession) CallTool(ctx context.Context, name string, args any) (json.RawMessage, error) {
	uri := args.(map[string]string)["uri"]
	if err := s.wait(ctx, s.f.delay(), "tools/call", ""); err != nil {
		return nil, err
	}
	s.f.change(uri, true, false)
	if err := s.wait(ctx, s.f.delay(), "tools/call", ""); err != nil {
		return nil, err
	}
	b, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "resource_link", "uri": uri, "name": uri}}})
	return b, nil
}

func (s *fakeSession) InitializeResult() bridge.InitializeResult { return bridge.InitializeResult{} }
func (s *fakeSession) Done() <-chan struct{}                     { return s.done }
func (s *fakeSession) Err() error {
	select {
	case <-s.done:
		return errLost
	default:
		return nil
	}
}

func (s *fakeSession) Close() error {
	s.kill()
	s.wg.Wait()
	return nil
}

// modelStats counts how often each race window opened, over all runs.
type modelStats struct {
	mu      sync.Mutex
	windows map[string]int
	ops     map[string]int
}

func (m *modelStats) add(kind map[string]int, k string) {
	m.mu.Lock()
	kind[k]++
	m.mu.Unlock()
}

// checker holds the per-run invariants checked on every event.
type checker struct {
	mu        sync.Mutex
	f         *fakeServer
	problems  []string
	lastVer   map[string]int // version of the last updated event per URI
	gone      map[string]bool
	goneN     map[string]int
	events    []string
	lastStale map[string]string
}

func verOf(t *string) int {
	if t == nil {
		return -1
	}
	i := strings.LastIndex(*t, "@v")
	n, _ := strconv.Atoi((*t)[i+2:])
	return n
}

func (c *checker) on(e Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e.Type+" "+e.URI)
	switch e.Type {
	case EventUpdated:
		v := verOf(&e.Parts[0].Text)
		if v <= c.lastVer[e.URI] {
			c.problems = append(c.problems, fmt.Sprintf("updated %s with v%d after v%d: no content change or a regression", e.URI, v, c.lastVer[e.URI]))
		}
		c.lastVer[e.URI] = v
	case EventStale:
		c.lastStale[e.URI] = e.Reason
	case EventGone:
		c.goneN[e.URI]++
	}
}

// applied is the engine's trace of every applied copy: versions per URI must
// never go backwards.
func (c *checker) applied(uri string, ver int, last map[string]int) {
	if ver < last[uri] {
		c.problems = append(c.problems, fmt.Sprintf("%s applied v%d after v%d", uri, ver, last[uri]))
	}
	last[uri] = ver
}

func TestModel(t *testing.T) {
	runs := *modelRuns
	if testing.Short() {
		runs = 200
	}
	stats := &modelStats{windows: map[string]int{}, ops: map[string]int{}}
	seeds := make([]uint64, 0, runs)
	if *modelSeed != 0 {
		seeds = append(seeds, *modelSeed)
	} else {
		for i := range runs {
			seeds = append(seeds, uint64(i+1))
		}
	}
	// Two shards at once (goroutines; the bubbles are independent and this
	// machine has two cores), beside the other parallel tests.
	t.Parallel()
	var wg sync.WaitGroup
	for shard := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := shard; i < len(seeds); i += 2 {
				if !runModel(t, seeds[i], stats) {
					t.Errorf("seed %d failed: rerun with go test ./host -run TestModel -model.seed=%d -v", seeds[i], seeds[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var ws []string
	for k, n := range stats.windows {
		ws = append(ws, fmt.Sprintf("  %-62s %6d", k, n))
	}
	sort.Strings(ws)
	var ops []string
	for k, n := range stats.ops {
		ops = append(ops, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(ops)
	report := fmt.Sprintf("host model test: %d interleavings; operations: %s; race windows hit:\n%s\n", len(seeds), strings.Join(ops, " "), strings.Join(ws, "\n"))
	t.Log(report)
	if f := os.Getenv("MCPHOST_MODEL_REPORT"); f != "" {
		os.WriteFile(f, []byte(report), 0o644)
	}
	for _, w := range []string{"update during first attach", "update during a read", "re-attach while a read is in flight",
		"read applied while another is demanded (sustained progress)", "refresh while a read is in flight", "reconnect during attach",
		"list_changed coalesced", "tool result names an attached document", "detach then quick re-attach", "concurrent attach joins a pending one",
		"stale watch answer ignored"} {
		if stats.windows[w] == 0 && len(seeds) >= 200 {
			t.Errorf("race window %q never hit: the model does not exercise it", w)
		}
	}
}

func runModel(t *testing.T, seed uint64, stats *modelStats) (ok bool) {
	ok = true
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(seed, seed*7919))
		f := &fakeServer{rng: rand.New(rand.NewPCG(seed, 1)), docs: map[string]*fakeDoc{}, slow: map[string]time.Duration{}, deletes: map[string]int{}, notified: map[string]int{}}
		nDocs := 3 + rng.IntN(3)
		uris := make([]string, nDocs)
		for i := range uris {
			uris[i] = fmt.Sprintf("docs://m/%d", i)
			f.change(uris[i], i < nDocs-1, false) // the last one does not exist yet
		}
		c := &checker{f: f, lastVer: map[string]int{}, gone: map[string]bool{}, goneN: map[string]int{}, lastStale: map[string]string{}}
		lastApplied := map[string]int{}
		opts := &Options{OnEvent: c.on, Timeout: 2 * time.Second, RefreshDeadline: 300 * time.Millisecond, BackoffMin: 20 * time.Millisecond, BackoffMax: 500 * time.Millisecond}
		h, err := connect(context.Background(), "fake://", f.dial, opts)
		if err != nil {
			t.Fatal(err)
		}
		h.trace = func(w string) { stats.add(stats.windows, w) }
		h.traceApplied = func(uri string, text *string, gone bool) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if gone {
				if c.gone[uri] {
					c.problems = append(c.problems, fmt.Sprintf("gone %s twice for one disappearance", uri))
				}
				c.gone[uri] = true
				return
			}
			c.gone[uri] = false
			c.applied(uri, verOf(text), lastApplied)
		}
		var wg sync.WaitGroup
		var log []string
		async := func(name string, fn func()) {
			log = append(log, name)
			stats.add(stats.ops, strings.Fields(name)[0])
			wg.Add(1)
			go func() { defer wg.Done(); fn() }()
		}
		nOps := 20 + rng.IntN(10)
		for range nOps {
			u := uris[rng.IntN(len(uris))]
			switch k := rng.IntN(100); {
			case k < 14:
				async("attach "+u, func() { h.Attach(context.Background(), u) })
			case k < 18:
				// attach, then a change a few ms later: lands while the
				// subscription is on its way.
				async("attach+update "+u, func() { h.Attach(context.Background(), u) })
				time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
				if _, exists := f.latest(u); exists {
					f.change(u, true, true)
				}
			case k < 23:
				async("concurrent-attach "+u, func() {
					var w sync.WaitGroup
					for range 2 {
						w.Add(1)
						go func() { defer w.Done(); h.Attach(context.Background(), u) }()
					}
					w.Wait()
				})
			case k < 31:
				log = append(log, "detach "+u)
				stats.add(stats.ops, "detach")
				h.Detach(u)
			case k < 35:
				log = append(log, "detach+reattach "+u)
				stats.add(stats.ops, "detach+reattach")
				h.Detach(u)
				async("reattach "+u, func() { h.Attach(context.Background(), u) })
			case k < 43:
				async("refresh", func() { h.Refresh(context.Background()) })
			case k < 55:
				log = append(log, "update "+u)
				stats.add(stats.ops, "update")
				if _, exists := f.latest(u); exists {
					f.change(u, true, true)
				}
			case k < 60:
				n := 2 + rng.IntN(6)
				async(fmt.Sprintf("burst %s x%d", u, n), func() {
					for range n {
						if _, exists := f.latest(u); exists {
							f.change(u, true, true)
						}
						time.Sleep(time.Millisecond)
					}
				})
			case k < 64:
				async("sustained "+u, func() {
					for range 20 {
						if _, exists := f.latest(u); exists {
							f.change(u, true, true)
						}
						time.Sleep(15 * time.Millisecond)
					}
				})
			case k < 69:
				log = append(log, "delete "+u)
				stats.add(stats.ops, "delete")
				if _, exists := f.latest(u); exists {
					f.change(u, false, true)
				}
			case k < 74:
				log = append(log, "create "+u)
				stats.add(stats.ops, "create")
				if _, exists := f.latest(u); !exists {
					f.change(u, true, true)
				}
			case k < 79:
				log = append(log, "list-changed-burst")
				stats.add(stats.ops, "list-changed-burst")
				f.mu.Lock()
				for _, s := range f.sessions {
					for range 5 {
						s.push(time.Millisecond, s.w.ListChanged)
					}
				}
				f.mu.Unlock()
			case k < 84:
				log = append(log, "reconnect")
				stats.add(stats.ops, "reconnect")
				h.mu.Lock()
				s := h.sess
				h.mu.Unlock()
				s.(*fakeSession).kill()
			case k < 89:
				d := time.Duration(100+rng.IntN(400)) * time.Millisecond
				log = append(log, fmt.Sprintf("slow %s %v", u, d))
				stats.add(stats.ops, "slow")
				f.mu.Lock()
				f.slow[u] = d
				f.mu.Unlock()
				async("unslow "+u, func() {
					time.Sleep(time.Second)
					f.mu.Lock()
					delete(f.slow, u)
					f.mu.Unlock()
				})
			case k < 94:
				async("tool-edit "+u, func() {
					if _, exists := f.latest(u); !exists {
						return
					}
					tr, err := h.CallTool(context.Background(), "edit", map[string]string{"uri": u})
					if err != nil || h.Attached(u) == nil {
						return
					}
					// The link was confirmed before the filter decided:
					// unless a later change raced it, the context holds
					// at least the version the tool made.
					_ = tr
				})
			default:
				d := time.Duration(rng.IntN(120)) * time.Millisecond
				log = append(log, fmt.Sprintf("sleep %v", d))
				time.Sleep(d)
			}
			if rng.IntN(3) == 0 {
				time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
			}
		}
		wg.Wait()
		time.Sleep(30 * time.Second) // quiet: reconnects, retries and re-reads settle
		synctest.Wait()

		fail := func(format string, args ...any) {
			ok = false
			t.Errorf("seed %d: "+format, append([]any{seed}, args...)...)
		}
		h.mu.Lock()
		seen := map[string]bool{}
		for _, u := range h.order {
			e := h.atts[u]
			if seen[u] {
				fail("%s twice in the context", u)
			}
			seen[u] = true
			if e.phase != phaseAttached {
				fail("%s still %v once quiet", u, e.phase)
				continue
			}
			ver, exists := f.latest(u)
			p := e.parts[0]
			switch {
			case !exists && (p.State != StateGone || !e.gone):
				fail("%s deleted on the server but %s in the context", u, p.State)
			case exists && p.State == StateStale && strings.Contains(c.lastStale[u], "in time"):
				// A refresh or confirming read cut at its deadline (reads
				// were scripted slower): stale is the truth. A silent change
				// (a tool's) may then be unseen, but never a notified one.
				if v := verOf(&p.Text); v < f.notified[u] {
					fail("%s stale by deadline holds v%d, but v%d was notified", u, v, f.notified[u])
				}
			case exists && p.State != StateFresh:
				fail("%s is %s once quiet (want fresh): %v (last stale reason %q)", u, p.State, p.Warnings, c.lastStale[u])
			case exists && p.Text != text(u, ver):
				fail("%s holds %q, the server v%d", u, p.Text, ver)
			}
		}
		h.mu.Unlock()
		c.mu.Lock()
		for _, p := range c.problems {
			fail("%s", p)
		}
		for u, n := range c.goneN {
			if n > f.deletes[u]+0 && f.deletes[u] < n {
				fail("%s: %d gone events for %d deletions", u, n, f.deletes[u])
			}
		}
		c.mu.Unlock()
		h.Close()
		if !ok {
			t.Logf("operations: %s", strings.Join(log, "; "))
			t.Logf("events: %s", strings.Join(c.events, "; "))
		}
		f.mu.Lock()
		stats.mu.Lock()
		stats.windows["detach then quick re-attach"] += f.requeued
		stats.mu.Unlock()
		f.mu.Unlock()
		// Close waited for every goroutine the host started; the bubble
		// fails the test if anything is left blocked.
		f.mu.Lock()
		for _, s := range f.sessions {
			s.kill()
		}
		f.mu.Unlock()
	})
	return ok
}
