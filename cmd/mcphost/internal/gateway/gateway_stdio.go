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
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// A Stdio gateway spawns a command once per WebSocket connection and relays
// between the connection and the child's stdin and stdout (newline-delimited
// JSON). Its exported fields must not change once it serves.
//
// Some stdio servers exit on a request they do not know before initialize,
// such as the server/discover probe of the 2026-07-28 revision. When the
// child exits while the connection's first requests are all of that
// revision, it is started again once, those requests are answered as a
// legacy server would (server/discover: -32601; any other: -32022 listing
// 2025-11-25), and the connection goes on in the legacy revision. The
// verdict is kept for the gateway's lifetime: later connections get those
// answers at once, and the command never sees such a request again.
// DefaultStartTimeout is [Stdio].StartTimeout's default: a cold
// "npx -y <package>" needs about 10 s.
const DefaultStartTimeout = 30 * time.Second

type Stdio struct {
	Argv      []string      // the command, run directly (see [SplitCommand])
	ReadLimit int64         // longest stdout line (message) accepted, in bytes
	Grace     time.Duration // SIGTERM → SIGKILL
	Log       *slog.Logger
	// LogRate bounds the log lines per second a child causes (stderr,
	// stdout lines that are not JSON); 0 means [DefaultLogRate].
	LogRate int
	// StartTimeout is how long a starting child has to answer the first
	// request (initialize, or 2026-07-28 server/discover) before the
	// gateway answers it with an error naming the timeout and the command;
	// 0 means [DefaultStartTimeout].
	StartTimeout time.Duration

	legacyOnly atomic.Bool // the command exits on 2026-07-28 requests
}

// Serve runs one connection: start the child, pump, then stop the child's
// whole process group. When the child cannot be started or ends, the
// browser's waiting requests are answered with why (for an exit, its status
// and last stderr line).
func (g *Stdio) Serve(ctx context.Context, c *bridge.Conn) {
	ctx, cancel := context.WithCancel(ctx) // ends the child's readers with the connection
	defer cancel()
	u := &stdioUpstream{g: g, ctx: ctx, in: make(chan childRead), local: make(chan jsonrpc.Message, 64),
		probing: true, probes: map[jsonrpc.ID]*jsonrpc.Request{},
		starting: map[jsonrpc.ID]*time.Timer{}, late: map[jsonrpc.ID]bool{}}
	defer u.stopStartTimers()
	if err := u.start(); err != nil {
		g.Log.Error("gateway: cannot start the stdio server", "command", g.Argv[0], "err", err)
		answerStartFailure(ctx, c, fmt.Errorf("cannot start the stdio server %q: %v", g.Argv[0], err))
		return
	}
	defer u.stop()
	p := &pump{log: u.log(), browser: c, up: u, terminal: func(err error) bool {
		return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed)
	}, endReason: u.endReason}
	p.run(ctx)
}

// A stdioUpstream is the connection to the current child: the first one,
// or the one started again after a child exited on the 2026-07-28 probe.
type stdioUpstream struct {
	g     *Stdio
	ctx   context.Context
	in    chan childRead       // from every child's reader, tagged with its generation
	local chan jsonrpc.Message // answers the gateway makes itself

	mu        sync.Mutex
	ch        *child
	conn      mcp.Connection
	gen       int
	probing   bool                            // no legacy request yet, no 2026-07-28 answer yet
	probed    bool                            // a 2026-07-28 request went to the child while probing
	restarted bool                            // the one restart has happened
	probes    map[jsonrpc.ID]*jsonrpc.Request // 2026-07-28 requests of the probe phase not yet answered
	// starting holds the handshake requests (initialize, server/discover)
	// the child has not answered yet, each with its -start-timeout timer;
	// late holds those the gateway answered itself when it fired, whose
	// answer from the child, if it ever comes, is dropped.
	starting map[jsonrpc.ID]*time.Timer
	late     map[jsonrpc.ID]bool
}

type childRead struct {
	gen int
	msg jsonrpc.Message
	err error
}

