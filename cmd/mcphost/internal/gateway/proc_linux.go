//go:build !js

package gateway

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// superviseEnv switches the mcphost executable into supervisor mode (see
// supervise); its value is the grace period in milliseconds.
const superviseEnv = "MCPHOST_SUPERVISE"

// childCommand runs argv under a supervisor: this same executable in
// supervisor mode, in a process group of its own, with Pdeathsig SIGTERM.
// The supervisor starts argv in another process group with Pdeathsig
// SIGKILL and kills that whole group when argv exits, when it is told to
// stop, or when the gateway dies, even by SIGKILL. That is what keeps an
// npx or sh grandchild from outliving the gateway: Pdeathsig alone only
// reaches the direct child.
func childCommand(argv []string, grace time.Duration) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating the mcphost executable for the supervisor: %w", err)
	}
	cmd := exec.Command(exe, argv...)
	cmd.Env = append(os.Environ(), superviseEnv+"="+strconv.FormatInt(grace.Milliseconds(), 10))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd, nil
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawnCh   = make(chan spawnReq)
)

// spawn starts cmd from one OS thread that lives as long as the process:
// Pdeathsig fires when the thread that forked the child exits, not the
// process, and Go may retire an ordinary goroutine's thread at any time.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread stays
			for r := range spawnCh {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnCh <- spawnReq{cmd, done}
	return <-done
}

// terminate asks the supervisor to stop the server (it forwards SIGTERM to
// the server's group and escalates to SIGKILL after the grace period).
func terminate(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// kill ends the supervisor's group at once; the server follows by Pdeathsig.
func kill(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// supervisorMode reports whether this process was started as a supervisor,
// and runs it if so; main and TestMain call it first.
func SupervisorMode() (exitCode int, ok bool) {
	v, ok := os.LookupEnv(superviseEnv)
	if !ok {
		return 0, false
	}
	ms, _ := strconv.Atoi(v)
	return supervise(os.Args[1:], time.Duration(max(ms, 100))*time.Millisecond), true
}

// supervise runs argv in a new process group whose stdio is ours, as a
// child subreaper (prctl PR_SET_CHILD_SUBREAPER): every descendant orphaned
// below it, including one that left argv's process group with setsid, is
// re-parented to the supervisor instead of init. When argv exits, or a stop
// signal arrives (from the gateway, or Pdeathsig when the gateway dies, even
// by SIGKILL), it stops the tree: SIGTERM to argv's group first and SIGKILL
// after grace (at once when argv has exited), then it kills and reaps the
// pids listed in /proc/self/task/*/children until it has no child left. (No
// cgroup.kill: this must work on cgroup v1.) It returns argv's exit code
// (128+signal when signalled).
func supervise(argv []string, grace time.Duration) int {
	runtime.LockOSThread() // Pdeathsig of the server follows this thread
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "mcphost supervisor: no command")
		return 2
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "mcphost supervisor: cannot become a child subreaper (descendants that call setsid may survive): %v\n", err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, superviseEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "mcphost supervisor: cannot start %q: %v\n", argv[0], err)
		return 127
	}
	pgid := cmd.Process.Pid
	// One reaper for every child, the server and adopted orphans alike
	// (so cmd.Wait is never called): the server's status goes to done,
	// and empty is closed once no child at all is left.
	done := make(chan syscall.WaitStatus, 1)
	empty := make(chan struct{})
	go reap(pgid, done, empty)
	var ws syscall.WaitStatus
	exited := false
	select {
	case ws = <-done:
		exited = true
	case <-sigs:
		syscall.Kill(-pgid, syscall.SIGTERM)
		signalChildren(syscall.SIGTERM)
		select {
		case ws = <-done:
			exited = true
		case <-time.After(grace):
		}
	}
	if !killTree(pgid, empty, 10*time.Second) {
		fmt.Fprintln(os.Stderr, "mcphost supervisor: descendants still running 10 s after SIGKILL")
	}
	if !exited {
		select {
		case ws = <-done:
		case <-time.After(2 * time.Second):
		}
	}
	switch {
	case ws.Signaled():
		return 128 + int(ws.Signal())
	case ws.Exited():
		return ws.ExitStatus()
	}
	return 0
}

// reap waits for every child of the process: server's status goes to done;
// empty is closed when there is no child left (ECHILD), which is final: an
// orphan below a subreaper comes to it, so no child means no descendant.
func reap(server int, done chan<- syscall.WaitStatus, empty chan<- struct{}) {
	defer close(empty)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD
			return
		case pid == server:
			done <- ws
		}
	}
}

// killTree SIGKILLs the server's process group and every child of this
// process (descendants that escaped the group with setsid are adopted as
// their parents die, and listed next round) until none is left or the
// deadline passes; it reports whether the tree is gone.
func killTree(pgid int, empty <-chan struct{}, deadline time.Duration) bool {
	stop := time.After(deadline)
	for {
		syscall.Kill(-pgid, syscall.SIGKILL)
		signalChildren(syscall.SIGKILL)
		select {
		case <-empty:
			return true
		case <-stop:
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// signalChildren sends sig to every pid in /proc/self/task/*/children: the
// children of this process only, whose pids cannot be reused before this
// process reaps them (only reap does, and a pid it reaps between the listing
// and the signal is the one window, of microseconds).
func signalChildren(sig syscall.Signal) {
	for _, pid := range childPIDs() {
		syscall.Kill(pid, sig)
	}
}

func childPIDs() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
