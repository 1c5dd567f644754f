package host

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// DefaultConnectTimeout bounds one connection window: dialling and the
// handshake, retries included.
const DefaultConnectTimeout = 30 * time.Second

// The connection policy, shared by Connect and the reconnect loop:
//
//   - A window of ConnectTimeout covers dialling and the handshake
//     (initialize, or server/discover in 2026-07-28); the handshake's
//     deadline is what remains of the window, not Timeout, so a server
//     that takes seconds to start (a cold npx behind a gateway) is waited
//     for.
//   - An attempt that fails retryably (kind unavailable or timeout, or data
//     {"retryable": true}) inside the window is made again after the
//     backoff: BackoffMin doubling to BackoffMax, or the server's
//     Retry-After (at most [bridge.MaxRetryAfter]) when longer. No attempt
//     starts that could not begin before the window closes; the window
//     fails with the last error (a handshake the window's end cut short is
//     kind timeout; a dial it cut short leaves the failure before it).
//   - A permanent failure (kind refused, data {"retryable": false}) fails
//     at once and is never retried; other failures (protocol, unsupported)
//     end the window at once too.
//   - Connect fails when its window fails. The reconnect loop, after the
//     backoff, opens a new window until it connects, the failure is
//     permanent, or the host is closed. The backoff is the host's: it goes
//     back to BackoffMin only once a connection stayed up for HealthyAfter.

// dialWindow dials a session of generation gen within one window of the
// connect timeout (ctx may end it earlier). Attempts separated by the
// backoff; see the policy above.
func (h *Host) dialWindow(ctx context.Context, gen uint64) (session, error) {
	wctx, cancel := context.WithTimeout(ctx, h.o.ConnectTimeout)
	defer cancel()
	start := time.Now()
	var last error // the last failure that was not the window's end
	for attempt := 1; ; attempt++ {
		h.mu.Lock()
		proto := h.proto
		h.mu.Unlock()
		s, err := h.dial(wctx, sink{h, gen}, proto)
		if err == nil {
			return s, nil
		}
		if e, ok := bridge.AsError(err); ok && e.Kind == bridge.KindUnsupported {
			// The revision found may have changed: negotiate as configured.
			h.mu.Lock()
			h.proto = h.o.Protocol
			h.mu.Unlock()
		}
		if ctx.Err() != nil {
			return nil, err // the caller cancelled, or the host closed
		}
		if wctx.Err() != nil {
			// The window's end cut this attempt short. In the handshake
			// (the server accepted, then did not answer in time) that is
			// the failure; while dialling, the failure before it is.
			if e, ok := bridge.AsError(err); ok && e.Method == "" && last != nil {
				return nil, h.windowErr(last, nil, attempt, start)
			}
			return nil, h.windowErr(err, last, attempt, start)
		}
		last = err
		if !retryableConnect(err) {
			return nil, h.windowErr(err, nil, attempt, start)
		}
		wait := h.nextBackoff()
		if e, ok := bridge.AsError(err); ok && e.RetryAfter > wait {
			wait = min(e.RetryAfter, bridge.MaxRetryAfter)
		}
		if dl, _ := wctx.Deadline(); time.Until(dl) <= wait {
			return nil, h.windowErr(err, nil, attempt, start)
		}
		h.tr("connect retry")
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, h.windowErr(err, nil, attempt, start)
		case <-time.After(wait):
		}
	}
}

// nextBackoff returns the wait before the next attempt and doubles it, up to
// BackoffMax.
func (h *Host) nextBackoff() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	wait := h.backoff
	h.backoff = min(h.backoff*2, h.o.BackoffMax)
	return wait
}

// windowErr is the error of a window that failed with last after attempts:
// last itself after one attempt, else last with a message that counts the
// attempts (and names before, the failure of the attempt before, when the
// window's end cut the last one short). Kind, code and data stay last's.
func (h *Host) windowErr(last, before error, attempts int, start time.Time) error {
	if attempts == 1 {
		return last
	}
	msg := fmt.Sprintf("no connection after %d attempts in %v; the last: ", attempts, time.Since(start).Round(100*time.Millisecond))
	tail := ""
	if before != nil && before.Error() != last.Error() {
		tail = "; before that: " + before.Error()
	}
	e, ok := bridge.AsError(last)
	if !ok {
		return fmt.Errorf("%s%w%s", msg, last, tail)
	}
	c := *e
	c.Message = msg + e.Message + tail
	return &c
}

// retryableConnect reports a failure of an attempt that a later attempt
// may not repeat: kinds unavailable and timeout, or data {"retryable": true}
// (a gateway's -31000 for an upstream that may come up), unless the data
// says {"retryable": false}. Kind refused never is.
func retryableConnect(err error) bool {
	if permanent(err) {
		return false
	}
	if bridge.IsRetryable(err) {
		return true
	}
	r, ok := dataRetryable(err)
	return ok && r
}

// permanent reports an error retrying cannot help: kind refused (the
// server refused the connection: a configuration error), or data
// {"retryable": false} on an error not of a retryable kind (as mcphost's
// gateway answers a permanent 4xx).
func permanent(err error) bool {
	e, ok := bridge.AsError(err)
	if !ok || e.Retryable() {
		return false
	}
	if e.Kind == bridge.KindRefused {
		return true
	}
	r, ok := dataRetryable(err)
	return ok && !r
}

// dataRetryable reads an error's data.retryable.
func dataRetryable(err error) (retryable, ok bool) {
	e, isErr := bridge.AsError(err)
	if !isErr || len(e.Data) == 0 || e.Data[0] != '{' {
		return false, false
	}
	var d struct {
		Retryable *bool `json:"retryable"`
	}
	if json.Unmarshal(e.Data, &d) != nil || d.Retryable == nil {
		return false, false
	}
	return *d.Retryable, true
}
