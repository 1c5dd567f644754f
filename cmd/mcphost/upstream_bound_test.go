//go:build !js

package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// modernCall is a 2026-07-28 request (its own POST, routed past go-sdk's
// session) with id.
func modernCall(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, id)
}

// For the review of 2026-12-05: one WebSocket that sends many requests to
// an upstream that holds them has at most -max-upstream-requests in flight
// upstream (and as many TCP connections, plus the stream's and one
// notification's); each request past the bound is answered at once with a
// retryable -32603 naming it; a slot is free again once its request is
// answered or cancelled (in either revision; the cancelled request's POST
// is closed: a 2025-11-25 server should not answer it), and the connection
// goes on.
func TestMaxUpstreamRequests(t *testing.T) {
	t.Parallel()
	const bound, sent = 4, 40
	refused := func(t *testing.T, m mcptest.RawMsg) bool {
		t.Helper()
		if m.Error == nil {
			return false
		}
		var d struct {
			Retryable bool `json:"retryable"`
			Limit     int  `json:"limit"`
		}
		json.Unmarshal(m.Error.Data, &d)
		if m.Error.Code != -32603 || !d.Retryable || d.Limit != bound {
			t.Fatalf("answer %s: want -32603 with data retryable, limit %d", m.Raw, bound)
		}
		return true
	}
	for _, modern := range []bool{false, true} {
		t.Run(map[bool]string{false: "2025-11-25", true: "2026-07-28"}[modern], func(t *testing.T) {
			t.Parallel()
			up := newHoldingUpstream(t, "")
			host, _ := startServer(t, testConfig(t, "-upstream", up.url, "-max-upstream-requests", fmt.Sprint(bound)))
			r := mcptest.DialRaw(t, host, "")
			call := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
			if modern {
				call = modernCall
			} else {
				r.Send(initLegacy)
				r.Answer("1", 5*time.Second, nil)
				r.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			for id := 100; id < 100+sent; id++ {
				r.Send(call(id))
			}
			for range bound {
				waitChan(t, up.held, 5*time.Second, "a held request")
			}
			for range sent - bound {
				if m := r.Next(5 * time.Second); !refused(t, m) {
					t.Fatalf("answer %s while %d requests are held: want the bound's refusal", m.Raw, bound)
				}
			}
			if n := up.maxHeld.Load(); n != bound {
				t.Fatalf("the upstream held %d requests at once, want %d", n, bound)
			}
			if n := up.maxConns.Load(); n > bound+2 {
				t.Fatalf("%d TCP connections to the upstream at once, want at most %d", n, bound+2)
			}
			// A cancellation frees its request's slot as it is read (the
			// request after it is sent, not refused) and closes its POST.
			r.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}`)
			r.Send(call(200))
			waitChan(t, up.gone, 5*time.Second, "the cancelled request's POST closed")
			waitChan(t, up.held, 5*time.Second, "the request sent after the cancellation")
			if m, ok := r.TryNext(100 * time.Millisecond); ok {
				t.Fatalf("answer %s after the cancellation: want none (the request after it held, not refused)", m.Raw)
			}
			// A cancelled request whose id is reused at once: the end of
			// its POST frees nothing (its slot was freed as the
			// cancellation was read; the new request holds the one it
			// took), so the bound still holds.
			r.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":200}}`)
			r.Send(call(200))
			waitChan(t, up.gone, 5*time.Second, "the cancelled request's POST closed")
			waitChan(t, up.held, 5*time.Second, "the request that reused its id")
			time.Sleep(100 * time.Millisecond) // the gateway's end of the cancelled POST
			r.Send(call(201))
			if m := r.Next(5 * time.Second); !refused(t, m) {
				t.Fatalf("answer %s with the bound's requests held: want the bound's refusal", m.Raw)
			}
			// An id reused while its request is in flight, not cancelled:
			// the newer request wins, the older one's POST is closed and
			// its slot freed (asynchronously: a request meanwhile may be
			// refused, and is sent again).
			for _, id := range []int{101, 102} {
				r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, id))
				waitChan(t, up.gone, 5*time.Second, "a cancelled request's POST closed")
			}
			r.Send(call(300))
			waitChan(t, up.held, 5*time.Second, "a request into a freed slot")
			r.Send(call(300))
			waitChan(t, up.gone, 5*time.Second, "the POST of the request whose id was reused")
			waitChan(t, up.held, 5*time.Second, "the request that reused the id")
			sendHeld(t, r, up, call, 301, refused)
			r.Send(call(310))
			if m := r.Next(5 * time.Second); !refused(t, m) {
				t.Fatalf("answer %s with the bound's requests held: want the bound's refusal", m.Raw)
			}
			// Answers free their slots: every request is then sent.
			close(up.release)
			for range bound {
				if m := r.Next(5 * time.Second); m.Result == nil {
					t.Fatalf("answer %s to a held request: want its result", m.Raw)
				}
			}
			for round := range 3 { // bound at once, three times: the slots are reused
				for id := range bound {
					r.Send(call(300 + 10*round + id))
				}
				for range bound {
					if m := r.Next(5 * time.Second); m.Result == nil {
						t.Fatalf("answer %s once the upstream answered: want a result", m.Raw)
					}
				}
			}
		})
	}
}

// sendHeld sends call(id), call(id+1)... until the upstream holds one,
// for 5 s: a slot freed asynchronously may not be free yet, and a request
// refused meanwhile (refused reports it) is sent again under the next id.
func sendHeld(t *testing.T, r *mcptest.Raw, up *holdingUpstream, call func(int) string, id int, refused func(*testing.T, mcptest.RawMsg) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for ; ; id++ {
		r.Send(call(id))
		for {
			select {
			case <-up.held:
				return
			default:
			}
			m, ok := r.TryNext(20 * time.Millisecond)
			if time.Now().After(deadline) {
				t.Fatalf("no slot free 5s after one was freed (last answer %s)", m.Raw)
			}
			if ok {
				if !refused(t, m) {
					t.Fatalf("answer %s: want the request held, or refused", m.Raw)
				}
				time.Sleep(10 * time.Millisecond)
				break
			}
		}
	}
}