// start starts a child and reads it under a new generation.
func (u *stdioUpstream) start() error {
	ch, err := startChild(u.g.Argv, u.g.Grace, u.g.Log, u.g.LogRate)
	if err != nil {
		return err
	}
	t := &mcp.IOTransport{
		Reader:        &lineFilter{r: bufio.NewReaderSize(ch.stdout, 64<<10), limit: u.g.ReadLimit, log: ch.lim},
		Writer:        ch.stdin,
		MaxLineLength: int(u.g.ReadLimit) + 1,
	}
	conn, err := t.Connect(u.ctx)
	if err != nil {
		ch.stop()
		return err
	}
	u.mu.Lock()
	u.gen++
	gen := u.gen
	u.ch, u.conn = ch, conn
	u.mu.Unlock()
	go func() {
		select {
		case <-ch.exited:
			// Let the last lines drain, then end the connection.
			time.Sleep(50 * time.Millisecond)
			conn.Close()
		case <-u.ctx.Done():
		}
	}()
	go func() {
		for {
			msg, err := conn.Read(u.ctx)
			select {
			case u.in <- childRead{gen, msg, err}:
			case <-u.ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return nil
}

func (u *stdioUpstream) current() (*child, mcp.Connection) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.ch, u.conn
}

func (u *stdioUpstream) log() *slog.Logger { ch, _ := u.current(); return ch.log }

func (u *stdioUpstream) endReason() string { ch, _ := u.current(); return ch.endReason() }

func (u *stdioUpstream) stop() { ch, _ := u.current(); ch.stop() }

// SessionID implements mcp.Connection.
func (u *stdioUpstream) SessionID() string { return "" }

// Close implements mcp.Connection.
func (u *stdioUpstream) Close() error { _, conn := u.current(); return conn.Close() }

// Write sends msg to the current child, or answers it locally when the
// command is known to exit on 2026-07-28 requests.
func (u *stdioUpstream) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		v := modernVersion(req)
		if v != "" && u.g.legacyOnly.Load() {
			return u.answerLocally(ctx, req, v)
		}
		u.mu.Lock()
		switch {
		case v == "":
			u.probing = false
		case u.probing:
			u.probed = true
			u.probes[req.ID] = req
		}
		if req.Method == "initialize" || req.Method == "server/discover" {
			u.armStartTimer(req)
		}
		u.mu.Unlock()
	}
	_, conn := u.current()
	return conn.Write(ctx, msg)
}

// armStartTimer gives the child -start-timeout to answer a handshake
// request (u.mu held). A slow start is not a failure: nothing stops the
// child meanwhile, and the browser's connect waits as long.
func (u *stdioUpstream) armStartTimer(req *jsonrpc.Request) {
	if old := u.starting[req.ID]; old != nil {
		old.Stop()
	}
	d := u.g.StartTimeout
	if d <= 0 {
		d = DefaultStartTimeout
	}
	id, method := req.ID, req.Method
	u.starting[id] = time.AfterFunc(d, func() {
		u.mu.Lock()
		if _, ok := u.starting[id]; !ok {
			u.mu.Unlock()
			return
		}
		delete(u.starting, id)
		u.late[id] = true
		ch := u.ch
		u.mu.Unlock()
		why := fmt.Sprintf("the stdio server %q did not answer %s within %v (-start-timeout)",
			truncateRunes(strings.Join(u.g.Argv, " "), 200), method, d)
		if last := ch.lastStderrLine(); last != "" {
			why += fmt.Sprintf("; its last stderr line: %q", last)
		}
		ch.log.Warn("gateway: " + why)
		e := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcphost gateway: " + why, Data: retryableData}
		select {
		case u.local <- &jsonrpc.Response{ID: id, Error: e}:
		case <-u.ctx.Done():
		}
	})
}

// answered disarms the start timer of id, and reports whether the answer
// comes too late (the gateway answered it already).
func (u *stdioUpstream) answered(id jsonrpc.ID) (late bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if t := u.starting[id]; t != nil {
		t.Stop()
		delete(u.starting, id)
	}
	if u.late[id] {
		delete(u.late, id)
		return true
	}
	return false
}

func (u *stdioUpstream) stopStartTimers() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, t := range u.starting {
		t.Stop()
		delete(u.starting, id)
	}
}

