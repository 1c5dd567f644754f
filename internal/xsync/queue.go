// Package xsync holds the concurrency helpers mcphost's packages share.
package xsync

import (
	"context"
	"sync"

	"github.com/mcphost/mcphost/internal/pace"
)

// A Queue is an unbounded FIFO of functions run one at a time, in order, by
// [Queue.Run] on a goroutine of the owner's, so a producer (a read loop, a
// state machine holding its lock) never blocks on a slow consumer. After
// [Queue.Close] it runs what was queued, drops what is pushed later, and Run
// returns. The zero value is not ready: use [NewQueue].
type Queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []func()
	closed bool
}

// NewQueue returns an empty open queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Push queues f; after Close it does nothing.
func (q *Queue) Push(f func()) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, f)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

// Close ends the queue once what is queued has run.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
}

// Run calls queued functions in order until the queue is closed and drained.
// In the browser it gives the page its thread back between the functions of
// a backlog (one queued behind the one that just ran) once Go has held the
// task for pace.Slice: a burst of list_changed, of events for the page,
// costs many short tasks, never one long one. A function Run waited for runs
// at once: a yield before it would only put whatever the browser queued
// meanwhile (a collection, a compile) ahead of one event, which is how a
// yield after a fresh image read cost that read 50–70 ms (wasm/main_js.go,
// yieldBeforeValue).
func (q *Queue) Run() {
	backlog := false
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			backlog = false
			q.cond.Wait()
		}
		if len(q.items) == 0 {
			q.mu.Unlock()
			return
		}
		f := q.items[0]
		q.items[0] = nil
		q.items = q.items[1:]
		q.mu.Unlock()
		if backlog {
			pace.Yield(context.Background())
		}
		f()
		backlog = true
	}
}
