//go:build !js

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// buildStdioServer builds the test fixture internal/stdioserver (a small
// go-sdk stdio MCP server) into a temporary directory and returns the
// binary's path.
func buildStdioServer(tb testing.TB) string {
	tb.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(tb.TempDir(), "stdioserver")
	cmd := exec.Command(goBin, "build", "-o", out, "github.com/mcphost/mcphost/cmd/mcphost/internal/stdioserver")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build internal/stdioserver: %v\n%s", err, b)
	}
	return out
}

// startGateway runs mcphost in-process with args, logging nowhere (a log
// buffer would grow with every session and blur the heap figures), and
// returns host:port. It is shut down at cleanup.
func startGateway(tb testing.TB, args ...string) string {
	tb.Helper()
	cfg, err := parseFlags(append([]string{"-addr", "127.0.0.1:0", "-no-web"}, args...), io.Discard)
	if err != nil {
		tb.Fatalf("parseFlags(%q): %v", args, err)
	}
	cfg.killGrace = 500 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard, ready) }()
	select {
	case host := <-ready:
		tb.Cleanup(func() {
			cancel()
			select {
			case <-errc:
			case <-time.After(15 * time.Second):
				tb.Errorf("mcphost did not shut down within 15 s")
			}
		})
		return host
	case err := <-errc:
		cancel()
		tb.Fatalf("mcphost: %v", err)
	case <-time.After(15 * time.Second):
		cancel()
		tb.Fatal("mcphost did not start within 15 s")
	}
	return ""
}

// leftoverProcs returns the processes that are children of this process or
// run exe (a re-parented orphan of a killed gateway would have ppid 1 but
// still run the server binary), as "pid cmd" strings.
func leftoverProcs(exe string) []string {
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid := e.Name()
		if _, err := strconv.Atoi(pid); err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(stat)
		rest := s[strings.LastIndexByte(s, ')')+1:]
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		link, _ := os.Readlink("/proc/" + pid + "/exe")
		if f[1] == self || (exe != "" && link == exe) {
			out = append(out, pid+" "+s[strings.IndexByte(s, '(')+1:strings.LastIndexByte(s, ')')])
		}
	}
	return out
}

// settledHeap runs the GC until the live heap stops shrinking and returns
// HeapInuse.
func settledHeap() uint64 {
	var ms runtime.MemStats
	prev := uint64(0)
	for range 5 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if prev != 0 && ms.HeapInuse >= prev {
			break
		}
		prev = ms.HeapInuse
	}
	return ms.HeapInuse
}

// readItems dials host and reads mem://item/{base+i} n times, checking that
// every response is the one asked for. hold, when set, runs before the session
// closes.
func readItems(ctx context.Context, host string, base, n int, hold func()) (ok int, err error) {
	s, err := bridge.Dial(ctx, "ws://"+host+"/mcp", &bridge.Options{
		ClientInfo: bridge.Implementation{Name: "mcphost-load", Version: "1.0.0"},
		Timeout:    60 * time.Second,
	})
	if err != nil {
		return 0, fmt.Errorf("dial: %w", err)
	}
	defer s.Close()
	for i := range n {
		uri := "mem://item/" + strconv.Itoa(base+i)
		parts, err := s.ReadResource(ctx, uri)
		if err != nil {
			return ok, fmt.Errorf("read %d (%s): %w", i, uri, err)
		}
		if len(parts) != 1 || parts[0].URI != uri || parts[0].Text == nil || !strings.HasPrefix(*parts[0].Text, uri+"\n") {
			got := "no text"
			if len(parts) == 1 && parts[0].Text != nil {
				got, _, _ = strings.Cut(*parts[0].Text, "\n")
			}
			return ok, fmt.Errorf("read %d: asked for %s, got %d part(s), first %q with text for %q", i, uri, len(parts), firstURI(parts), got)
		}
		ok++
	}
	if hold != nil {
		hold()
	}
	return ok, nil
}

func firstURI(parts []bridge.ResourceContents) string {
	if len(parts) == 0 {
		return ""
	}
	return parts[0].URI
}

