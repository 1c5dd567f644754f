//go:build !js

package gateway

import (
	"os"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// TestMain lets the test binary act as the stdio supervisor, as the mcphost
// binary does (the stdio gateway re-executes os.Executable()), and as the
// stdio server fixture (see fixtureFlag).
func TestMain(m *testing.M) {
	if code, ok := SupervisorMode(); ok {
		os.Exit(code)
	}
	if len(os.Args) > 1 && os.Args[1] == fixtureFlag {
		os.Exit(stdioFixture(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// startStdio serves a stdio gateway to command (split as -stdio is) on a
// loopback endpoint, with mcphost's default read limit and a short kill
// grace, and returns host:port and the gateway's log.
func startStdio(t *testing.T, command string) (string, *mcptest.LogBuffer) {
	t.Helper()
	argv, err := SplitCommand(command)
	if err != nil {
		t.Fatalf("SplitCommand(%q): %v", command, err)
	}
	log, logs := mcptest.Logger()
	g := &Stdio{Argv: argv, ReadLimit: bridge.DefaultReadLimit, Grace: 500 * time.Millisecond, Log: log}
	return mcptest.Serve(t, &bridge.EndpointOptions{Logger: log}, g.Serve), logs
}

// startHTTP serves g on a loopback endpoint, filling in what mcphost's flag
// defaults give (the read limit, a logger) and a short stream retry, and
// returns host:port.
func startHTTP(t *testing.T, g *HTTP) string {
	t.Helper()
	log, _ := mcptest.Logger()
	g.ReadLimit, g.Retry, g.Log = bridge.DefaultReadLimit, 50*time.Millisecond, log
	return mcptest.Serve(t, &bridge.EndpointOptions{Logger: log}, g.Serve)
}
