//go:build !js

package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// bigFile is larger than what loopback socket buffers hold, so a client
// that does not read it keeps its response unfinished.
const bigFile = 32 << 20

// steadyFile is read by a slow but steady client, past the deadline; more
// than loopback's socket buffers hold, so the server's writes wait for it.
const steadyFile = 12 << 20

// steadyModule is steady.wasm's content; its brotli copy is steadyFile bytes.
const steadyModule = "steady"

// plainConfig is a documents server with the page on, its files fsys, and
// short plain HTTP bounds.
func plainConfig(t *testing.T) *config {
	cfg := testConfig(t)
	cfg.noWeb = false
	cfg.webFS = fstest.MapFS{
		"index.html": {Data: []byte("<!doctype html><title>t</title>")},
		"big.bin":    {Data: make([]byte, bigFile)},
		"steady.bin": {Data: make([]byte, steadyFile)},
		// a small module whose precompressed brotli copy is large: served
		// from memory as the module's is (its gzip copy, made at the first
		// request, would cost seconds under -race)
		"steady.wasm": {Data: []byte(steadyModule)},
		brotliName("steady.wasm", sha256.Sum256([]byte(steadyModule))): {Data: randomBytes(steadyFile)},
	}
	cfg.httpIdle = 300 * time.Millisecond
	cfg.httpDeadline = 500 * time.Millisecond
	return cfg
}

// rawGET opens a TCP connection to host and sends GET path on it (nothing
// when path is empty).
func rawGET(t *testing.T, host, path string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if path != "" {
		if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// drain reads c until the server closes it, failing if it is still open
// after d; it returns how many bytes came.
func drain(t *testing.T, c net.Conn, d time.Duration) int64 {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	n, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection is still open after %v (%d bytes read)", d, n)
	}
	return n
}

// Plain HTTP connections are bounded: a keep-alive connection left idle is
// closed (a WebSocket, once upgraded, is not), a client that does not read
// a file is cut off at the response deadline, and past -max-conns plus the
// plain connections' cap a connection waits until one closes. Before,
// 1,000 idle keep-alive connections stayed open indefinitely and a slow
// reader of /mcphost.wasm was never closed.
func TestPlainHTTPBounded(t *testing.T) {
	t.Parallel()
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		host, _ := startServer(t, plainConfig(t))
		ws := mcptest.Dial(t, host, nil)
		c := rawGET(t, host, "/")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("GET /: %d, close %v", resp.StatusCode, resp.Close)
		}
		drain(t, c, 5*time.Second) // closed at the idle timeout
		time.Sleep(600 * time.Millisecond)
		if _, err := ws.ListResources(context.Background(), nil); err != nil {
			t.Fatalf("the WebSocket, idle past the plain idle timeout: %v", err)
		}
	})
	t.Run("slow reader", func(t *testing.T) {
		t.Parallel()
		host, logs := startServer(t, plainConfig(t))
		c := rawGET(t, host, "/big.bin")
		time.Sleep(time.Second) // reads nothing, past the deadline
		if n := drain(t, c, 5*time.Second); n >= bigFile {
			t.Fatalf("the slow reader got all %d bytes", n)
		}
		if strings.Contains(logs.String(), "panic") {
			t.Errorf("log: %s", logs)
		}
	})
	for _, f := range []struct{ name, accept string }{{"/steady.bin", ""}, {"/steady.wasm", "br"}} {
		t.Run("slow but steady reader of "+f.name, func(t *testing.T) {
			t.Parallel()
			steadyRead(t, f.name, f.accept)
		})
	}
	t.Run("cap", func(t *testing.T) {
		t.Parallel()
		cfg := plainConfig(t)
		cfg.maxConns, cfg.plainConns = 1, 3
		host, _ := startServer(t, cfg)
		var held []net.Conn
		for range cfg.maxConns + cfg.plainConns {
			held = append(held, rawGET(t, host, "")) // silent
		}
		c := rawGET(t, host, "/")
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("a connection past the cap was answered (%v)", err)
		}
		held[0].Close()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("once a connection closed, the waiting one: %v %v", resp, err)
		}
	})
}

// A shutdown with a client still reading a file waits the grace period,
// then closes its connection, and completes: run returns nil (mcphost exits
// 0 on SIGTERM) and the log says what was cut off, not that sessions were
// still closing (there were none). Before, run returned "context deadline
// exceeded" (exit status 1) and logged sessions still closing.
func TestShutdownCutsSlowReaders(t *testing.T) {
	t.Parallel()
	cfg := plainConfig(t)
	cfg.httpDeadline = time.Minute
	cfg.shutdownGrace = 500 * time.Millisecond
	log, logs := mcptest.Logger()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, log, io.Discard, ready) }()
	var host string
	select {
	case host = <-ready:
	case err := <-errc:
		t.Fatalf("run: %v", err)
	}
	c := rawGET(t, host, "/big.bin")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil { // the response has started
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("run returned %v, want nil", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("run did not return")
	}
	drain(t, c, 5*time.Second)
	if l := logs.String(); !strings.Contains(l, "cut off") || strings.Contains(l, "sessions still closing") {
		t.Errorf("log:\n%s", l)
	}
}

// steadyRead GETs name (Accept-Encoding accept) over a raw connection and
// reads it 1 MB every 100 ms: the whole file takes over twice the deadline,
// each write far less; it must arrive whole. (Loopback's buffers hold a
// few MB: a single write of the whole file would still miss the deadline.)
func steadyRead(t *testing.T, name, accept string) {
	host, _ := startServer(t, plainConfig(t))
	c, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "GET " + name + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
	if accept != "" {
		req += "Accept-Encoding: " + accept + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var got int64
	buf := make([]byte, 64<<10)
	for {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := io.ReadFull(c, buf)
		got += int64(n)
		if err != nil {
			break
		}
		if got%(1<<20) < int64(len(buf)) {
			time.Sleep(100 * time.Millisecond)
		}
	}
	want := int64(steadyFile) // both: steady.bin, or steady.wasm's brotli copy
	if got < want || time.Since(start) < 600*time.Millisecond {
		t.Fatalf("the steady reader of %s got %d bytes (want over %d) in %v", name, got, want, time.Since(start))
	}
}

// randomBytes returns n bytes no compressor shrinks.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{1}).Read(b)
	return b
}
