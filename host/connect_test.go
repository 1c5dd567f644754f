package host

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// The connection policy (connect.go) with a scripted dialer in front of the
// model's fake server, under synctest: virtual time measures the backoff.

// scripted fails the first attempts with the errors given (a nil entry lets
// that attempt through), then dials the fake server. It records when each
// attempt started and the deadline it was given.
type scripted struct {
	f    *fakeServer
	errs []error
	hang int                   // attempts (1-based) that block until their context ends
	slow map[int]time.Duration // attempts (1-based) whose handshake takes this long

	mu        sync.Mutex
	at        []time.Duration
	deadlines []time.Duration
	start     time.Time
}

func (d *scripted) dial(ctx context.Context, w bridge.Watcher, proto string) (session, error) {
	d.mu.Lock()
	n := len(d.at)
	d.at = append(d.at, time.Since(d.start))
	dl, _ := ctx.Deadline()
	d.deadlines = append(d.deadlines, time.Until(dl))
	d.mu.Unlock()
	if w := d.slow[n+1]; w > 0 {
		select {
		case <-time.After(w):
		case <-ctx.Done():
			return nil, &bridge.Error{Kind: bridge.KindTimeout, Method: "initialize", Message: "no response before the deadline", Err: bridge.ErrTimeout}
		}
	}
	if n+1 == d.hang {
		<-ctx.Done()
		return nil, &bridge.Error{Kind: bridge.KindTimeout, Method: "initialize", Message: "no response before the deadline", Err: bridge.ErrTimeout}
	}
	if n < len(d.errs) && d.errs[n] != nil {
		return nil, d.errs[n]
	}
	return d.f.dial(ctx, w, proto)
}

func (d *scripted) attempts() []time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Duration(nil), d.at...)
}

func newFake() *fakeServer {
	return &fakeServer{rng: rand.New(rand.NewPCG(1, 1)), docs: map[string]*fakeDoc{}, slow: map[string]time.Duration{},
		deletes: map[string]int{}, notified: map[string]int{}}
}

var (
	errDialRefused = &bridge.Error{Kind: bridge.KindUnavailable, Message: "dial ws://x/mcp: connection refused", Err: bridge.ErrConnectionLost}
	errOrigin      = &bridge.Error{Kind: bridge.KindRefused, Code: 403, Message: `refused (HTTP 403): origin "http://a" is not allowed: start mcphost with -origin http://a`,
		Data: json.RawMessage(`{"reason":"origin \"http://a\" is not allowed","fix":"start mcphost with -origin http://a"}`)}
)

func connectScripted(t *testing.T, d *scripted, o Options) (*Host, error, time.Duration) {
	t.Helper()
	if d.f == nil {
		d.f = newFake()
	}
	d.start = time.Now()
	h, err := connect(context.Background(), "fake://", d.dial, &o)
	return h, err, time.Since(d.start)
}

func TestConnectRetriesWithinWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &scripted{errs: []error{errDialRefused, errDialRefused, errDialRefused}}
		h, err, _ := connectScripted(t, d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		at := d.attempts()
		if len(at) != 4 {
			t.Fatalf("%d attempts, want 4", len(at))
		}
		// Backoff 100 ms, doubling: attempts at 0, 0.1, 0.3, 0.7 s.
		for i, want := range []time.Duration{0, 100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
			if at[i] != want {
				t.Errorf("attempt %d at %v, want %v", i+1, at[i], want)
			}
		}
		// Each attempt's deadline is what remains of the 30 s window, not
		// Timeout (5 s): the handshake of a slow start is waited for.
		if dl := d.deadlines[0]; dl != DefaultConnectTimeout {
			t.Errorf("first attempt's deadline %v, want %v", dl, DefaultConnectTimeout)
		}
		if dl := d.deadlines[3]; dl != DefaultConnectTimeout-700*time.Millisecond {
			t.Errorf("fourth attempt's deadline %v, want the rest of the window", dl)
		}
	})
}

func TestConnectSlowHandshakeUsesTheWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		d := &scripted{f: f}
		d.slow = map[int]time.Duration{1: 10 * time.Second} // a cold npx
		h, err := connect(context.Background(), "fake://", d.dial, &Options{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("a 10 s handshake with timeoutMs 5 s and the default connect window: %v", err)
		}
		h.Close()
	})
}

func TestConnectGivesUpAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errs := make([]error, 100)
		for i := range errs {
			errs[i] = errDialRefused
		}
		d := &scripted{errs: errs}
		_, err, took := connectScripted(t, d, Options{ConnectTimeout: 2 * time.Second})
		if err == nil {
			t.Fatal("connected through a refusing server")
		}
		if took > 2*time.Second {
			t.Errorf("gave up after %v, past the 2 s window", took)
		}
		// 0, 0.1, 0.3, 0.7, 1.5 s; the next (at 3.1 s) would not begin in time.
		if n := len(d.attempts()); n != 5 {
			t.Errorf("%d attempts, want 5", n)
		}
		e, ok := bridge.AsError(err)
		if !ok || e.Kind != bridge.KindUnavailable || !e.Retryable() {
			t.Fatalf("error %v: want the last error's kind unavailable, retryable", err)
		}
		if !strings.Contains(e.Message, "connection refused") || !strings.Contains(e.Message, "5 attempts") {
			t.Errorf("message %q: want the last error and the attempts", e.Message)
		}
	})
}

func TestConnectDeadlineCutsAnAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &scripted{errs: []error{errDialRefused}, hang: 2}
		_, err, took := connectScripted(t, d, Options{ConnectTimeout: 3 * time.Second})
		if took != 3*time.Second {
			t.Errorf("gave up after %v, want at the 3 s deadline", took)
		}
		e, ok := bridge.AsError(err)
		if !ok || e.Kind != bridge.KindTimeout {
			t.Fatalf("error %v: want the cut attempt's timeout", err)
		}
		if !strings.Contains(e.Error(), "no response before the deadline") || !strings.Contains(e.Error(), "before that: dial ws://x/mcp: connection refused") {
			t.Errorf("message %q: want the last error and the one before", e.Error())
		}
	})
}

func TestConnectDeadlineCutsADial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &scripted{errs: []error{errDialRefused}, hang: 2}
		dial := func(ctx context.Context, w bridge.Watcher, proto string) (session, error) {
			s, err := d.dial(ctx, w, proto)
			if e, ok := bridge.AsError(err); ok && e.Kind == bridge.KindTimeout {
				// cut while dialling: no method
				return nil, &bridge.Error{Kind: bridge.KindTimeout, Message: "dial ws://x/mcp: no response before the deadline"}
			}
			return s, err
		}
		d.f, d.start = newFake(), time.Now()
		_, err := connect(context.Background(), "fake://", dial, &Options{ConnectTimeout: 3 * time.Second})
		e, ok := bridge.AsError(err)
		if !ok || e.Kind != bridge.KindUnavailable || !strings.Contains(e.Message, "connection refused") || !strings.Contains(e.Message, "2 attempts") {
			t.Fatalf("error %v: want the dial's failure before the window ended", err)
		}
	})
}

func TestConnectRefusedIsNotRetried(t *testing.T) {
	gatewayPermanent := &bridge.Error{Kind: bridge.KindPermanent, Code: -31000, Message: "upstream answered HTTP 404",
		Data: json.RawMessage(`{"retryable":false}`)}
	protocolErr := &bridge.Error{Kind: bridge.KindProtocol, Message: `server did not select subprotocol "mcp"`}
	for _, tc := range []struct {
		name string
		err  error
	}{{"kind refused", errOrigin}, {"data retryable false", gatewayPermanent}, {"protocol", protocolErr}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := &scripted{errs: []error{tc.err}}
				_, err, took := connectScripted(t, d, Options{})
				if !errors.Is(err, tc.err) && err != tc.err {
					t.Fatalf("error %v, want %v unchanged", err, tc.err)
				}
				if n := len(d.attempts()); n != 1 || took != 0 {
					t.Errorf("%d attempts over %v, want 1 at once", n, took)
				}
			})
		})
	}
}

