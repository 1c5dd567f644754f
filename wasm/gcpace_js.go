package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall/js"
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
//
// The collection the slower pace put off runs when the page is next idle
// (requestIdleCallback, within idleWait; a timer where there is none), not
// in whatever the page asks next: restored at once, the pace left a heap
// over its goal, and the page's first call after the listing collected it
// (the first resources() after a cold listing of 1,000 descriptors took
// 24–35 ms in Chromium, the next ones 2–7 ms).
const (
	startupGCPercent = 400
	startupPaceMax   = 5 * time.Second
	idleWait         = 1000 // ms: requestIdleCallback's timeout
	idleFallback     = 50   // ms: setTimeout's delay without requestIdleCallback
)

var startupPace struct {
	once sync.Once
	prev int
}

// beginStartupPace runs first in main.
func beginStartupPace() {
	startupPace.prev = debug.SetGCPercent(startupGCPercent)
	time.AfterFunc(startupPaceMax, func() { endStartupPace() })
}

// endStartupPace restores the collector's pace, once; it reports whether
// this call did.
func endStartupPace() bool {
	ended := false
	startupPace.once.Do(func() {
		debug.SetGCPercent(startupPace.prev)
		ended = true
	})
	return ended
}

// endStartupPaceAfter ends the startup pace when h's first listing has
// finished (a connected host lists at once), within startupPaceMax, and
// the page is idle; the put-off collection runs then.
func endStartupPaceAfter(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), startupPaceMax)
	defer cancel()
	_ = h.Listed(ctx)
	whenIdle(func() {
		if endStartupPace() {
			runtime.GC()
		}
	})
}

// whenIdle runs fn on a goroutine of its own once the page is idle: from a
// requestIdleCallback callback (at most idleWait ms later), or a timer's
// where the environment has none (a Worker, Safari, Node).
func whenIdle(fn func()) {
	var cb js.Func
	cb = js.FuncOf(func(js.Value, []js.Value) any {
		cb.Release()
		go fn()
		return nil
	})
	if ric := js.Global().Get("requestIdleCallback"); ric.Type() == js.TypeFunction {
		ric.Invoke(cb, map[string]any{"timeout": idleWait})
		return
	}
	js.Global().Call("setTimeout", cb, idleFallback)
}
