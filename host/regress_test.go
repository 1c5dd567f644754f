//go:build !js

package host_test

// Regression tests for the freshness defects of issue 12, one each, against a
// go-sdk server over a real loopback WebSocket. They use only the host's
// public API, so each can be run against the engine it replaced.

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// For #12: a change made while the first read is in flight (after the
// server took its snapshot) must reach the attachment. The old engine read,
// then subscribed: the notification went to nobody and the attachment said
// fresh with the old copy.
func TestRegressFirstAttachSeesChangeDuringRead(t *testing.T) {
	t.Parallel()
	const u = "docs://r/first"
	d, url := newDocServer(t, map[string]string{u: "v1"})
	h, _ := connect(t, url, nil)
	gate := make(chan struct{})
	d.mu.Lock()
	d.gate[u] = gate
	d.mu.Unlock()
	done := make(chan error, 1)
	go func() { _, err := h.Attach(context.Background(), u); done <- err }()
	eventually(t, "first read in flight", func() bool { return d.readsOf(u) == 1 })
	d.mu.Lock()
	delete(d.gate, u)
	d.mu.Unlock()
	d.set(u, "v2") // the server changes the document under the read
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	eventually(t, "attachment holds v2", func() bool { return text(t, h, u) == "v2" })
	if p := h.Attached(u)[0]; p.State != host.StateFresh {
		t.Fatalf("state %s", p.State)
	}
}

// For #12: a re-attach whose read started before an update must not
// overwrite the newer copy the update applied.
func TestRegressReattachDoesNotOverwriteNewer(t *testing.T) {
	t.Parallel()
	const u = "docs://r/reattach"
	d, url := newDocServer(t, map[string]string{u: "v1"})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })
	gate := make(chan struct{})
	d.mu.Lock()
	d.gate[u] = gate
	d.docs[u] = "v2"
	d.mu.Unlock()
	done := make(chan error, 1)
	go func() { _, err := h.Attach(context.Background(), u); done <- err }()
	eventually(t, "re-attach read in flight", func() bool { return d.readsOf(u) == 2 })
	d.mu.Lock()
	delete(d.gate, u)
	d.mu.Unlock()
	d.set(u, "v3")
	// The old engine applied v3 in a parallel read here; the new one reads
	// one at a time and applies v3 after the re-attach's read.
	for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if slicesContainsUpdated(rec.events(), "v3") {
			break
		}
	}
	close(gate) // the re-attach's v2 lands now
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	quiet(t, d, u)
	if got := text(t, h, u); got != "v3" {
		t.Fatalf("context holds %q after the re-attach; want v3 (the server's version)", got)
	}
}

// For #12: under an update every 30 ms with 60 ms reads for 2 s, updates
// must keep arriving while the stream lasts, and end on the last version.
// The old engine discarded every read an update overtook: none applied.
func TestRegressSustainedUpdatesDoNotStarve(t *testing.T) {
	t.Parallel()
	const u = "docs://r/hot"
	d, url := newDocServer(t, map[string]string{u: "v0"})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })
	d.mu.Lock()
	d.latency = 60 * time.Millisecond
	d.mu.Unlock()
	var last string
	stop := time.Now().Add(2 * time.Second)
	for i := 1; time.Now().Before(stop); i++ {
		last = "v" + itoa(i)
		d.set(u, last)
		time.Sleep(30 * time.Millisecond)
	}
	during := rec.count(host.EventUpdated)
	if during < 8 {
		t.Errorf("%d updated events during a 2 s stream; want at least 8 (progress, not starvation)", during)
	}
	eventually(t, "last version", func() bool { return text(t, h, u) == last })
}

// For #12: refresh must never regress: an update during the refresh ends
// applied and fresh. The old engine applied it in a parallel read, then its
// timed-out refresh read marked the fresh copy stale (and lowered appliedSeq),
// so it stayed stale.
func TestRegressRefreshDoesNotRegress(t *testing.T) {
	t.Parallel()
	const u = "docs://r/refresh"
	d, url := newDocServer(t, map[string]string{u: "v1"})
	h, rec := connect(t, url, &host.Options{RefreshDeadline: 300 * time.Millisecond})
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })
	gate := make(chan struct{})
	d.mu.Lock()
	d.gate[u] = gate // the refresh read takes snapshot v2 and blocks
	d.docs[u] = "v2"
	d.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- h.Refresh(context.Background()) }()
	eventually(t, "refresh read in flight", func() bool { return d.readsOf(u) == 2 })
	d.mu.Lock()
	delete(d.gate, u)
	d.mu.Unlock()
	d.set(u, "v3") // an update applies v3 during the refresh
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	close(gate)
	quiet(t, d, u)
	p := h.Attached(u)[0]
	if p.Text != "v3" || p.State != host.StateFresh {
		t.Fatalf("after refresh: %q %s (stale events: %d); want v3 fresh", p.Text, p.State, rec.count(host.EventStale))
	}
}

