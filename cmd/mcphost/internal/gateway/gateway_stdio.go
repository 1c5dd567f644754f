//go:build !js

package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// A Stdio gateway spawns a command once per WebSocket connection and relays
// between the connection and the child's stdin and stdout (newline-delimited
// JSON). Its fields must not change once it serves.
type Stdio struct {
	Argv      []string      // the command, run directly (see [SplitCommand])
	ReadLimit int64         // longest stdout line (message) accepted, in bytes
	Grace     time.Duration // SIGTERM → SIGKILL
	Log       *slog.Logger
}

// Serve runs one connection: start the child, pump, then stop the child's
// whole process group. When the child cannot be started or ends, the
// browser's waiting requests are answered with why (for an exit, its status
// and last stderr line).
func (g *Stdio) Serve(ctx context.Context, c *bridge.Conn) {
	ch, err := startChild(g.Argv, g.Grace, g.Log)
	if err != nil {
		g.Log.Error("gateway: cannot start the stdio server", "command", g.Argv[0], "err", err)
		answerStartFailure(ctx, c, fmt.Errorf("cannot start the stdio server %q: %v", g.Argv[0], err))
		return
	}
	defer ch.stop()
	t := &mcp.IOTransport{
		Reader:        &lineFilter{r: bufio.NewReaderSize(ch.stdout, 64<<10), limit: g.ReadLimit, log: ch.log},
		Writer:        ch.stdin,
		MaxLineLength: int(g.ReadLimit) + 1,
	}
	up, err := t.Connect(ctx)
	if err != nil {
		return
	}
	go func() {
		select {
		case <-ch.exited:
			// Let the last lines drain, then end the session.
			time.Sleep(50 * time.Millisecond)
			up.Close()
		case <-ctx.Done():
		}
	}()
	p := &pump{log: ch.log, browser: c, up: up, terminal: func(err error) bool {
		return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed)
	}, endReason: ch.endReason}
	p.run(ctx)
}

// answerStartFailure answers the browser's first request with an error
// naming why the upstream is missing, then closes.
func answerStartFailure(ctx context.Context, c *bridge.Conn, cause error) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	go func() { <-rctx.Done(); c.Close() }()
	msg, err := c.Read(rctx)
	if err != nil {
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.Write(rctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcphost gateway: " + cause.Error()}})
	}
}

// A child is a running stdio server.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	grace  time.Duration
	log    *slog.Logger
	exited chan struct{} // closed when the process has been reaped
	err    error         // its exit status, once exited

	stderrDone chan struct{} // closed when stderr reached EOF
	mu         sync.Mutex
	lastStderr string
}

// endReason describes how the child ended, with its last stderr line.
func (c *child) endReason() string {
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		return "the stdio server closed its stdout"
	}
	select { // its last words may still be in the stderr pipe
	case <-c.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
	c.mu.Lock()
	last := c.lastStderr
	c.mu.Unlock()
	why := "the stdio server exited (" + exitStatus(c.err) + ")"
	if last != "" {
		why += fmt.Sprintf(" after writing %q to stderr", last)
	}
	return why
}

// startChild starts argv with stdin, stdout and stderr on pipes of our own
// (so that reaping the process never truncates what we still have to read)
// and logs its stderr line by line with a prefix naming the command.
func startChild(argv []string, grace time.Duration, log *slog.Logger) (*child, error) {
	cmd, err := childCommand(argv, grace)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = spawn(cmd)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	name := filepath.Base(argv[0])
	if len(argv) > 1 && (name == "node" || name == "python" || name == "python3" || name == "npx" || name == "uvx") {
		name += " " + filepath.Base(argv[1])
	}
	c := &child{cmd: cmd, stdin: inW, stdout: outR, grace: grace, exited: make(chan struct{}), stderrDone: make(chan struct{}),
		log: log.With("child", name, "pid", cmd.Process.Pid)}
	c.log.Info("gateway: started stdio server", "argv", argv)
	go c.logStderr(errR)
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
		c.log.Info("gateway: stdio server exited", "status", exitStatus(c.err))
	}()
	return c, nil
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// logStderr logs each stderr line of the child (truncated at 4 KiB).
func (c *child) logStderr(r *os.File) {
	defer close(c.stderrDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			full := err == nil
			text := string(bytes.TrimRight(line, "\r\n"))
			c.log.Info("stderr: " + text)
			c.mu.Lock()
			c.lastStderr = truncateRunes(text, 300)
			c.mu.Unlock()
			for !full && errors.Is(err, bufio.ErrBufferFull) { // discard the rest of a long line
				_, err = br.ReadSlice('\n')
				full = err == nil
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// stop closes the child's stdin and ends its process group: SIGTERM at
// once, SIGKILL after the grace period. It waits until the child is reaped.
func (c *child) stop() {
	c.stdin.Close()
	c.stdout.Close()
	select {
	case <-c.exited:
		return
	default:
	}
	terminate(c.cmd)
	select {
	case <-c.exited:
		return
	case <-time.After(c.grace + time.Second):
	}
	c.log.Warn("gateway: stdio server ignored SIGTERM; killing it")
	kill(c.cmd)
	<-c.exited
}

// A lineFilter passes the child's stdout to go-sdk's newline-delimited JSON
// reader one line at a time, dropping (and logging) any line that is not one
// JSON value or is longer than the read limit, so a stray print or an
// oversized message never breaks the decoder and never ends the session.
type lineFilter struct {
	r       *bufio.Reader
	limit   int64
	log     *slog.Logger
	pending []byte
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.readLine()
		if len(line) > 0 {
			f.pending = line
			break
		}
		if err != nil {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine returns the next acceptable line with its newline, or nil.
func (f *lineFilter) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if int64(len(buf)+len(chunk)) > f.limit+2 {
			n := int64(len(buf) + len(chunk))
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = f.r.ReadSlice('\n')
				n += int64(len(chunk))
			}
			f.log.Warn("gateway: dropped a stdout line over -read-limit", "bytes", n, "limit", f.limit)
			return nil, ignoreFull(err)
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		trimmed := bytes.TrimSpace(buf)
		switch {
		case len(trimmed) == 0:
			return nil, err
		case !json.Valid(trimmed):
			f.log.Warn("gateway: dropped a stdout line that is not JSON", "line", truncateRunes(string(trimmed), 120))
			return nil, err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return append(trimmed, '\n'), err
	}
}

func ignoreFull(err error) error {
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil
	}
	return err
}

// Close closes nothing: the child's pipes are closed by child.stop.
func (f *lineFilter) Close() error { return nil }

// truncateRunes cuts s to n runes, the last one an ellipsis (log lines and
// error messages quoting the child's output).
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
