//go:build !js

package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// TestStdioEverything drives @modelcontextprotocol/server-everything through
// the stdio gateway with the product's client.
func TestStdioEverything(t *testing.T) {
	t.Parallel()
	peer := mcptest.NPMPeer(t, "server-everything")
	host, logs := startStdio(t, "node '"+peer+"' stdio")
	updated := make(chan string, 64)
	s := mcptest.Dial(t, host, &bridge.Options{OnResourceUpdated: func(uri string) {
		select {
		case updated <- uri:
		default:
		}
	}})
	ctx := context.Background()
	init := s.InitializeResult()
	if init.ServerInfo.Name == "" || init.Capabilities.Resources == nil || !init.Capabilities.Resources.Subscribe {
		t.Fatalf("initialize through the gateway: %+v", init)
	}

	list, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		t.Fatal("no resources listed")
	}
	for _, r := range list.Items {
		parts, err := s.ReadResource(ctx, r.URI)
		if err != nil {
			t.Errorf("read %s: %v", r.URI, err)
			continue
		}
		if len(parts) == 0 || (parts[0].Text == nil) == (parts[0].Blob == nil) {
			t.Errorf("read %s: parts %+v", r.URI, parts)
		}
	}
	tmpls, err := s.ListTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var blobTmpl string
	for _, tm := range tmpls.Items {
		if strings.Contains(tm.URITemplate, "/blob/") {
			blobTmpl = tm.URITemplate
		}
	}
	if blobTmpl == "" {
		t.Fatalf("no blob template in %+v", tmpls.Items)
	}
	blobURI := strings.Replace(blobTmpl, "{resourceId}", "1", 1)
	parts, err := s.ReadResource(ctx, blobURI)
	if err != nil {
		t.Fatalf("read %s: %v", blobURI, err)
	}
	if len(parts) != 1 || parts[0].Blob == nil || parts[0].Text != nil {
		t.Fatalf("read %s: want one blob part, got %+v", blobURI, parts)
	}
	if _, err := base64.StdEncoding.DecodeString(*parts[0].Blob); err != nil {
		t.Fatalf("blob is not base64: %v", err)
	}

	sub := list.Items[0].URI
	if err := s.Subscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(ctx, "toggle-subscriber-updates", map[string]any{}); err != nil {
		t.Fatalf("toggle-subscriber-updates: %v", err)
	}
	got := mcptest.WaitFor(t, updated, 10*time.Second, "resources/updated from server-everything")
	if got == "" {
		t.Fatal("empty updated uri")
	}
	// An unknown method passes through and its error comes back unchanged.
	err = s.Call(ctx, "server/discover", map[string]any{}, nil)
	if bridge.ErrorCode(err) != -32601 {
		t.Errorf("server/discover through the gateway: %v, want the server's -32601", err)
	}
	if !strings.Contains(logs.String(), "stderr: ") {
		t.Logf("note: the server wrote nothing to stderr")
	}
}

// TestStdioFilesystem relays to @modelcontextprotocol/server-filesystem,
// which declares no resources: the client's capability gate answers
// locally, and tools still work through the gateway.
func TestStdioFilesystem(t *testing.T) {
	t.Parallel()
	peer := mcptest.NPMPeer(t, "server-filesystem")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello"), 0o644)
	host, _ := startStdio(t, "node "+peer+" "+dir)
	s := mcptest.Dial(t, host, nil)
	ctx := context.Background()
	if s.Supports("resources/list") {
		t.Fatal("server-filesystem declared resources")
	}
	_, err := s.ListResources(ctx, nil)
	if e, ok := bridge.AsError(err); !ok || e.Kind != bridge.KindUnsupported {
		t.Fatalf("ListResources = %v, want the local capability gate", err)
	}
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools.Items) == 0 {
		t.Fatalf("tools through the gateway: %v", err)
	}
	raw, err := s.CallTool(ctx, "list_allowed_directories", map[string]any{})
	if err != nil || !strings.Contains(string(raw), filepath.Base(dir)) {
		t.Fatalf("list_allowed_directories = %s, %v", raw, err)
	}
}

