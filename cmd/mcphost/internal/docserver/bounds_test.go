//go:build !js

package docserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// writeDocs writes files (path → content) under a new folder and returns it.
func writeDocs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serveDir serves the documents server over dir (not watched: the test
// rescans by hand) with opts, and hands every server-side connection to
// conns in the order they arrive.
func serveDir(t *testing.T, dir string, ps *Principals, opts *bridge.EndpointOptions) (*Server, string, *mcptest.LogBuffer, <-chan *bridge.Conn) {
	t.Helper()
	log, logs := mcptest.Logger()
	cfg := testConfig()
	cfg.Dir, cfg.Log = dir, log
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &bridge.EndpointOptions{}
	}
	opts.Logger = log
	if ps != nil {
		opts.Authenticate = ps.Authenticate
	}
	conns := make(chan *bridge.Conn, 64)
	host := mcptest.Serve(t, opts, func(ctx context.Context, c *bridge.Conn) {
		conns <- c
		s.Serve(ctx, c, ps.Lookup(c.Principal()))
	})
	return s, host, logs, conns
}

// For #14 §13: a document indexed as team a's, then replaced (between two
// scans) by a symlink into team b's folder, its folder replaced by such a
// symlink, or the file replaced by a hard link to b's document, is refused
// with a's token: the read follows no symlink on the path and checks the
// inode against the index. The answer is the not-found one.
func TestSymlinkSwapRefused(t *testing.T) {
	t.Parallel()
	const secret = "TOPSECRET of team b"
	dir := writeDocs(t, map[string]string{
		"a/policy/file.md":   "# A file\n\nteam a's own.\n",
		"a/policy/hard.md":   "# A hard\n\nteam a's own.\n",
		"a/runbook/deep.md":  "# A deep\n\nteam a's own.\n",
		"b/policy/secret.md": "# B\n\n" + secret + "\n",
		"b/runbook/deep.md":  "# B deep\n\n" + secret + "\n",
	})
	ps, err := ParseTokenFile(strings.NewReader("tok-a a\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	s, host, logs, _ := serveDir(t, dir, ps, nil)
	sess := mcptest.Dial(t, host, &bridge.Options{Token: "tok-a"})
	ctx := context.Background()
	uris := map[string]string{
		"file":      "docs://team/a/policy/file.md",
		"folder":    "docs://team/a/runbook/deep.md",
		"hard link": "docs://team/a/policy/hard.md",
	}
	for what, uri := range uris {
		if _, err := sess.ReadResource(ctx, uri); err != nil {
			t.Fatalf("%s: read before the swap: %v", what, err)
		}
	}
	a := func(rel string) string { return filepath.Join(dir, "a", filepath.FromSlash(rel)) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The file: a relative symlink that stays inside the root.
	must(os.Remove(a("policy/file.md")))
	must(os.Symlink("../../b/policy/secret.md", a("policy/file.md")))
	// The folder: a's runbook becomes a symlink to b's (the old one hidden).
	must(os.Rename(a("runbook"), a(".runbook-old")))
	must(os.Symlink("../b/runbook", a("runbook")))
	// A hard link: no symlink anywhere, but not the file indexed.
	must(os.Remove(a("policy/hard.md")))
	must(os.Link(filepath.Join(dir, "b/policy/secret.md"), a("policy/hard.md")))

	for what, uri := range uris {
		parts, err := sess.ReadResource(ctx, uri)
		if len(parts) > 0 && parts[0].Text != nil && strings.Contains(*parts[0].Text, secret) {
			t.Fatalf("%s: team b's document read with team a's token through %s", what, uri)
		}
		e, ok := bridge.AsError(err)
		if !ok || !bridge.IsNotFound(err) || string(e.Data) != `{"uri":`+jsonString(uri)+`}` {
			t.Errorf("%s: read after the swap: err = %v; want the not-found answer", what, err)
		}
	}
	for _, w := range []string{"a symlink (or a file) is on the path", "not the one indexed"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("the log does not say %q:\n%s", w, logs)
		}
	}
	// The next scan drops the symlinked file and folder.
	s.corpus.rescan()
	for _, uri := range []string{uris["file"], uris["folder"]} {
		if s.corpus.current().byURI[uri] != nil {
			t.Errorf("%s indexed after the rescan", uri)
		}
	}
}

// stallClient opens a WebSocket that sends msgs and then never reads.
func stallClient(t *testing.T, host string, msgs ...string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+host+"/mcp", &websocket.DialOptions{Subprotocols: []string{bridge.Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	for _, m := range msgs {
		if err := ws.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

const legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stall","version":"1"}}}`

// For #14 §10: a client that subscribes, sends 100 reads of a 4 MB document
// and stops reading is disconnected once its send queue has stayed full for
// the write timeout (the bytes waiting never exceed the bound plus one
// frame), while three other clients get every resources/updated of the
// document it subscribed to, during the stall and after it.
func TestStalledClientDisconnectedOthersServed(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789abcdef ", 4<<20/17)
	dir := writeDocs(t, map[string]string{
		"a/runbook/big.md":   "# Big\n\n" + big,
		"a/policy/watch.md":  "# Watch\n\nv0\n",
		"a/policy/other.txt": "x",
	})
	const maxQueue = 1 << 20
	s, host, logs, conns := serveDir(t, dir, nil, &bridge.EndpointOptions{MaxQueue: maxQueue, WriteTimeout: 3 * time.Second})

	msgs := []string{legacyInit, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"s","method":"resources/subscribe","params":{"uri":"docs://team/a/policy/watch.md"}}`}
	for i := 1; i <= 100; i++ {
		msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"docs://team/a/runbook/big.md"}}`, i))
	}
	stallClient(t, host, msgs...)
	stalled := mcptest.WaitFor(t, conns, 5*time.Second, "the stalled connection")

	const watch = "docs://team/a/policy/watch.md"
	updated := make([]chan string, 3)
	for i := range updated {
		ch := make(chan string, 64)
		updated[i] = ch
		sess := mcptest.Dial(t, host, &bridge.Options{Protocol: bridge.ProtocolLegacy, OnResourceUpdated: func(uri string) { ch <- uri }})
		<-conns
		if err := sess.Subscribe(context.Background(), watch); err != nil {
			t.Fatalf("client %d: watch: %v", i, err)
		}
	}
	for v := 1; v <= 3; v++ {
		if err := os.WriteFile(filepath.Join(dir, "a/policy/watch.md"), fmt.Appendf(nil, "# Watch\n\nv%d\n", v), 0o644); err != nil {
			t.Fatal(err)
		}
		s.corpus.rescan()
		for i, ch := range updated {
			if got := mcptest.WaitFor(t, ch, 5*time.Second, fmt.Sprintf("client %d: update %d", i, v)); got != watch {
				t.Fatalf("client %d: updated %q", i, got)
			}
		}
	}
	select {
	case <-stalled.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the stalled client is still connected; queue %+v", stalled.QueueStats())
	}
	if err := stalled.Err(); !errors.Is(err, bridge.ErrSlowPeer) {
		t.Fatalf("stalled connection ended with %v, want ErrSlowPeer", err)
	}
	frame := int64(len(big)) + 4<<10 // one read answer
	st := stalled.QueueStats()
	if st.Peak > maxQueue+frame {
		t.Errorf("peak queued %d bytes, want <= %d (bound + 1 frame)", st.Peak, maxQueue+frame)
	}
	t.Logf("stalled: %v; queue %+v", stalled.Err(), st)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), "connection dropped"); {
		if time.Now().After(deadline) {
			t.Fatalf("the disconnection is not logged:\n%s", logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// For #14 §10: while a client that subscribed and then stopped reading is
// still connected (its reads pending, the queue bound out of reach), three
// other clients get every resources/updated: no writer waits on it. Then
// the write deadline disconnects it.
func TestStallDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 4<<20)
	dir := writeDocs(t, map[string]string{"a/runbook/big.md": big, "a/policy/watch.md": "# Watch\n\nv0\n"})
	// The write deadline must outlast the checks below: under -race on a
	// loaded 2-core machine they took more than 4 s (the stalled client was
	// disconnected first, and the test proved nothing).
	s, host, _, conns := serveDir(t, dir, nil, &bridge.EndpointOptions{MaxQueue: 1 << 30, WriteTimeout: 12 * time.Second})
	const watch = "docs://team/a/policy/watch.md"
	msgs := []string{legacyInit, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"s","method":"resources/subscribe","params":{"uri":"` + watch + `"}}`}
	for i := 1; i <= 10; i++ {
		msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"docs://team/a/runbook/big.md"}}`, i))
	}
	stallClient(t, host, msgs...)
	stalled := mcptest.WaitFor(t, conns, 5*time.Second, "the stalled connection")
	updated := make([]chan string, 3)
	for i := range updated {
		ch := make(chan string, 64)
		updated[i] = ch
		sess := mcptest.Dial(t, host, &bridge.Options{Protocol: bridge.ProtocolLegacy, OnResourceUpdated: func(uri string) { ch <- uri }})
		<-conns
		if err := sess.Subscribe(context.Background(), watch); err != nil {
			t.Fatalf("client %d: subscribe: %v", i, err)
		}
	}
	// Wait until one answer is stuck in the write and more wait behind it
	// (under load the server may take a while to produce the other reads'
	// answers): only then does "the others are not delayed" prove anything.
	for deadline := time.Now().Add(10 * time.Second); ; {
		st := stalled.QueueStats()
		if st.Writing > 0 && st.Queued > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stalled client's answers were never both written and queued: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for v := 1; v <= 3; v++ {
		os.WriteFile(filepath.Join(dir, "a/policy/watch.md"), fmt.Appendf(nil, "# Watch\n\nv%d\n", v), 0o644)
		s.corpus.rescan()
		for i, ch := range updated {
			if got := mcptest.WaitFor(t, ch, 3*time.Second, fmt.Sprintf("client %d: update %d", i, v)); got != watch {
				t.Fatalf("client %d: updated %q", i, got)
			}
		}
	}
	if err := stalled.Err(); err != nil {
		t.Fatalf("the stalled client was disconnected before the updates were checked (%v): the test proves nothing", err)
	}
	st := stalled.QueueStats()
	t.Logf("while stalled: queue %+v", st)
	if st.Queued == 0 {
		t.Errorf("nothing was waiting behind the stalled frame: %+v", st)
	}
	select {
	case <-stalled.Done():
	case <-time.After(30 * time.Second):
		t.Fatalf("still connected; queue %+v", stalled.QueueStats())
	}
	if err := stalled.Err(); !errors.Is(err, bridge.ErrSlowPeer) || !strings.Contains(err.Error(), "-write-timeout") {
		t.Fatalf("ended with %v, want ErrSlowPeer naming -write-timeout", err)
	}
}

