//go:build !js

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A rawPeer carries one JSON-RPC message at a time, undecoded: the same
// client logic drives the stdio server directly (newline-delimited JSON on
// its pipes) and through the gateway (one text frame per message), so the
// difference between the two is the gateway.
type rawPeer interface {
	send(msg []byte) error
	recv() ([]byte, error)
	close()
}

// stdioPeer runs the server directly, as an MCP host would without mcphost.
type stdioPeer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startStdioPeer(tb testing.TB, argv ...string) *stdioPeer {
	tb.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", argv[0], err)
	}
	return &stdioPeer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (p *stdioPeer) send(msg []byte) error {
	_, err := p.in.Write(append(msg, '\n'))
	return err
}

func (p *stdioPeer) recv() ([]byte, error) {
	var line []byte
	for {
		chunk, err := p.out.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

func (p *stdioPeer) close() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// wsPeer is a browser-like WebSocket client of the gateway.
type wsPeer struct{ c *websocket.Conn }

func dialWSPeer(tb testing.TB, host string) *wsPeer {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+host+"/mcp", &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	if err != nil {
		tb.Fatalf("dial the gateway: %v", err)
	}
	c.SetReadLimit(64 << 20)
	return &wsPeer{c: c}
}

func (p *wsPeer) send(msg []byte) error {
	return p.c.Write(context.Background(), websocket.MessageText, msg)
}

func (p *wsPeer) recv() ([]byte, error) {
	_, data, err := p.c.Read(context.Background())
	return data, err
}

func (p *wsPeer) close() { p.c.Close(websocket.StatusNormalClosure, "") }

// rawHandshake initializes an MCP session over p.
func rawHandshake(tb testing.TB, p rawPeer) {
	tb.Helper()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcphost-gateway-bench","version":"1.0.0"}}}`
	if err := p.send([]byte(init)); err != nil {
		tb.Fatalf("initialize: %v", err)
	}
	if _, err := rawRecvID(p, 0); err != nil {
		tb.Fatalf("initialize: %v", err)
	}
	if err := p.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		tb.Fatalf("initialized: %v", err)
	}
}

func rawReadRequest(id int64, uri string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, id, uri)
}

// rawResponseID returns the id of a response (or -1 for anything else) and
// fails on an error response.
func rawResponseID(msg []byte) (int64, error) {
	var r struct {
		ID     *int64          `json:"id"`
		Method string          `json:"method"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return -1, fmt.Errorf("undecodable message %.80q: %v", msg, err)
	}
	if r.ID == nil || r.Method != "" {
		return -1, nil
	}
	if len(r.Error) > 0 {
		return *r.ID, fmt.Errorf("error response for id %d: %s", *r.ID, r.Error)
	}
	return *r.ID, nil
}

// rawRecvID receives until the response to id, skipping notifications.
func rawRecvID(p rawPeer, id int64) ([]byte, error) {
	for {
		msg, err := p.recv()
		if err != nil {
			return nil, err
		}
		got, err := rawResponseID(msg)
		if err != nil {
			return nil, err
		}
		if got == id {
			return msg, nil
		}
		if got >= 0 {
			return nil, fmt.Errorf("response for id %d while waiting for %d", got, id)
		}
	}
}

// gatewayFixture is one stdio server driven directly and one gateway
// session to another instance of it, both initialized.
type gatewayFixture struct {
	direct, gateway rawPeer
}

func newGatewayFixture(b *testing.B) *gatewayFixture {
	b.Helper()
	server := buildStdioServer(b)
	host := startGateway(b, "-stdio", server+" -n 10 -size 1024")
	f := &gatewayFixture{direct: startStdioPeer(b, server, "-n", "10", "-size", "1024"), gateway: dialWSPeer(b, host)}
	b.Cleanup(func() { f.direct.close(); f.gateway.close() })
	rawHandshake(b, f.direct)
	rawHandshake(b, f.gateway)
	return f
}

// BenchmarkGateway measures what mcphost -stdio adds: per-message latency
// (sequential resources/read round trips, the two paths interleaved so
// background noise hits both alike) and throughput (64 reads in flight) of
// the same stdio server driven directly and through the gateway, for 1 KiB
// and 64 KiB reads.
//
//	go test -run '^$' -bench Gateway -benchtime 2000x ./cmd/mcphost
func BenchmarkGateway(b *testing.B) {
	f := newGatewayFixture(b)
	for _, size := range []int{1 << 10, 64 << 10} {
		name := strconv.Itoa(size>>10) + "KiB"
		b.Run("latency/"+name, func(b *testing.B) { benchLatency(b, f, size) })
		for _, path := range []string{"direct", "gateway"} {
			p := map[string]rawPeer{"direct": f.direct, "gateway": f.gateway}[path]
			b.Run("throughput/"+name+"/"+path, func(b *testing.B) { benchThroughput(b, p, size) })
		}
	}
}

var benchID int64 = 1 << 20 // request ids, unique across sub-benchmarks

func benchLatency(b *testing.B, f *gatewayFixture, size int) {
	b.ReportAllocs()
	direct := make([]time.Duration, 0, b.N)
	gateway := make([]time.Duration, 0, b.N)
	rt := func(p rawPeer, i int) time.Duration {
		benchID++
		req := rawReadRequest(benchID, "mem://size/"+strconv.Itoa(size)+"/"+strconv.Itoa(i))
		t := time.Now()
		if err := p.send(req); err != nil {
			b.Fatal(err)
		}
		if _, err := rawRecvID(p, benchID); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 { // alternate which path goes first
			direct = append(direct, rt(f.direct, i))
			gateway = append(gateway, rt(f.gateway, i))
		} else {
			gateway = append(gateway, rt(f.gateway, i))
			direct = append(direct, rt(f.direct, i))
		}
	}
	b.StopTimer()
	d50, g50 := durationP50(direct), durationP50(gateway)
	b.ReportMetric(float64(d50.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(g50.Microseconds()), "gateway-p50-µs")
	b.ReportMetric(float64((g50 - d50).Microseconds()), "added-p50-µs")
}

func durationP50(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// benchThroughput keeps 64 reads in flight over one session and reports
// round trips per second (each is two messages); ns/op is the time per read.
func benchThroughput(b *testing.B, p rawPeer, size int) {
	const window = 64
	b.ReportAllocs()
	first := benchID + 1
	benchID += int64(b.N)
	sem := make(chan struct{}, window)
	failed := make(chan struct{})
	var readErr error
	readerDone := make(chan struct{})
	b.ResetTimer()
	start := time.Now()
	go func() {
		defer close(readerDone)
		for range b.N {
			msg, err := p.recv()
			if err == nil {
				var id int64
				id, err = rawResponseID(msg)
				if err == nil && (id < first || id >= first+int64(b.N)) {
					err = fmt.Errorf("response id %d outside this run's [%d, %d)", id, first, first+int64(b.N))
				}
			}
			if err != nil {
				readErr = err
				close(failed)
				return
			}
			<-sem
		}
	}()
	uri := "mem://size/" + strconv.Itoa(size) + "/"
send:
	for i := range b.N {
		select {
		case sem <- struct{}{}:
		case <-failed:
			break send
		}
		if err := p.send(rawReadRequest(first+int64(i), uri+strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
	<-readerDone
	elapsed := time.Since(start)
	b.StopTimer()
	if readErr != nil {
		b.Fatal(readErr)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "reads/s")
}
