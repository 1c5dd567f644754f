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

const rawInitialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-test","version":"1"}}}`

// startFixture serves a stdio gateway to the test binary's stdio fixture in
// mode, with its own verdict cache, and returns host:port, the gateway and
// the fixture's log file.
func startFixture(t *testing.T, mode string) (string, *Stdio, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "fixture.log")
	log, _ := mcptest.Logger()
	g := &Stdio{Argv: []string{exe, fixtureFlag, mode, logPath}, ReadLimit: bridge.DefaultReadLimit, Grace: 500 * time.Millisecond, Log: log}
	return mcptest.Serve(t, &bridge.EndpointOptions{Logger: log}, g.Serve), g, logPath
}

func fixtureLog(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return strings.Join(strings.Fields(string(b)), " ")
}

// legacySession initializes c in the 2025-11-25 revision and lists.
func legacySession(t *testing.T, c *mcptest.Raw) {
	t.Helper()
	c.Send(rawInitialize)
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	result(t, c.Answer(`"init"`, 10*time.Second, nil), &ir)
	c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.Send(`{"jsonrpc":"2.0","id":"list","method":"resources/list"}`)
	var lr struct {
		Resources []struct{ URI string } `json:"resources"`
	}
	result(t, c.Answer(`"list"`, 10*time.Second, nil), &lr)
	if len(lr.Resources) != 1 || lr.Resources[0].URI != "mem://fixture" {
		t.Fatalf("resources/list after the restart: %+v", lr)
	}
}

// TestStdioExitsOnDiscover: a stdio server that exits when it receives the
// server/discover probe is started again once and spoken to in the legacy
// revision; the discover gets a legacy server's -32601. The verdict is
// kept: the next connection's discover is answered at once (-32601, and
// -32022 for another 2026-07-28 request) without reaching the command.
func TestStdioExitsOnDiscover(t *testing.T) {
	t.Parallel()
	host, g, logPath := startFixture(t, "exit-on-discover")
	c := mcptest.DialRaw(t, host, "")
	c.Send(modernReq(1, "server/discover", ""))
	m := c.Answer("1", 10*time.Second, nil)
	if m.Error == nil || m.Error.Code != -32601 || !strings.Contains(m.Error.Message, "2025-11-25") {
		t.Fatalf("discover to a server that exits on it: %s", m.Raw)
	}
	legacySession(t, c)
	if got := fixtureLog(t, logPath); got != "start discover start" {
		t.Fatalf("fixture log after the first connection: %q, want one start, the discover, one restart", got)
	}
	if !g.legacyOnly.Load() {
		t.Fatal("the verdict was not kept")
	}

	c2 := mcptest.DialRaw(t, host, "")
	c2.Send(modernReq(1, "server/discover", ""))
	if m := c2.Answer("1", 10*time.Second, nil); m.Error == nil || m.Error.Code != -32601 {
		t.Fatalf("discover on the second connection: %s", m.Raw)
	}
	c2.Send(modernReq(2, "resources/read", `"uri":"mem://fixture"`))
	if m := c2.Answer("2", 10*time.Second, nil); m.Error == nil || m.Error.Code != -32022 ||
		!strings.Contains(string(m.Error.Data), `"supported":["2025-11-25"]`) {
		t.Fatalf("a 2026-07-28 read on the second connection: %s", m.Raw)
	}
	legacySession(t, c2)
	if got := fixtureLog(t, logPath); got != "start discover start start" {
		t.Fatalf("fixture log after the second connection: %q, want no second discover", got)
	}
}

// TestStdioAnswersDiscover: a stdio server that speaks 2026-07-28 (go-sdk)
// gets the probe and answers it; nothing is restarted or cached.
func TestStdioAnswersDiscover(t *testing.T) {
	t.Parallel()
	host, g, logPath := startFixture(t, "modern")
	c := mcptest.DialRaw(t, host, "")
	c.Send(modernReq(1, "server/discover", ""))
	var disc struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	result(t, c.Answer("1", 10*time.Second, nil), &disc)
	c.Send(modernReq(2, "resources/read", `"uri":"mem://fixture"`))
	var rr struct {
		Contents []struct{ Text string } `json:"contents"`
	}
	result(t, c.Answer("2", 10*time.Second, nil), &rr)
	if len(rr.Contents) != 1 || rr.Contents[0].Text != "fixture" {
		t.Fatalf("modern read over stdio: %+v", rr)
	}
	if got := fixtureLog(t, logPath); got != "start discover" || g.legacyOnly.Load() {
		t.Fatalf("fixture log %q, verdict %v", got, g.legacyOnly.Load())
	}
}
