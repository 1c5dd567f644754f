package host

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestSpareGoroutines: a host goroutine that finished waits for the next
// work (at most maxSpare wait), work goes to a waiting one before a new one
// starts, and Close ends the waiting ones (wg counts them).
func TestSpareGoroutines(t *testing.T) {
	h := &Host{spare: make(chan func())}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	start := func(f func()) bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.goLocked(f)
	}
	waitSpares := func(want int32) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); h.spares.Load() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("%d goroutines waiting, want %d", h.spares.Load(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}

	const n = 3 * maxSpare
	var done sync.WaitGroup
	release := make(chan struct{})
	for range n {
		done.Add(1)
		if !start(func() { defer done.Done(); <-release }) {
			t.Fatal("goLocked refused on an open host")
		}
	}
	if got := h.spares.Load(); got != 0 {
		t.Fatalf("%d waiting while all work runs", got)
	}
	close(release)
	done.Wait()
	waitSpares(maxSpare) // the others ended

	// The next work is handed to a waiting goroutine.
	ran := make(chan struct{})
	block := make(chan struct{})
	start(func() { close(ran); <-block })
	<-ran
	if got := h.spares.Load(); got != maxSpare-1 {
		t.Fatalf("%d waiting while one of them works, want %d", got, maxSpare-1)
	}
	close(block)
	waitSpares(maxSpare)

	// Close: goLocked refuses, and every goroutine (waiting ones too) ends.
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	if start(func() { t.Error("ran after close") }) {
		t.Fatal("goLocked started work on a closed host")
	}
	h.cancel()
	ended := make(chan struct{})
	go func() { h.wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("waiting goroutines did not end at Close")
	}
	if got := h.spares.Load(); got != 0 {
		t.Fatalf("%d still counted as waiting after Close", got)
	}
}
