//go:build linux

package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// procInfo reads state and parent of pid from /proc; ok is false when the
// process is gone.
func procInfo(pid int) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+2:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0][0], ppid, true
}

// descendantPIDs lists the live (non-zombie) descendants of root.
func descendantPIDs(root int) []int {
	ents, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ppid, ok := procInfo(pid); ok && st != 'Z' {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// alive reports which of pids still run (zombies count as gone: they run nothing).
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		if st, _, ok := procInfo(p); ok && st != 'Z' {
			out = append(out, p)
		}
	}
	return out
}

// waitGone waits up to 20 s (the machine may be loaded) for every pid to be gone.
func waitGone(t *testing.T, pids []int, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := alive(pids)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: processes %v still running after 20 s", what, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitDescendants waits until root has at least n live descendants, one of
// them running server-everything.
func waitDescendants(t *testing.T, root, n int) []int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := descendantPIDs(root)
		node := false
		for _, p := range d {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
			node = node || strings.Contains(string(b), "server-everything")
		}
		if len(d) >= n && node {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway %d has %d descendants after 20 s, want >= %d", root, len(d), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startBinary runs the built mcphost with args and returns the process and
// its host:port (read from the "serving" line).
func startBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-no-web"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &mcptest.LogBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("mcphost log:\n%s", logs)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the serving line: %v", err)
	}
	const pre = "mcphost: serving ws://"
	if !strings.HasPrefix(line, pre) {
		t.Fatalf("unexpected first line %q", line)
	}
	host := strings.TrimSuffix(strings.Fields(strings.TrimPrefix(line, pre))[0], "/mcp")
	return cmd, host
}

// TestNoDescendantSurvives runs the real binary as a stdio gateway to
// server-everything under sh (so node is a grandchild of the supervisor) and
// checks that no descendant survives (1) the WebSocket client going away,
// (2) SIGKILL of the gateway, and (3) that SIGINT shuts down cleanly (exit 0)
// with a session open, again leaving no descendant.
func TestNoDescendantSurvives(t *testing.T) {
	t.Parallel()
	peer := mcptest.NPMPeer(t, "server-everything")
	bin := filepath.Join(t.TempDir(), "mcphost")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// sh stays the parent of node, so node is a grandchild, as under npx;
	// sh and a background sleep ignore SIGTERM and stdin EOF (a slow
	// exiter), and the sleep would survive anything but a group kill.
	stdio := `sh -c 'trap "" TERM; sleep 300 & node "$0" stdio; wait' ` + peer
	ctx := context.Background()

	t.Run("client closes", func(t *testing.T) {
		cmd, host := startBinary(t, bin, "-stdio", stdio)
		s, err := bridge.Dial(ctx, "ws://"+host+"/mcp", &bridge.Options{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListResources(ctx, nil); err != nil {
			t.Fatal(err)
		}
		pids := waitDescendants(t, cmd.Process.Pid, 3) // (supervisor,) sh, sleep, node
		s.Close()
		waitGone(t, pids, "after the WebSocket client closed")
		if _, _, ok := procInfo(cmd.Process.Pid); !ok {
			t.Fatal("the gateway itself died")
		}
	})

	t.Run("gateway SIGKILLed", func(t *testing.T) {
		cmd, host := startBinary(t, bin, "-stdio", stdio)
		s, err := bridge.Dial(ctx, "ws://"+host+"/mcp", &bridge.Options{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.ListResources(ctx, nil); err != nil {
			t.Fatal(err)
		}
		pids := waitDescendants(t, cmd.Process.Pid, 3)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		waitGone(t, pids, "after SIGKILL of the gateway")
	})

	t.Run("SIGINT shuts down cleanly", func(t *testing.T) {
		cmd, host := startBinary(t, bin, "-stdio", stdio)
		s, err := bridge.Dial(ctx, "ws://"+host+"/mcp", &bridge.Options{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		pids := waitDescendants(t, cmd.Process.Pid, 3)
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("exit after SIGINT: %v, want status 0", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("no exit within 15 s of SIGINT")
		}
		waitGone(t, pids, "after SIGINT")
		select {
		case <-s.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the client session did not end at shutdown")
		}
	})
}