// For #12: a connection lost while an attach is in flight must not leave
// the attachment subscribed on the dead session only (or fail the attach):
// it completes on the next session, and updates keep coming.
func TestRegressReconnectDuringAttach(t *testing.T) {
	t.Parallel()
	const u = "docs://r/reconnect"
	d, url := newDocServer(t, map[string]string{u: "v1"})
	h, rec := connect(t, url, nil)
	gate := make(chan struct{})
	d.mu.Lock()
	d.gate[u] = gate
	d.mu.Unlock()
	done := make(chan error, 1)
	go func() { _, err := h.Attach(context.Background(), u); done <- err }()
	eventually(t, "first read in flight", func() bool { return d.readsOf(u) == 1 })
	d.mu.Lock()
	delete(d.gate, u)
	for _, c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	rec.wait(t, host.EventDisconnected, "")
	if err := <-done; err != nil {
		t.Fatalf("attach across a reconnect: %v", err)
	}
	close(gate)
	rec.wait(t, host.EventReconnected, "")
	d.set(u, "v2")
	eventually(t, "update after the reconnect", func() bool { return text(t, h, u) == "v2" })
}

// For #12: detach then an immediate re-attach must leave the URI subscribed
// (the old engine's fire-and-forget unsubscribe could land after the new
// subscribe).
func TestRegressDetachThenQuickReattach(t *testing.T) {
	t.Parallel()
	const u = "docs://r/flip"
	d, url := newDocServer(t, map[string]string{u: "v0"})
	d.unsubDelay = 50 * time.Millisecond // the unsubscribe is still running when the re-attach subscribes
	h, _ := connect(t, url, nil)
	for i := 1; i <= 5; i++ {
		if _, err := h.Attach(context.Background(), u); err != nil {
			t.Fatal(err)
		}
		h.Detach(u)
		if _, err := h.Attach(context.Background(), u); err != nil {
			t.Fatal(err)
		}
		want := "v" + itoa(i)
		d.set(u, want)
		eventually(t, "update after detach and re-attach #"+itoa(i), func() bool { return text(t, h, u) == want })
		// Subscribe and unsubscribe of one URI run in order: by the time
		// the re-attach resolved, the detach's unsubscribe has finished.
		if n := d.subsOf(u); n != 1 {
			t.Fatalf("round %d: %d subscriptions on the server once the re-attach resolved; want 1 (the unsubscribe overlapped the new subscribe)", i, n)
		}
	}
}

