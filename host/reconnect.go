package host

import (
	"context"
	"time"
)

// watch follows session generation gen until it ends, then reconnects by
// the connection policy (connect.go): after the backoff, windows of
// ConnectTimeout until one connects. The backoff starts again from
// BackoffMin only after a connection stayed up for HealthyAfter, so a peer
// that fails right after each handshake cannot cause a tight loop.
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
	if h.o.NoReconnect {
		// Said once, in the one disconnected event: a page that shows it
		// needs to know no reconnect is coming.
		h.down = notReconnecting("reconnect is off; the connection ended: " + reason)
		h.emit(Event{Type: EventDisconnected, Reason: "not reconnecting (reconnect is off): " + reason})
		for _, u := range append([]string(nil), h.order...) {
			if e := h.atts[u]; e.phase == phasePending {
				h.remove(e, s.Err())
			}
		}
		h.mu.Unlock()
		return
	}
	h.emit(Event{Type: EventDisconnected, Reason: reason})
	h.mu.Unlock()
	for {
		next := h.nextGen()
		select {
		case <-h.ctx.Done():
			return
		case <-time.After(h.nextBackoff()):
		}
		// The revision found is reused: no new probe, unless the server
		// refused it (it changed), then negotiate as configured again.
		ns, err := h.dialWindow(h.ctx, next)
		if err != nil {
			if h.ctx.Err() != nil {
				return
			}
			if permanent(err) {
				// Refused for good (kind refused, or an upstream's -31000
				// with data retryable false): retrying would only repeat the
				// refusal.
				h.mu.Lock()
				h.down = notReconnecting(err.Error())
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

// nextGen is the generation the next session will have.
func (h *Host) nextGen() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen + 1
}
