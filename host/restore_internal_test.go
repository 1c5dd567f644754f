package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// countingSession counts the watch changes a host asks for and the reads
// in flight at once.
type countingSession struct {
	session
	mu                  sync.Mutex
	watchCalls          int
	watched             int
	inflight, maxFlight int
}

func (c *countingSession) Watch(add, remove []string) {
	c.mu.Lock()
	if len(add) > 0 {
		c.watchCalls++
		c.watched += len(add)
	}
	c.mu.Unlock()
	c.session.Watch(add, remove)
}

func (c *countingSession) Read(ctx context.Context, uri string) (*bridge.ReadResult, error) {
	c.mu.Lock()
	c.inflight++
	c.maxFlight = max(c.maxFlight, c.inflight)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.inflight--
		c.mu.Unlock()
	}()
	return c.session.Read(ctx, uri)
}

// TestRestoreOneWatchBoundedReads: restoring 20 documents asks the session
// for one subscription change naming all of them, and never has more than
// restoreConcurrency reads in flight.
func TestRestoreOneWatchBoundedReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeServer{rng: rand.New(rand.NewPCG(1, 2)), docs: map[string]*fakeDoc{}, slow: map[string]time.Duration{}, deletes: map[string]int{}, notified: map[string]int{}}
		const n = 20
		snap := &Snapshot{Version: SnapshotVersion, Server: "fake://", DigestAlg: DigestAlg}
		for i := 0; i < n; i++ {
			uri := fmt.Sprintf("docs://m/%d", i)
			f.change(uri, true, false)
			ver, _ := f.latest(uri)
			sum := sha256.Sum256([]byte(text(uri, ver)))
			snap.Attachments = append(snap.Attachments, SnapshotAttachment{URI: uri, State: StateFresh,
				Parts: []SnapshotPart{{URI: uri, Kind: "text", MIMEType: "text/plain", Digest: hex.EncodeToString(sum[:])}}})
		}
		var cs *countingSession
		dial := func(ctx context.Context, w bridge.Watcher, p string) (session, error) {
			s, err := f.dial(ctx, w, p)
			if err != nil {
				return nil, err
			}
			cs = &countingSession{session: s}
			return cs, nil
		}
		h, err := connect(context.Background(), "fake://", dial, &Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		res, err := h.Restore(context.Background(), snap)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Outcome != OutcomeUnchanged {
				t.Errorf("%s: %s (%v), want unchanged", r.URI, r.Outcome, r.Err)
			}
		}
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if cs.watchCalls != 1 || cs.watched != n {
			t.Errorf("%d watch changes for %d URIs, want 1 for %d", cs.watchCalls, cs.watched, n)
		}
		if cs.maxFlight > restoreConcurrency || cs.maxFlight < 2 {
			t.Errorf("%d reads in flight at most, want 2..%d", cs.maxFlight, restoreConcurrency)
		}
		if got := len(h.AttachedURIs()); got != n {
			t.Errorf("%d attached, want %d", got, n)
		}
	})
}
