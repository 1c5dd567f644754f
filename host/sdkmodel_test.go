//go:build !js

package host_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestModelGoSDK runs seeded random interleavings of the model test's
// operations against a real go-sdk server over loopback (real time, so
// fewer of them): attach, concurrent attach, detach, quick re-attach,
// refresh, single and burst updates, deletes, re-creation and dropped
// connections. Once quiet, every attached copy is the server's latest
// version and fresh (or gone when deleted), and the updated events of each
// URI carry increasing versions.
func TestModelGoSDK(t *testing.T) {
	t.Parallel()
	runs := 50
	if testing.Short() {
		runs = 10
	}
	// Ten lanes at once (goroutines, not parallel subtests, which
	// -parallel would limit to two): a run mostly waits on loopback.
	var wg sync.WaitGroup
	for lane := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := uint64(lane + 1); seed <= uint64(runs) && !t.Failed(); seed += 10 {
				sdkRun(t, seed)
			}
		}()
	}
	wg.Wait()
}

func sdkRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 42))
	uris := []string{"docs://g/0", "docs://g/1", "docs://g/2"}
	docs := map[string]string{}
	ver := 0
	for _, u := range uris {
		ver++
		docs[u] = fmt.Sprintf("%s@v%d", u, ver)
	}
	d, url := newDocServer(t, docs)
	d.latency = time.Duration(rng.IntN(15)) * time.Millisecond
	var mu sync.Mutex
	lastVer := map[string]int{}
	var problems []string
	rec := newRecorder()
	o := &host.Options{RefreshDeadline: 2 * time.Second, BackoffMin: 10 * time.Millisecond, OnEvent: func(e host.Event) {
		if e.Type == host.EventUpdated {
			var v int
			fmt.Sscanf(e.Parts[0].Text[strings.LastIndex(e.Parts[0].Text, "@v")+2:], "%d", &v)
			mu.Lock()
			if v <= lastVer[e.URI] {
				problems = append(problems, fmt.Sprintf("updated %s v%d after v%d", e.URI, v, lastVer[e.URI]))
			}
			lastVer[e.URI] = v
			mu.Unlock()
		}
		select {
		case rec.ch <- e:
		default:
		}
	}}
	h, err := host.Connect(context.Background(), url, o)
	if err != nil {
		t.Errorf("seed %d: %v", seed, err)
		return
	}
	defer h.Close()
	exists := func(u string) bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		_, ok := d.docs[u]
		return ok
	}
	change := func(u string) {
		d.mu.Lock()
		ver++
		v := ver
		_, ok := d.docs[u]
		d.mu.Unlock()
		if ok {
			d.set(u, fmt.Sprintf("%s@v%d", u, v))
		}
	}
	var wg sync.WaitGroup
	var log []string
	for range 12 + rng.IntN(6) {
		u := uris[rng.IntN(len(uris))]
		switch k := rng.IntN(100); {
		case k < 25:
			log = append(log, "attach "+u)
			wg.Add(1)
			go func() { defer wg.Done(); h.Attach(context.Background(), u) }()
		case k < 32:
			log = append(log, "concurrent-attach "+u)
			for range 2 {
				wg.Add(1)
				go func() { defer wg.Done(); h.Attach(context.Background(), u) }()
			}
		case k < 40:
			log = append(log, "detach "+u)
			h.Detach(u)
		case k < 46:
			log = append(log, "detach+reattach "+u)
			h.Detach(u)
			wg.Add(1)
			go func() { defer wg.Done(); h.Attach(context.Background(), u) }()
		case k < 54:
			log = append(log, "refresh")
			wg.Add(1)
			go func() { defer wg.Done(); h.Refresh(context.Background()) }()
		case k < 70:
			log = append(log, "update "+u)
			change(u)
		case k < 76:
			log = append(log, "burst "+u)
			for range 5 {
				change(u)
			}
		case k < 82:
			if exists(u) {
				log = append(log, "delete "+u)
				d.mu.Lock()
				delete(d.docs, u)
				d.mu.Unlock()
				d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
			}
		case k < 88:
			if !exists(u) {
				log = append(log, "create "+u)
				d.mu.Lock()
				ver++
				d.docs[u] = fmt.Sprintf("%s@v%d", u, ver)
				d.mu.Unlock()
				d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
			}
		case k < 93:
			log = append(log, "drop-connection")
			d.mu.Lock()
			for _, c := range d.conns {
				c.Close()
			}
			d.mu.Unlock()
		default:
			log = append(log, "sleep")
			time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(8)) * time.Millisecond)
	}
	wg.Wait()
	// Quiet: no read for 150 ms.
	deadline := time.Now().Add(10 * time.Second)
	last, since := -1, time.Now()
	for time.Since(since) < 150*time.Millisecond && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n := 0
		for _, u := range uris {
			n += d.readsOf(u)
		}
		if n != last {
			last, since = n, time.Now()
		}
	}
	fail := func(f string, args ...any) {
		t.Errorf("seed %d: "+f, append([]any{seed}, args...)...)
	}
	// The quiet window says the engine has stopped reading; on a loaded
	// machine a read it still owes can come after it. The guarantee is
	// that every attached part converges to the server's state, so wait
	// for that (a lost update never converges and fails at the deadline).
	stale := func() (out []string) {
		for _, u := range h.AttachedURIs() {
			p := h.Attached(u)[0]
			d.mu.Lock()
			want, ok := d.docs[u]
			d.mu.Unlock()
			switch {
			case !ok && p.State != host.StateGone:
				out = append(out, fmt.Sprintf("%s deleted on the server but %s", u, p.State))
			case ok && (p.State != host.StateFresh || p.Text != want):
				out = append(out, fmt.Sprintf("%s holds %q (%s), the server %q", u, p.Text, p.State, want))
			}
		}
		return out
	}
	bad := stale()
	for len(bad) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		bad = stale()
	}
	for _, b := range bad {
		fail("%s", b)
	}
	mu.Lock()
	for _, p := range problems {
		fail("%s", p)
	}
	mu.Unlock()
	if t.Failed() {
		t.Logf("operations: %s", strings.Join(log, "; "))
	}
}
