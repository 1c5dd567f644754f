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

// supervise runs argv in a new process group whose stdio is ours, and kills
// the whole group when argv exits or when a stop signal (from the gateway, or
// Pdeathsig when the gateway dies) arrives: SIGTERM first, SIGKILL after
// grace. It returns argv's exit code (128+signal when signalled).
func supervise(argv []string, grace time.Duration) int {
	runtime.LockOSThread() // Pdeathsig of the server follows this thread
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "mcphost supervisor: no command")
		return 2
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
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
		// The server is gone; take any grandchild it left with it.
		syscall.Kill(-pgid, syscall.SIGKILL)
	case <-sigs:
		syscall.Kill(-pgid, syscall.SIGTERM)
		exited := false
		select {
		case werr = <-done:
			exited = true
		case <-time.After(grace):
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
		if !exited {
			select {
			case werr = <-done:
			case <-time.After(2 * time.Second):
			}
		}
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 0
}