func TestConnectRetriesGatewayRetryable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		starting := &bridge.Error{Kind: bridge.KindPermanent, Code: -31000, Message: "the stdio command did not start in time",
			Data: json.RawMessage(`{"retryable":true}`)}
		d := &scripted{errs: []error{starting}}
		h, err, _ := connectScripted(t, d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
		if n := len(d.attempts()); n != 2 {
			t.Errorf("%d attempts, want 2", n)
		}
	})
}

func TestConnectHonoursRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := &bridge.Error{Kind: bridge.KindUnavailable, Code: 503, Message: "refused (HTTP 503): too many connections (max 1)",
			RetryAfter: 3 * time.Second}
		d := &scripted{errs: []error{full}}
		h, err, _ := connectScripted(t, d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
		if at := d.attempts(); len(at) != 2 || at[1] != 3*time.Second {
			t.Errorf("attempts at %v, want the second after Retry-After (3 s)", at)
		}
		// A Retry-After past the window: fail now, retryable, no useless wait.
		d = &scripted{errs: []error{&bridge.Error{Kind: bridge.KindUnavailable, Code: 503, RetryAfter: 50 * time.Second}}}
		_, err, took := connectScripted(t, d, Options{})
		if !bridge.IsRetryable(err) || took != 0 {
			t.Errorf("Retry-After past the window: %v after %v, want a retryable error at once", err, took)
		}
	})
}

func TestConnectCancelledByCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errs := make([]error, 100)
		for i := range errs {
			errs[i] = errDialRefused
		}
		d := &scripted{f: newFake(), errs: errs}
		ctx, cancel := context.WithTimeout(context.Background(), 1*time.Second)
		defer cancel()
		start := time.Now()
		_, err := connect(ctx, "fake://", d.dial, &Options{})
		if err == nil || time.Since(start) > time.Second {
			t.Fatalf("%v after %v: want a failure by the caller's 1 s", err, time.Since(start))
		}
	})
}

// A session the server refuses after it was lost (its token revoked): the
// reconnect loop stops at once and says so.
func TestReconnectStopsOnRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &scripted{errs: []error{nil, errOrigin}}
		var mu sync.Mutex
		var events []Event
		h, err, _ := connectScripted(t, d, Options{OnEvent: func(e Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		d.f.mu.Lock()
		s := d.f.sessions[0]
		d.f.mu.Unlock()
		s.kill()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(d.attempts()); n != 2 {
			t.Errorf("%d dials, want 2 (connect, one refused reconnect)", n)
		}
		mu.Lock()
		defer mu.Unlock()
		var reasons []string
		for _, e := range events {
			if e.Type == EventDisconnected {
				reasons = append(reasons, e.Reason)
			}
		}
		if len(reasons) != 2 || !strings.HasPrefix(reasons[1], "not reconnecting: ") || !strings.Contains(reasons[1], "-origin http://a") {
			t.Errorf("disconnected reasons %q: want the loss, then not reconnecting with the fix", reasons)
		}
	})
}

// Reconnecting follows the same policy: a failing server is retried with the
// backoff (not the window's end), and a reconnect whose handshake is slow is
// waited for.
func TestReconnectSharesThePolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The attempt that succeeds takes 10 s to shake hands.
		d := &scripted{errs: []error{nil, errDialRefused, errDialRefused}, slow: map[int]time.Duration{4: 10 * time.Second}}
		h, err, _ := connectScripted(t, d, Options{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		d.f.mu.Lock()
		s := d.f.sessions[0]
		d.f.mu.Unlock()
		lost := time.Since(d.start)
		s.kill()
		time.Sleep(time.Minute)
		synctest.Wait()
		at := d.attempts()
		if len(at) != 4 {
			t.Fatalf("%d dials, want 4", len(at))
		}
		for i, want := range []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
			if got := at[i+1] - lost; got != want {
				t.Errorf("reconnect attempt %d at +%v, want +%v", i+1, got, want)
			}
		}
		d.f.mu.Lock()
		n := len(d.f.sessions)
		d.f.mu.Unlock()
		if n != 2 {
			t.Errorf("%d sessions, want 2: the slow reconnect was waited for", n)
		}
	})
}
