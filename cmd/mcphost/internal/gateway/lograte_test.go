//go:build !js

package gateway

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// For #14 §15: a child that prints 200,000 stderr lines and 200,000 stray
// stdout lines costs a few hundred log lines at the default -child-log-rate
// (it cost 35-42 MB): the lines past the rate are counted in summary lines,
// and every stderr line is either logged or counted.
func TestChildLogRateLimited(t *testing.T) {
	t.Parallel()
	host, logs := startStdio(t, `sh -c 'seq 200000 >&2; seq 200000; exec cat >/dev/null 2>/dev/null'`)
	mcptest.DialRaw(t, host, "")
	summary := regexp.MustCompile(`lines not logged.* lines=(\d+)`)
	deadline := time.Now().Add(15 * time.Second)
	for {
		text := logs.String()
		logged := strings.Count(text, "stderr: ")
		counted := 0
		for _, m := range summary.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			counted += n
		}
		// The stderr lines all come before any stdout line.
		if logged+counted >= 200000 {
			t.Logf("%d bytes of log: %d stderr lines logged, %d lines counted", len(text), logged, counted)
			if len(text) > 256<<10 {
				t.Fatalf("%d bytes of log for the flood, want < 256 KiB", len(text))
			}
			if logged > DefaultLogRate*logBurst+DefaultLogRate*20 {
				t.Fatalf("%d stderr lines logged, past the rate", logged)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 15 s: %d stderr lines logged, %d counted (want 200000 in all); log tail:\n%s", logged, counted, text[max(0, len(text)-2000):])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
