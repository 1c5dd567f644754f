package xsync

import (
	"sync/atomic"
	"syscall/js"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/pace"
)

func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// pageTurns counts the page's event-loop turns as Go sees them: a microtask
// queued now runs only once Go has given the thread back.
type pageTurns struct {
	n  atomic.Int64
	fn js.Func
}

func newPageTurns() *pageTurns {
	p := &pageTurns{}
	p.fn = js.FuncOf(func(js.Value, []js.Value) any { p.n.Add(1); return nil })
	return p
}

// release lets the armed microtasks run, then frees the callback.
func (p *pageTurns) release() {
	time.Sleep(5 * time.Millisecond)
	p.fn.Release()
}

// arm queues one microtask; turned reports whether one has run since.
func (p *pageTurns) arm() int64 { js.Global().Call("queueMicrotask", p.fn); return p.n.Load() }

// TestRunYieldsInBacklog: a backlog of 3 ms functions runs a slice's worth
// at a time; the page gets its thread back between them.
func TestRunYieldsInBacklog(t *testing.T) {
	q := NewQueue()
	p := newPageTurns()
	defer p.release()
	const n = 24
	run := 0   // functions in a row with no turn of the page between them
	worst := 0 // the longest such run
	var before int64 = -1
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		last := i == n-1
		q.Push(func() {
			if before >= 0 && p.n.Load() == before {
				run++
			} else {
				run = 1
			}
			worst = max(worst, run)
			spin(3 * time.Millisecond)
			before = p.arm()
			if last {
				close(done)
			}
		})
	}
	go q.Run()
	<-done
	q.Close()
	// 8 ms of slice hold at most three 3 ms functions (and one that starts
	// just before the slice ends).
	if limit := int(pace.Slice/(3*time.Millisecond)) + 1; worst > limit {
		t.Fatalf("%d functions of a backlog ran in one task of the page, want at most %d", worst, limit)
	}
}

// TestRunWaitedRunsAtOnce: a function pushed to an idle queue runs without
// a yield first, even when Go has held the task past the slice.
func TestRunWaitedRunsAtOnce(t *testing.T) {
	q := NewQueue()
	go q.Run()
	p := newPageTurns()
	defer p.release()
	time.Sleep(10 * time.Millisecond) // Run is waiting on an empty queue
	got := make(chan bool, 1)
	spin(pace.Slice + 2*time.Millisecond)
	before := p.arm()
	q.Push(func() { got <- p.n.Load() != before })
	if turned := <-got; turned {
		t.Fatal("Run gave the page its thread back before a function it had waited for")
	}
	q.Close()
}
