package main

import (
	"runtime/debug"
	"sync"
	"testing"
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