// For #12: a burst of list_changed must not start a re-listing each: at most
// one runs and one is queued.
func TestRegressListChangedBurstCoalesces(t *testing.T) {
	t.Parallel()
	d, url := newDocServer(t, map[string]string{"docs://r/a": "a"})
	h, rec := connect(t, url, nil)
	if _, _, err := h.Resources(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := d.lists.Load()
	d.mu.Lock()
	d.listLatency = 100 * time.Millisecond
	d.mu.Unlock()
	for i := range 20 {
		d.mu.Lock()
		d.docs["docs://r/n"+itoa(i)] = "n"
		d.mu.Unlock()
		d.add("docs://r/n" + itoa(i)) // each add notifies list_changed
		time.Sleep(20 * time.Millisecond)
	}
	eventually(t, "the new documents listed", func() bool {
		rs, _, _ := h.Resources(context.Background())
		return len(rs) == 21
	})
	time.Sleep(100 * time.Millisecond)
	if n := d.lists.Load() - before; n > 8 {
		t.Fatalf("%d re-listings for a burst of 20 list_changed in 400 ms with 100 ms listings; want at most 8 (one running, one queued)", n)
	}
	if n := rec.count(host.EventListChanged); n > 8 {
		t.Fatalf("%d listchanged events", n)
	}
}

// For #12: updated means the content changed: not on a refresh of an
// unchanged document, not on a bare notification.
func TestRegressNoUpdatedWithoutChange(t *testing.T) {
	t.Parallel()
	const u = "docs://r/same"
	d, url := newDocServer(t, map[string]string{u: "same"})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subscribe", func() bool { return d.subsOf(u) == 1 })
	if err := h.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	d.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
	eventually(t, "the notification's re-read", func() bool { return d.readsOf(u) == 3 })
	quiet(t, d, u)
	if n := rec.count(host.EventUpdated); n != 0 {
		t.Fatalf("%d updated events with byte-identical content", n)
	}
	d.set(u, "changed")
	if e := rec.wait(t, host.EventUpdated, u); e.Parts[0].Text != "changed" {
		t.Fatalf("updated carried %q", e.Parts[0].Text)
	}
}

// For #12: gone fires once per disappearance, and a gone attachment is not
// re-read on every later list_changed.
func TestRegressGoneOncePerDisappearance(t *testing.T) {
	t.Parallel()
	const u = "docs://r/bye"
	d, url := newDocServer(t, map[string]string{u: "here", "docs://r/other": "x"})
	h, rec := connect(t, url, nil)
	if _, _, err := h.Resources(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	delete(d.docs, u)
	d.mu.Unlock()
	d.RemoveResources(u) // list_changed only, as many servers do
	rec.wait(t, host.EventGone, u)
	reads := d.readsOf(u)
	for i := range 3 {
		d.mu.Lock()
		d.docs["docs://r/more"+itoa(i)] = "m"
		d.mu.Unlock()
		d.add("docs://r/more" + itoa(i))
		rec.wait(t, host.EventListChanged, "")
	}
	time.Sleep(100 * time.Millisecond)
	if n := rec.count(host.EventGone); n != 1 {
		t.Fatalf("%d gone events for one disappearance", n)
	}
	if r := d.readsOf(u) - reads; r != 0 {
		t.Fatalf("the gone attachment was re-read %d times on later list changes", r)
	}
}

// For #12: a tool that changes an attached document and returns a
// resource_link to it (server-everything's gzip-file-as-resource): the link
// is dropped only after a confirming read put the new bytes in the context.
func TestRegressToolLinkConfirmsAttachment(t *testing.T) {
	t.Parallel()
	const u = "docs://r/tool"
	d, url := newDocServer(t, map[string]string{u: "old bytes"})
	mcp.AddTool(d.Server, &mcp.Tool{Name: "rewrite"}, func(ctx context.Context, r *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		d.mu.Lock()
		d.docs[u] = "new bytes" // changed without a notification
		d.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: u, Name: "tool"}}}, nil, nil
	})
	h, rec := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	tr, err := h.CallTool(context.Background(), "rewrite", struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, h, u); got != "new bytes" {
		t.Fatalf("the link was dropped while the context holds %q", got)
	}
	if len(tr.Dropped) != 1 || tr.Dropped[0].Reason != "link_to_attached" {
		t.Fatalf("dropped %+v", tr.Dropped)
	}
	rec.wait(t, host.EventUpdated, u)
	// The document deleted by the tool: the link is kept, the attachment gone.
	mcp.AddTool(d.Server, &mcp.Tool{Name: "delete"}, func(ctx context.Context, r *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		d.mu.Lock()
		delete(d.docs, u)
		d.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: u, Name: "tool"}}}, nil, nil
	})
	tr, err = h.CallTool(context.Background(), "delete", struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Dropped) != 0 || !strings.Contains(string(tr.Result), u) {
		t.Fatalf("link to a gone document dropped: %+v", tr)
	}
	if p := h.Attached(u)[0]; p.State != host.StateGone {
		t.Fatalf("state %s; want gone", p.State)
	}
}

// For #12: a peer that fails right after each handshake must not cause a
// tight reconnect loop: the backoff is not reset by a short-lived session.
func TestRegressReconnectBackoffNotResetByShortSessions(t *testing.T) {
	t.Parallel()
	d, url := newDocServer(t, map[string]string{"docs://r/x": "x"})
	var dials atomic.Int64
	d.mu.Lock()
	d.onConn = func(c *bridge.Conn) {
		if dials.Add(1) > 1 {
			time.AfterFunc(30*time.Millisecond, func() { c.Close() })
		}
	}
	d.mu.Unlock()
	h, rec := connect(t, url, &host.Options{BackoffMin: 50 * time.Millisecond, BackoffMax: 2 * time.Second})
	_ = h
	d.mu.Lock()
	d.conns[0].Close()
	d.mu.Unlock()
	rec.wait(t, host.EventDisconnected, "")
	time.Sleep(2 * time.Second)
	// 50, 100, 200, 400, 800 ms (+ handshakes) fit in 2 s: about 5 dials;
	// a backoff reset by each handshake gives one every ~80 ms (~25).
	if n := dials.Load() - 1; n > 8 {
		t.Fatalf("%d reconnects in 2 s against a peer that fails after each handshake", n)
	}
}

func slicesContainsUpdated(evs []host.Event, text string) bool {
	for _, e := range evs {
		if e.Type == host.EventUpdated && e.Parts[0].Text == text {
			return true
		}
	}
	return false
}

// quiet waits until no read of u is in flight or started for 150 ms.
func quiet(t *testing.T, d *docServer, u string) {
	t.Helper()
	last, since := d.readsOf(u), time.Now()
	for time.Since(since) < 150*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
		if r := d.readsOf(u); r != last {
			last, since = r, time.Now()
		}
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
