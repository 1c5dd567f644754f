//go:build !linux && !js

package gateway

import (
	"os/exec"
	"time"
)

// Without Linux's Pdeathsig and process-group control the server runs as a
// direct child: it is stopped by closing its stdin, then killed after the
// grace period. A grandchild may outlive a killed gateway here.
func childCommand(argv []string, _ time.Duration) (*exec.Cmd, error) {
	return exec.Command(argv[0], argv[1:]...), nil
}

func spawn(cmd *exec.Cmd) error { return cmd.Start() }

func terminate(*exec.Cmd) {}

func kill(cmd *exec.Cmd) { cmd.Process.Kill() }

func SupervisorMode() (int, bool) { return 0, false }