// answerLocally answers a 2026-07-28 request as a legacy server would.
func (u *stdioUpstream) answerLocally(ctx context.Context, req *jsonrpc.Request, version string) error {
	why := fmt.Sprintf("the stdio server %q exits on requests of the 2026-07-28 revision; it is spoken to in the 2025-11-25 revision (initialize)", filepath.Base(u.g.Argv[0]))
	e := &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "mcphost gateway: " + why}
	if req.Method != "server/discover" {
		data, _ := json.Marshal(map[string]any{"supported": []string{"2025-11-25"}, "requested": version})
		e = &jsonrpc.Error{Code: codeUnsupportedProtocolVersion, Message: "mcphost gateway: unsupported protocol version: " + why, Data: data}
	}
	select {
	case u.local <- &jsonrpc.Response{ID: req.ID, Error: e}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// codeUnsupportedProtocolVersion is the revision's UnsupportedProtocolVersion.
const codeUnsupportedProtocolVersion = -32022

// Read returns the next message of the current child or a local answer.
// A child that ends during the probe phase, after a 2026-07-28 request
// reached it, is started again once; the requests it left unanswered get
// the legacy answers.
func (u *stdioUpstream) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case m := <-u.local:
			return m, nil
		case r := <-u.in:
			u.mu.Lock()
			stale := r.gen != u.gen
			if r.err == nil {
				if resp, ok := r.msg.(*jsonrpc.Response); ok && !stale {
					if _, probe := u.probes[resp.ID]; probe {
						delete(u.probes, resp.ID)
						if resp.Error == nil {
							u.probing = false // it speaks the revision
						}
					}
				}
			}
			restart := r.err != nil && !stale && u.probing && u.probed && !u.restarted
			if restart {
				u.restarted = true
			}
			probes := u.probes
			if restart {
				u.probes = map[jsonrpc.ID]*jsonrpc.Request{}
				u.probed = false
			}
			u.mu.Unlock()
			if stale {
				continue
			}
			if resp, ok := r.msg.(*jsonrpc.Response); ok && r.err == nil && u.answered(resp.ID) {
				u.log().Warn("gateway: dropped the stdio server's answer that came after -start-timeout", "id", resp.ID.Raw())
				continue
			}
			if !restart {
				return r.msg, r.err
			}
			old, _ := u.current()
			old.log.Warn("gateway: the stdio server ended on a 2026-07-28 request; starting it again for the 2025-11-25 revision",
				"why", old.endReason())
			u.g.legacyOnly.Store(true)
			old.stop()
			if err := u.start(); err != nil {
				old.log.Error("gateway: cannot start the stdio server again", "err", err)
				return nil, r.err
			}
			for _, req := range probes {
				u.answered(req.ID) // answered here, not by the child: no start timeout
				if err := u.answerLocally(ctx, req, modernVersion(req)); err != nil {
					return nil, err
				}
			}
		}
	}
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
	lim    *logLimiter   // the child's own output goes through it
	exited chan struct{} // closed when the process has been reaped
	err    error         // its exit status, once exited

	stderrDone chan struct{} // closed when stderr reached EOF
	mu         sync.Mutex
	lastStderr string
}

// lastStderrLine is the last line the child wrote to stderr ("" if none).
func (c *child) lastStderrLine() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastStderr
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
func startChild(argv []string, grace time.Duration, log *slog.Logger, logRate int) (*child, error) {
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
	c.lim = newLogLimiter(c.log, logRate)
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

// logStderr logs each stderr line of the child (truncated at 4 KiB), at
// most at the log rate.
func (c *child) logStderr(r *os.File) {
	defer close(c.stderrDone)
	defer c.lim.flush()
	defer r.Close()
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			full := err == nil
			text := string(bytes.TrimRight(line, "\r\n"))
			c.lim.logf(slog.LevelInfo, "stderr: "+text)
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
	defer c.lim.flush()
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
	log     *logLimiter
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
			head := buf[:min(len(buf), probeBytes)]
			if len(head) < probeBytes {
				head = append(head[:len(head):len(head)], chunk[:min(len(chunk), probeBytes-len(head))]...)
			}
			id, answer := bridge.ProbeResponseID(head)
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = f.r.ReadSlice('\n')
				n += int64(len(chunk))
			}
			f.log.logf(slog.LevelWarn, "gateway: dropped a stdout line over -read-limit", "bytes", n, "limit", f.limit)
			if answer {
				return relayError(id, bridge.CodeRelayTooLarge, fmt.Sprintf("the server's answer (%d bytes) is over the gateway's read limit (-read-limit %d); it was dropped", n, f.limit)), ignoreFull(err)
			}
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
			f.log.logf(slog.LevelWarn, "gateway: dropped a stdout line that is not JSON", "line", truncateRunes(string(trimmed), 120))
			if id, ok := bridge.ProbeResponseID(trimmed); ok {
				// An answer the decoder cannot take (not JSON, or nested
				// past its bound): its request must not wait for a timeout.
				return relayError(id, bridge.CodeRelayMalformed, fmt.Sprintf("the server's answer (%d bytes) is not one JSON value the gateway can decode (malformed, or nested past 10,000 levels); it was dropped", len(trimmed))), ignoreEOF(err)
			}
			return nil, err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return append(trimmed, '\n'), err
	}
}

// probeBytes is how much of a line over the read limit is kept to find
// the id it answers.
const probeBytes = 64 << 10

// relayError is the line that stands in for an answer the gateway dropped:
// an error response to the same id (see [bridge.CodeRelayMalformed]).
func relayError(id []byte, code int, msg string) []byte {
	m, _ := json.Marshal(msg)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, m))
}

// ignoreEOF keeps a line found just before EOF: the next read reports it.
func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
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
