package main

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"
)

// TestStartupPace: the pace is GOGC 400 from beginStartupPace until the
// first endStartupPace, which restores the previous percent; later calls
// change nothing (a second host's listing, the timer).
func TestStartupPace(t *testing.T) {
	orig := debug.SetGCPercent(150)
	defer debug.SetGCPercent(orig)
	startupPace.once = sync.Once{}
	beginStartupPace()
	if got := debug.SetGCPercent(startupGCPercent); got != startupGCPercent {
		t.Fatalf("during startup GOGC = %d, want %d", got, startupGCPercent)
	}
	endStartupPace()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("after startup GOGC = %d, want the previous 150", got)
	}
	debug.SetGCPercent(250)
	endStartupPace()
	if got := debug.SetGCPercent(250); got != 250 {
		t.Fatalf("a second end changed GOGC to %d", got)
	}
}

// TestStartupPaceIdle: whenIdle runs its function from a later task (a
// timer under Node, which has no requestIdleCallback), not at once; the
// idle end of the pace restores it and collects, once.
func TestStartupPaceIdle(t *testing.T) {
	orig := debug.SetGCPercent(150)
	defer debug.SetGCPercent(orig)
	startupPace.once = sync.Once{}
	beginStartupPace()
	done := make(chan uint32, 1)
	whenIdle(func() {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		if endStartupPace() {
			runtime.GC()
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		done <- after.NumGC - before.NumGC
	})
	if got := debug.SetGCPercent(startupGCPercent); got != startupGCPercent {
		t.Fatalf("whenIdle ran its function at once: GOGC = %d", got)
	}
	select {
	case n := <-done:
		if n < 1 {
			t.Errorf("no collection at the idle end of the pace")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the idle function never ran")
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("after the idle end GOGC = %d, want the previous 150", got)
	}
	if endStartupPace() {
		t.Error("a second end reported ending the pace")
	}
}
