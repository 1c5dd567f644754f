package pace

import (
	"context"
	"sync"
	"syscall/js"
	"time"
)

var state struct {
	once      sync.Once
	mu        sync.Mutex
	resumedAt time.Time       // when Go last came back from the page's event loop
	waiters   []chan struct{} // goroutines waiting for the next task
	port      js.Value        // a MessageChannel's port2: a message to it is a task
	fn        js.Func         // port1's onmessage
}

// Resumed records that Go was entered from a task of the page's own (a
// socket's wake, a Yield's task): the slice starts again.
func Resumed() {
	state.mu.Lock()
	state.resumedAt = time.Now()
	state.mu.Unlock()
}

// Yield returns at once when Go has run for at most Slice since it was last
// resumed. Otherwise it waits for a task of its own, or for ctx's end.
// Goroutines that yield together are resumed by the same task. Without a
// MessageChannel (not a browser or Node) it returns at once.
func Yield(ctx context.Context) {
	state.mu.Lock()
	if time.Since(state.resumedAt) <= Slice {
		state.mu.Unlock()
		return
	}
	state.once.Do(open)
	if state.port.IsUndefined() {
		state.mu.Unlock()
		return
	}
	w := make(chan struct{})
	first := len(state.waiters) == 0
	state.waiters = append(state.waiters, w)
	state.mu.Unlock()
	if first {
		state.port.Call("postMessage", 0)
	}
	select {
	case <-w:
	case <-ctx.Done():
	}
}

// open makes the MessageChannel (under state.mu). A message task, unlike a
// timer, is neither clamped to 4 ms when nested nor throttled in a
// background tab.
func open() {
	mc := js.Global().Get("MessageChannel")
	if mc.Type() != js.TypeFunction {
		return
	}
	c := mc.New()
	state.fn = js.FuncOf(func(js.Value, []js.Value) any {
		state.mu.Lock()
		state.resumedAt = time.Now()
		ws := state.waiters
		state.waiters = nil
		state.mu.Unlock()
		for _, w := range ws {
			close(w)
		}
		return nil
	})
	c.Get("port1").Set("onmessage", state.fn)
	state.port = c.Get("port2")
}