// TestStdioStartFailure answers the first request with an error naming the
// command when it cannot be started.
func TestStdioStartFailure(t *testing.T) {
	t.Parallel()
	host, _ := startStdio(t, "/nonexistent/mcp-server --flag")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := bridge.Dial(ctx, "ws://"+host+"/mcp", nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/mcp-server") {
		t.Fatalf("dial = %v, want an error naming the command", err)
	}
}

// TestStdioChildDiesAtOnce: a child that has already exited when the
// browser's first request arrives still gets that request answered with
// why (-32603 naming its last stderr line), not a bare close.
func TestStdioChildDiesAtOnce(t *testing.T) {
	t.Parallel()
	host, _ := startStdio(t, `/bin/sh -c "echo boom-at-start >&2; exit 3"`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+host+"/mcp", &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	time.Sleep(300 * time.Millisecond) // the child is gone by now
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)); err != nil {
		t.Fatalf("write: %v", err)
	}
	_, data, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("no answer to a request sent after the child died: %v", err)
	}
	if !strings.Contains(string(data), `"code":-32603`) || !strings.Contains(string(data), "boom-at-start") {
		t.Fatalf("answer %s", data)
	}
}

// TestLineFilter checks that non-JSON lines and lines over the limit are
// dropped and logged while the good lines around them pass intact.
func TestLineFilter(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		"Server running on stdio\n" +
		"\n" +
		`{"jsonrpc":"2.0","method":"x","params":{"big":"` + strings.Repeat("y", 300) + `"}}` + "\n" +
		`  {"jsonrpc":"2.0","id":2,"result":{}}  ` + "\r\n" +
		`{"truncated":` + "\n" +
		`{"jsonrpc":"2.0","id":3,"result":{}}`
	f := &lineFilter{r: bufio.NewReaderSize(strings.NewReader(in), 16), limit: 200, log: newLogLimiter(slog.New(slog.NewTextHandler(&logs, nil)), 0)}
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"
	if string(out) != want {
		t.Fatalf("filtered output:\n%s\nwant:\n%s", out, want)
	}
	for _, w := range []string{"not JSON", "over -read-limit"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log lacks %q: %s", w, logs.String())
		}
	}
}

// TestLineFilterAnswersWhatItDrops: an answer the gateway cannot pass on
// (nested past the decoder's bound, broken, or over the read limit) is
// replaced by an error answer to the same id (issue 14 §3), so the
// browser's call settles at once with kind protocol or limit instead of
// waiting for its timeout; lines without an id are dropped as before.
func TestLineFilterAnswersWhatItDrops(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	in := `{"jsonrpc":"2.0","id":7,"result":{"contents":` + deep + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":"s-8","result":{"x":` + "\n" +
		`{"jsonrpc":"2.0","method":"deep","params":` + deep + `}` + "\n" +
		`{"jsonrpc":"2.0","id":9,"result":{"big":"` + strings.Repeat("y", 300) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":10,"result":{}}` + "\n"
	var logs bytes.Buffer
	f := &lineFilter{r: bufio.NewReaderSize(strings.NewReader(in), 16), limit: 200000, log: newLogLimiter(slog.New(slog.NewTextHandler(&logs, nil)), 0)}
	f2 := &lineFilter{r: bufio.NewReaderSize(strings.NewReader(in), 16), limit: 200, log: newLogLimiter(slog.New(slog.NewTextHandler(&logs, nil)), 0)}
	for _, tc := range []struct {
		f    *lineFilter
		want []string // id and code of each line out
	}{
		{f, []string{"7 -31001", `"s-8" -31001`, "9 0", "10 0"}},
		{f2, []string{"7 -31002", `"s-8" -31001`, "9 -31002", "10 0"}},
	} {
		out, err := io.ReadAll(tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var m struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if m.Error.Code != 0 && !strings.Contains(m.Error.Message, "dropped") {
				t.Errorf("message %q", m.Error.Message)
			}
			got = append(got, fmt.Sprintf("%s %d", m.ID, m.Error.Code))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("limit %d: lines %v; want %v", tc.f.limit, got, tc.want)
		}
	}
	if k := bridge.Classify(bridge.CodeRelayMalformed, "", nil); k != bridge.KindProtocol {
		t.Errorf("Classify(-31001) = %s", k)
	}
	if k := bridge.Classify(bridge.CodeRelayTooLarge, "", nil); k != bridge.KindLimit {
		t.Errorf("Classify(-31002) = %s", k)
	}
}
