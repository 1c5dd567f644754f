//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// waitPIDs waits until each file holds a pid running sleep and returns them.
func waitPIDs(t *testing.T, files ...string) []int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var pids []int
		for _, f := range files {
			b, _ := os.ReadFile(f)
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if err == nil && strings.HasPrefix(string(cmdline), "sleep\x00") {
				pids = append(pids, pid)
			}
		}
		if len(pids) == len(files) {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sleeps of the stdio command did not start within 20 s (%v)", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionOf returns the session id of pid (field 6 of /proc/pid/stat).
func sessionOf(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// For #14 §14: grandchildren of a -stdio child that leave its process group
// and session with setsid (one with setsid(1) in the background, one with
// setsid -f, whose parent exits at once so it is orphaned while the child
// still runs) die with the connection, and with the gateway when it is
// SIGKILLed: the per-connection supervisor is a child subreaper that kills
// and reaps its children until none remain.
func TestSetsidDescendantsDie(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Fatal("setsid(1) (util-linux) is required for this test")
	}
	var leftover []int
	bin := filepath.Join(t.TempDir(), "mcphost")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// sh ignores SIGTERM and reads stdin (so it lives while the
	// connection does); the sleeps are in sessions of their own, out of
	// reach of a process-group kill, and write their pids to dir.
	script := func(dir string) string {
		return `sh -c 'setsid sleep 3001 & echo $! > ` + dir + `/a; ` +
			`setsid -f sh -c "echo \$\$ > ` + dir + `/b; exec sleep 3002"; trap "" TERM; cat >/dev/null'`
	}
	escaped := func(t *testing.T, pids []int) {
		t.Helper()
		for _, p := range pids {
			if sessionOf(p) != p {
				t.Fatalf("sleep %d does not lead a session of its own (the test does not test setsid)", p)
			}
		}
	}
	t.Cleanup(func() { // whatever the outcome, leave no sleep behind
		for _, p := range leftover {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})

	t.Run("client closes", func(t *testing.T) {
		dir := t.TempDir()
		cmd, host := startBinary(t, bin, "-stdio", script(dir))
		c := mcptest.DialRaw(t, host, "")
		pids := waitPIDs(t, dir+"/a", dir+"/b")
		leftover = append(leftover, pids...)
		escaped(t, pids)
		c.Close()
		waitGone(t, pids, "after the WebSocket client closed")
		if _, _, ok := procInfo(cmd.Process.Pid); !ok {
			t.Fatal("the gateway itself died")
		}
	})

	t.Run("gateway SIGKILLed", func(t *testing.T) {
		dir := t.TempDir()
		cmd, host := startBinary(t, bin, "-stdio", script(dir))
		mcptest.DialRaw(t, host, "")
		pids := waitPIDs(t, dir+"/a", dir+"/b")
		leftover = append(leftover, pids...)
		escaped(t, pids)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		waitGone(t, pids, "after SIGKILL of the gateway")
	})
}
