package host

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// watch follows session generation gen until it ends, then reconnects with
// capped exponential backoff. The backoff starts again from BackoffMin only
// after a connection stayed up for HealthyAfter, so a peer that fails right
// after each handshake cannot cause a tight loop.
func (h *Host) watch(s session, gen uint64) {
	select {
	case <-s.Done():
	case <-h.ctx.Done():
		return
	}
	h.mu.Lock()
	if h.closed || gen != h.gen {
		h.mu.Unlock()
		return
	}
	if time.Since(h.since) >= h.o.HealthyAfter {
		h.backoff = h.o.BackoffMin
	}
	reason := "connection lost"
	if err := s.Err(); err != nil {
		reason = err.Error()
	}
	h.emit(Event{Type: EventDisconnected, Reason: reason})
	if h.o.NoReconnect {
		for _, u := range append([]string(nil), h.order...) {
			if e := h.atts[u]; e.phase == phasePending {
				h.remove(e, s.Err())
			}
		}
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	for {
		h.mu.Lock()
		wait := h.backoff
		h.backoff = min(h.backoff*2, h.o.BackoffMax)
		next := h.gen + 1
		proto := h.proto
		h.mu.Unlock()
		select {
		case <-h.ctx.Done():
			return
		case <-time.After(wait):
		}
		ctx, cancel := context.WithTimeout(h.ctx, h.callTimeout())
		// The revision found is reused: no new probe, unless the server
		// refused it (it changed), then negotiate as configured again.
		ns, err := h.dial(ctx, sink{h, next}, proto)
		cancel()
		if err != nil {
			if e, ok := bridge.AsError(err); ok && e.Kind == bridge.KindUnsupported {
				h.mu.Lock()
				h.proto = h.o.Protocol
				h.mu.Unlock()
			}
			if permanent(err) {
				// The upstream refused for good (a gateway's -31000, data
				// retryable false): retrying would only repeat the refusal.
				h.mu.Lock()
				h.emit(Event{Type: EventDisconnected, Reason: "not reconnecting: " + err.Error()})
				for _, u := range append([]string(nil), h.order...) {
					if e := h.atts[u]; e.phase == phasePending {
						h.remove(e, err)
					}
				}
				h.mu.Unlock()
				return
			}
			continue
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			ns.Close()
			return
		}
		h.gen, h.sess, h.since, h.proto = next, ns, time.Now(), ns.InitializeResult().ProtocolVersion
		h.owed = map[string]int{} // answers belong to a session
		h.goLocked(func() { h.watch(ns, next) })
		ds := h.resyncLocked(ns)
		h.mu.Unlock()
		// reconnected means re-watched and re-read: wait for those reads
		// (bounded), then re-list into the picker.
		rctx, rcancel := context.WithTimeout(h.ctx, h.callTimeout())
		h.awaitOrStale(rctx, ds, "re-read after reconnect did not finish in time")
		rcancel()
		h.relist()
		h.emit(Event{Type: EventReconnected})
		return
	}
}

// permanent reports an error whose data says retrying cannot help
// ({"retryable": false}, as mcphost's gateway answers a permanent 4xx).
func permanent(err error) bool {
	e, ok := bridge.AsError(err)
	if !ok || len(e.Data) == 0 || e.Retryable() {
		return false
	}
	var d struct {
		Retryable *bool `json:"retryable"`
	}
	return json.Unmarshal(e.Data, &d) == nil && d.Retryable != nil && !*d.Retryable
}

// resyncLocked watches every entry on the new session, in one Watch call;
// each is read again once its watch is answered. h.mu is held.
func (h *Host) resyncLocked(s session) []demand {
	uris := make([]string, 0, len(h.order))
	var ds []demand
	for _, u := range h.order {
		e := h.atts[u]
		if e.phase == phasePending {
			h.tr("reconnect during attach")
		}
		e.subscribed, e.verdict = false, true
		// Every entry is read once its watch is answered on the new session,
		// also one whose first read is still in flight on the old one: that
		// snapshot may predate the new subscription.
		e.want = true
		if e.phase == phaseAttached {
			e.why = "re-read after reconnect"
			if dl := time.Now().Add(h.callTimeout()); dl.After(e.deadline) {
				e.deadline = dl
			}
			ds = append(ds, demand{e, e.wait(e.ticket + 1), e.applied})
		}
		uris = append(uris, u)
	}
	if len(uris) > 0 {
		h.watchAdd(s, uris...)
	}
	return ds
}