// For #14 §11: an error answer never carries back more than 1 KB of what
// the client sent: a 3 MB URI, a 3 MB method name, a 3 MB search query.
func TestErrorsEchoAtMost1KB(t *testing.T) {
	t.Parallel()
	dir := writeDocs(t, map[string]string{"a/runbook/x.md": "# X\n\nx\n"})
	_, host, _, _ := serveDir(t, dir, nil, nil)
	r := mcptest.DialRaw(t, host, "")
	r.Send(legacyInit)
	r.Answer("0", 5*time.Second, nil)
	r.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	huge := strings.Repeat("A", 3<<20)
	reqs := map[string]string{
		"uri":    `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docs://team/a/runbook/` + huge + `"}}`,
		"method": `{"jsonrpc":"2.0","id":2,"method":"` + huge + `","params":{}}`,
		"params": `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":7,"x":"` + huge + `"}}`,
	}
	for _, req := range reqs {
		r.Send(req)
	}
	seen := map[string]bool{}
	for len(seen) < len(reqs) {
		m := r.Next(10 * time.Second) // answers come in any order
		id := string(m.ID)
		if len(m.Raw) > 3<<10 || strings.Count(string(m.Raw), "A") > 1<<10 {
			t.Errorf("answer %s is %d bytes with %d bytes of the input: %.200s", id, len(m.Raw), strings.Count(string(m.Raw), "A"), m.Raw)
		}
		if m.Error == nil {
			t.Errorf("answer %s is not an error: %.200s", id, m.Raw)
		}
		seen[id] = true
	}
	// A tool's error text is bounded the same way.
	r.Send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_documents","arguments":{"query":"` + huge + `"}}}`)
	m := r.Answer("4", 10*time.Second, nil)
	if len(m.Raw) > 3<<10 {
		t.Errorf("search answer is %d bytes: %.200s", len(m.Raw), m.Raw)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	json.Unmarshal(m.Result, &res)
	if len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "No documents match") {
		t.Errorf("search answer: %.300s", m.Raw)
	}
}

