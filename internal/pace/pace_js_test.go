package pace

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall/js"
	"testing"
	"time"
)

// spin holds the thread (no goroutine blocks, so the event loop cannot run)
// for d.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// TestYield: within the slice Yield keeps the task; past it, Yield returns
// only after Go gave the thread back: a microtask queued while Go held it
// runs as soon as Go returns to the event loop, before any other task.
func TestYield(t *testing.T) {
	ctx := context.Background()

	Resumed()
	before := state.resumedAt
	Yield(ctx)
	if state.resumedAt != before {
		t.Fatal("Yield within the slice went through a task of its own")
	}

	var ran atomic.Bool
	cb := js.FuncOf(func(js.Value, []js.Value) any { ran.Store(true); return nil })
	js.Global().Call("queueMicrotask", cb)
	spin(Slice + 2*time.Millisecond)
	if ran.Load() {
		t.Fatal("the page ran while Go held the thread: the test cannot tell")
	}
	called := time.Now()
	Yield(ctx)
	if !ran.Load() {
		t.Fatal("Yield past the slice returned without giving the thread back")
	}
	cb.Release()
	if !state.resumedAt.After(called) {
		t.Fatal("Yield past the slice did not start a new slice")
	}
}

// TestYieldTogether: goroutines that yield at once are all resumed.
func TestYieldTogether(t *testing.T) {
	spin(Slice + time.Millisecond)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Yield(context.Background())
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("yielding goroutines were not resumed")
	}
}

// TestYieldCanceled: a canceled context ends the wait at once.
func TestYieldCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	spin(Slice + time.Millisecond)
	Yield(ctx) // must not hang
	// The waiter it left is closed by the task it asked for: the next Yield
	// is resumed by that one (and leaves no message behind for other tests).
	spin(Slice + time.Millisecond)
	Yield(context.Background())
	if len(state.waiters) != 0 {
		t.Fatalf("%d waiters left", len(state.waiters))
	}
}
