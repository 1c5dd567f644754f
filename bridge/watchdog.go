//go:build !js

package bridge

import (
	"context"
	"fmt"
	"time"
)

// maxUndecodableLogs is how many undecodable messages of one connection are
// logged one by one; the rest are counted when it ends.
const maxUndecodableLogs = 5

// watch enforces a server connection's first-request deadline and idle
// timeout and sends its keep-alive pings (see [EndpointOptions]) until the
// connection ends. A negative duration disables its part.
//
// The first-request deadline runs from when the handler first reads, not
// from the upgrade: a gateway reads the browser's connection only once its
// stdio child has started, and under a burst of connections (200 at once in
// TestGatewayLoad, on a 2-core machine under -race) starting the children
// took longer than the deadline, so connections whose first request was
// already waiting were closed as if they had sent none.
func watch(c *Conn, first, idle, pingEvery time.Duration) {
	tick := time.Second
	for _, d := range []time.Duration{first, idle / 4, pingEvery / 4} {
		if d > 0 {
			tick = min(tick, d)
		}
	}
	tick = max(tick, 5*time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	p, canPing := c.ws.(interface{ ping(context.Context) error })
	// A pong is awaited for at most this long before the next ping may go.
	pongWait := idle / 2
	if pingEvery > 0 {
		pongWait = pingEvery
	}
	pinging := make(chan struct{}, 1) // holds a token while a ping is out
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		if since := c.readSince.Load(); first > 0 && !c.gotCall.Load() && since != 0 && now.Sub(time.Unix(0, since)) >= first {
			c.failClose(statusPolicyViolation, fmt.Sprintf("no valid JSON-RPC request within %v", first),
				fmt.Errorf("%w: no valid JSON-RPC request within %v of the upgrade and the first read (-first-request-timeout)", ErrIdle, first))
			return
		}
		if idle <= 0 && (pingEvery <= 0 || !canPing) {
			if c.gotCall.Load() || first <= 0 {
				return // nothing more to watch
			}
			continue
		}
		quiet := now.Sub(time.Unix(0, c.lastActive.Load()))
		if idle > 0 && quiet >= idle {
			c.failClose(statusGoingAway, fmt.Sprintf("idle for %v", idle),
				fmt.Errorf("%w: no traffic either way and no pong for %v (-idle-timeout)", ErrIdle, idle))
			return
		}
		silent := now.Sub(time.Unix(0, c.lastSent.Load()))
		if !canPing || !(idle > 0 && quiet >= idle/2 || pingEvery > 0 && silent >= pingEvery) {
			continue
		}
		select {
		case pinging <- struct{}{}:
		default:
			continue // one ping at a time
		}
		c.lastSent.Store(now.UnixNano())
		go func() {
			defer func() { <-pinging }()
			ctx, cancel := context.WithTimeout(c.ctx, pongWait)
			defer cancel()
			if p.ping(ctx) == nil {
				c.touch()
			}
		}()
	}
}

// ping sends a WebSocket ping and waits for its pong (a Read must be under
// way: the reader answers control frames).
func (s coderSocket) ping(ctx context.Context) error { return s.c.Ping(ctx) }