// A connection holds at most maxListensPerConn subscriptions/listen open:
// the next one is answered with an error naming the bound (and never
// reaches go-sdk, whose handler goroutine each open listen pins), the
// connection is still served, another connection is not affected, and once
// a listen ends a new one is accepted. Unbounded, 150,000 listens on one
// connection took the process from 26 MB to 1.84 GB.
func TestListensPerConnBounded(t *testing.T) {
	t.Parallel()
	host, logs := startDocs(t, testConfig(), "", nil)
	c := mcptest.DialRaw(t, host, "")
	listen := func(r *mcptest.Raw, id int) {
		r.Send(modern(id, "subscriptions/listen", `"notifications":{"resourcesListChanged":true}`))
	}
	for id := 1; id <= maxListensPerConn; id++ {
		listen(c, id)
		acked(t, c, strconv.Itoa(id))
	}
	over := maxListensPerConn + 1
	listen(c, over)
	m := c.Answer(strconv.Itoa(over), wait, func(m mcptest.RawMsg) { t.Errorf("unexpected %s", m.Raw) })
	if m.Error == nil || !strings.Contains(m.Error.Message, fmt.Sprintf("at most %d", maxListensPerConn)) {
		t.Fatalf("listen %d past the bound: want an error naming it, got %s", over, m.Raw)
	}
	c.Send(modern(over+1, "resources/list", ""))
	if m := c.Answer(strconv.Itoa(over+1), wait, nil); m.Error != nil {
		t.Fatalf("resources/list after the refusal: %s", m.Raw)
	}

	other := mcptest.DialRaw(t, host, "")
	listen(other, 1)
	acked(t, other, "1")

	// Ending one listen makes room for another.
	c.Send(cancel(1))
	waitLog(t, logs, "docs: listen ended", 1)
	deadline := time.Now().Add(wait)
	for id := over + 2; ; id++ {
		listen(c, id)
		m := c.Next(wait)
		if m.Method == "notifications/subscriptions/acknowledged" && subID(m) == strconv.Itoa(id) {
			break
		}
		if m.Error == nil || time.Now().After(deadline) {
			t.Fatalf("listen %d after one ended: %s", id, m.Raw)
		}
		time.Sleep(10 * time.Millisecond) // the cancelled listen's answer is not sent yet
	}
}