// TestGatewayLoad: 200 concurrent WebSocket sessions × 100 reads each through
// mcphost -max-conns 256 -stdio to a small go-sdk stdio server (one child per
// session). Every response must arrive and be the one asked for; afterwards no
// child process may be left, the goroutine count must be back to its baseline
// and HeapInuse after GC within 1.2× of it.
func TestGatewayLoad(t *testing.T) {
	const sessions, reads = 200, 100
	server := buildStdioServer(t)
	host := startGateway(t, "-max-conns", "256", "-stdio", server+" -n 10 -size 512")
	// The deadline guards against a hang, not a speed: under a full make
	// test (every package under -race at once, 2 cores) the warm-up and the
	// 20,000 reads once took over 100 s here; alone, under -race, 80 s.
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()

	// Warm up with all sessions open at once (one read each, then every
	// session waits for the others before closing): the Go runtime keeps
	// every OS thread it ever started (each child being waited for holds one
	// in wait4) with its heap-allocated M, and the gateway's spawner
	// goroutine lives from the first child on. That high-water mark belongs
	// in the baseline; the check is after anything that grows with sessions
	// or reads.
	if errs := runSessions(ctx, host, sessions, 1, nil, true); len(errs) > 0 {
		t.Fatalf("warm-up: %d sessions failed, first: %v", len(errs), errs[0])
	}
	baseG, baseHeap := waitSettled(t, server, 0, 0)
	t.Logf("baseline after warm-up: %d goroutines, HeapInuse %.1f MB, %d OS threads", baseG, float64(baseHeap)/1e6, osThreads())

	start := time.Now()
	var okN atomic.Int64
	peak := sampleChildren(server)
	errs := runSessions(ctx, host, sessions, reads, &okN, false)
	peakCh := peak()
	elapsed := time.Since(start)
	if len(errs) > 0 {
		for _, err := range errs[:min(len(errs), 10)] {
			t.Error(err)
		}
		t.Fatalf("%d of %d sessions failed; %d of %d responses arrived and matched", len(errs), sessions, okN.Load(), sessions*reads)
	}
	if got := okN.Load(); got != sessions*reads {
		t.Fatalf("%d responses matched, want %d", got, sessions*reads)
	}
	t.Logf("%d sessions × %d reads: %d responses, all matched, in %v (%.0f reads/s); peak %d child processes",
		sessions, reads, okN.Load(), elapsed.Round(time.Millisecond), float64(sessions*reads)/elapsed.Seconds(), peakCh)
	if peakCh == 0 {
		t.Errorf("never saw a child process while %d sessions ran: the gateway did not spawn per session", sessions)
	}

	g, heap := waitSettled(t, server, baseG, baseHeap)
	t.Logf("after: %d goroutines, HeapInuse %.1f MB (%.2f× baseline), %d OS threads, no child process left",
		g, float64(heap)/1e6, float64(heap)/float64(baseHeap), osThreads())
}

// waitSettled waits (up to 30 s) until no child process is left and, when a
// baseline is given, the goroutine count is back to it and HeapInuse after GC
// is within 1.2× of it; it fails the test naming what did not settle. It
// returns the goroutine count and HeapInuse it saw last.
func waitSettled(t *testing.T, server string, baseG int, baseHeap uint64) (int, uint64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		kids := leftoverProcs(server)
		g := runtime.NumGoroutine()
		heap := settledHeap()
		settled := len(kids) == 0
		if baseG > 0 {
			settled = settled && g <= baseG && float64(heap) <= 1.2*float64(baseHeap)
		}
		if settled {
			return g, heap
		}
		if time.Now().After(deadline) {
			var problems []string
			if len(kids) > 0 {
				problems = append(problems, fmt.Sprintf("%d child process(es) left: %s", len(kids), strings.Join(kids[:min(len(kids), 5)], ", ")))
			}
			if baseG > 0 && g > baseG {
				buf := make([]byte, 1<<16)
				buf = buf[:runtime.Stack(buf, true)]
				problems = append(problems, fmt.Sprintf("%d goroutines, baseline %d; stacks:\n%s", g, baseG, buf))
			}
			if baseG > 0 && float64(heap) > 1.2*float64(baseHeap) {
				problems = append(problems, fmt.Sprintf("HeapInuse %.1f MB after GC, over 1.2× the baseline %.1f MB", float64(heap)/1e6, float64(baseHeap)/1e6))
			}
			t.Fatalf("not settled after 30 s: %s", strings.Join(problems, "; "))
			return g, heap
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runSessions runs n concurrent sessions of reads reads each (session i
// reads mem://item/{i*1000+k}) and returns the failures; ok counts matched
// responses. With together, no session closes before all have read.
func runSessions(ctx context.Context, host string, n, reads int, ok *atomic.Int64, together bool) []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		hold func()
	)
	if together {
		var all sync.WaitGroup
		all.Add(n)
		hold = func() { all.Done(); all.Wait() }
	}
	for i := range n {
		wg.Go(func() {
			var release func()
			if hold != nil {
				release = sync.OnceFunc(hold)
				defer release() // a failed session must not hold up the others
			}
			got, err := readItems(ctx, host, i*1000, reads, release)
			if ok != nil {
				ok.Add(int64(got))
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("session %d: %w", i, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errs
}

// sampleChildren counts this process's child processes every 100 ms until the
// returned function is called, which returns the peak.
func sampleChildren(server string) (stop func() int) {
	var peak atomic.Int64
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			if n := int64(len(leftoverProcs(server))); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() int {
		close(done)
		<-exited
		return int(peak.Load())
	}
}

// osThreads returns this process's OS thread count (diagnostics only).
func osThreads() int {
	b, _ := os.ReadFile("/proc/self/status")
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}
