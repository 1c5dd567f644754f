//go:build !js

package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// startSlow serves a stdio gateway to the fixture in mode "slow=sleep" with
// the given -start-timeout.
func startSlow(t *testing.T, sleep, timeout time.Duration) (string, *mcptest.LogBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log, logs := mcptest.Logger()
	g := &Stdio{Argv: []string{exe, fixtureFlag, "slow=" + sleep.String(), filepath.Join(t.TempDir(), "fixture.log")},
		ReadLimit: bridge.DefaultReadLimit, Grace: 500 * time.Millisecond, Log: log, StartTimeout: timeout}
	return mcptest.Serve(t, &bridge.EndpointOptions{Logger: log}, g.Serve), logs
}

// TestStdioSlowStart: a child that takes 1.5 s before it reads anything (a
// cold "npx -y") is waited for within -start-timeout: its initialize answer
// arrives, nothing is killed, and the session works.
func TestStdioSlowStart(t *testing.T) {
	t.Parallel()
	host, logs := startSlow(t, 1500*time.Millisecond, 10*time.Second)
	c := mcptest.DialRaw(t, host, "")
	start := time.Now()
	legacySession(t, c)
	if took := time.Since(start); took < time.Second {
		t.Fatalf("the slow fixture answered in %v", took)
	}
	if strings.Contains(logs.String(), "start-timeout") || strings.Contains(logs.String(), "exited") {
		t.Fatalf("the slow child was timed out or stopped:\n%s", logs)
	}
}

// TestStdioStartTimeout: a child that has not answered initialize within
// -start-timeout gets it answered by the gateway with an error naming the
// timeout, the command and the child's last stderr line; the child is left
// running, and its late answer is dropped (the next answer is the next
// request's). The timeout is 1 s, not less: the child is this test binary,
// built with -race, and under a full make test it had not yet started and
// printed its stderr line 300 ms after the spawn.
func TestStdioStartTimeout(t *testing.T) {
	t.Parallel()
	host, _ := startSlow(t, 4*time.Second, time.Second)
	c := mcptest.DialRaw(t, host, "")
	c.Send(rawInitialize)
	sent := time.Now()
	m := c.Next(5 * time.Second)
	took := time.Since(sent)
	if string(m.ID) != `"init"` || m.Error == nil {
		t.Fatalf("initialize to a child that is still starting: %s", m.Raw)
	}
	for _, want := range []string{"did not answer initialize within 1s (-start-timeout)", fixtureFlag + " slow=4s",
		`its last stderr line: "stdio-fixture: warming up"`} {
		if !strings.Contains(m.Error.Message, want) {
			t.Errorf("error %q does not contain %q", m.Error.Message, want)
		}
	}
	if m.Error.Code != -32603 || !strings.Contains(string(m.Error.Data), `"retryable":true`) {
		t.Errorf("error code %d data %s", m.Error.Code, m.Error.Data)
	}
	if took < 900*time.Millisecond || took > 3500*time.Millisecond {
		t.Errorf("answered after %v, want about 1s", took)
	}
	c.Send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := c.Next(10 * time.Second); string(m.ID) != `"p"` || m.Error != nil {
		t.Fatalf("after the timeout, the next message is %s; want the ping's answer (the late initialize answer dropped)", m.Raw)
	}
}
