//go:build !js

package gateway

import (
	"log/slog"
	"sync"
	"time"
)

// DefaultLogRate is the default of [Stdio.LogRate]: lines per second.
const DefaultLogRate = 20

// logBurst is how many seconds' worth of lines a quiet child may log at once.
const logBurst = 10

// A logLimiter rate-limits the log lines a child causes (its stderr, stray
// stdout): a token bucket of rate lines per second holding logBurst seconds'
// worth. Lines past it are counted, and the count is logged with the next
// line let through, a second after the first line counted, and when the
// child ends, so a child printing 200,000
// lines costs a few hundred log lines, not megabytes.
type logLimiter struct {
	log  *slog.Logger
	rate float64

	mu         sync.Mutex
	tokens     float64
	last       time.Time
	suppressed int64
	pending    bool // a flush is scheduled
}

func newLogLimiter(log *slog.Logger, rate int) *logLimiter {
	if rate <= 0 {
		rate = DefaultLogRate
	}
	return &logLimiter{log: log, rate: float64(rate), tokens: float64(rate * logBurst), last: time.Now()}
}

// logf logs msg with args at level when the bucket allows, else counts it.
func (l *logLimiter) logf(level slog.Level, msg string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	l.tokens = min(l.tokens+now.Sub(l.last).Seconds()*l.rate, l.rate*logBurst)
	l.last = now
	if l.tokens < 1 {
		l.suppressed++
		if !l.pending { // a flood that stops is reported within a second
			l.pending = true
			time.AfterFunc(time.Second, l.flush)
		}
		l.mu.Unlock()
		return
	}
	l.tokens--
	n := l.suppressed
	l.suppressed = 0
	l.mu.Unlock()
	if n > 0 {
		l.summary(n)
	}
	l.log.Log(nil, level, msg, args...)
}

// flush logs the count of lines not logged, if any.
func (l *logLimiter) flush() {
	l.mu.Lock()
	n := l.suppressed
	l.suppressed, l.pending = 0, false
	l.mu.Unlock()
	if n > 0 {
		l.summary(n)
	}
}

func (l *logLimiter) summary(n int64) {
	l.log.Warn("gateway: the stdio server's output exceeded the log rate; lines not logged",
		"lines", n, "rate_per_second", int(l.rate), "flag", "-child-log-rate")
}
