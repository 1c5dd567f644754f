package main

import (
	"context"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcphost/mcphost/host"
)

// The collector's pace while the page starts. Until the first host's first
// listing has finished (or startupPaceMax has passed), the Go collector runs
// at a quarter of its usual pace (GOGC 400, so its first cycle comes at a
// 16 MB heap instead of 4 MB). At startup a collection is not only its own
// work: it is the first run of the collector's code, which V8 compiles on
// the main thread at its first call and then recompiles with its
// optimizing tier on background threads, which on a 2-core machine take
// the other core from the page. In the bench's startup suite (1,000
// descriptors in 10 pages, Chromium 156, traced trial of bench/run.mjs) no
// collection runs before the listing is done: 1,319 → 1,132 functions
// compiled on first call, background recompilation 817 → 580 ms, and the
// startup ratio 2.94 → 2.65 in one side-by-side run (4 trials each).
//
// Afterwards the pace is what it was. What it costs: a heap up to five
// times its live size instead of twice while the first listing runs, so
// the module's linear memory (which never shrinks) can end larger for a
// very large first listing; the bound on time keeps a listing that takes
// longer than startupPaceMax at the usual pace for the rest of it.
const (
	startupGCPercent = 400
	startupPaceMax   = 5 * time.Second
)

var startupPace struct {
	once sync.Once
	prev int
}

// beginStartupPace runs first in main.
func beginStartupPace() {
	startupPace.prev = debug.SetGCPercent(startupGCPercent)
	time.AfterFunc(startupPaceMax, endStartupPace)
}

// endStartupPace restores the collector's pace, once.
func endStartupPace() {
	startupPace.once.Do(func() { debug.SetGCPercent(startupPace.prev) })
}

// endStartupPaceAfter ends the startup pace when h's first listing has
// finished (a connected host lists at once), within startupPaceMax.
func endStartupPaceAfter(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), startupPaceMax)
	defer cancel()
	_ = h.Listed(ctx)
	endStartupPace()
}
