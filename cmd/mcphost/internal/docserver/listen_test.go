//go:build !js

package docserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

const wait = 10 * time.Second

// metaWith is the 2026-07-28 per-request metadata, with clientInfo named
// name (none when name is empty).
func metaWith(name string) string {
	m := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	if name != "" {
		m += fmt.Sprintf(`,"io.modelcontextprotocol/clientInfo":{"name":%q,"version":"1"}`, name)
	}
	return m + "}"
}

// modern builds a 2026-07-28 request; params is a JSON object's members.
func modern(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":%s}}`, id, method, params, metaWith("raw-test"))
}

func cancel(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, id)
}

// docsDir is a watched documents folder: write(rel, text) changes it.
func docsDir(t *testing.T, files ...string) (string, func(rel, text string)) {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		write(f, "# "+f+"\n\nFirst version.\n")
	}
	return dir, write
}

// subID is a notification's _meta subscriptionId, as JSON.
func subID(m mcptest.RawMsg) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

// acked waits for the acknowledgement of listen id and returns the
// resource URIs it honours.
func acked(t *testing.T, c *mcptest.Raw, id string) []string {
	t.Helper()
	m := c.Next(wait)
	var p struct {
		Notifications struct {
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if m.Method != "notifications/subscriptions/acknowledged" || subID(m) != id || json.Unmarshal(m.Params, &p) != nil {
		t.Fatalf("want the acknowledgement of listen %s, got %s", id, m.Raw)
	}
	return p.Notifications.ResourceSubscriptions
}

// waitLog waits until the server's log holds n lines containing s.
func waitLog(t *testing.T, logs *mcptest.LogBuffer, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for strings.Count(logs.String(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the log has %d lines with %q, want %d", strings.Count(logs.String(), s), s, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestModernListensSameURI: two listens of one connection watch the same
// document; cancelling one (which gets no answer) leaves the other
// notified, once, under its own subscriptionId. With go-sdk v1.8.0 alone,
// the first listen's end would unsubscribe the document for both.
func TestModernListensSameURI(t *testing.T) {
	t.Parallel()
	dir, write := docsDir(t, "ops/policy/a.md", "ops/policy/b.md")
	host, logs := startDocs(t, testConfig(), dir, nil)
	const a, b = "docs://team/ops/policy/a.md", "docs://team/ops/policy/b.md"
	c := mcptest.DialRaw(t, host, "")

	c.Send(modern(1, "subscriptions/listen", `"notifications":{"resourceSubscriptions":["`+a+`"]}`))
	if got := acked(t, c, "1"); !slices.Equal(got, []string{a}) {
		t.Fatalf("listen 1 honours %v", got)
	}
	c.Send(modern(2, "subscriptions/listen", `"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["`+a+`","`+b+`"]}`))
	if got := acked(t, c, "2"); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("listen 2 honours %v", got)
	}
	c.Send(cancel(1))
	waitLog(t, logs, "docs: listen ended", 1)

	write("ops/policy/a.md", "# a\n\nSecond version.\n")
	m := c.Next(wait)
	if m.Method != "notifications/resources/updated" || subID(m) != "2" || !strings.Contains(string(m.Params), a) {
		t.Fatalf("after changing a with listen 2 open: %s", m.Raw)
	}
	write("ops/policy/new.md", "# new\n\nAdded.\n")
	if m := c.Next(wait); m.Method != "notifications/resources/list_changed" || subID(m) != "2" {
		t.Fatalf("after adding a document with listen 2 open: %s", m.Raw)
	}
	// The cancelled listen got no answer (go-sdk answers it with a result).
	c.Send(modern(3, "resources/read", `"uri":"`+b+`"`))
	c.Answer("3", wait, func(m mcptest.RawMsg) { t.Errorf("before the read's answer: %s", m.Raw) })
	c.Send(cancel(2))
	waitLog(t, logs, "docs: listen ended", 2)
	c.Send(modern(4, "resources/read", `"uri":"`+b+`"`))
	c.Answer("4", wait, func(m mcptest.RawMsg) { t.Errorf("before the read's answer: %s", m.Raw) })
}

// TestModernListens drives the documents server with go-sdk's own client
// in its default (2026-07-28) mode: it opens a list_changed listen at
// connect and one listen per Subscribe. Ending listens (Unsubscribe, and
// re-subscribing a URI at once) must not stop the others: updated and
// list_changed keep arriving.
func TestModernListens(t *testing.T) {
	t.Parallel()
	dir, write := docsDir(t, "ops/policy/a.md", "ops/policy/b.md")
	host, logs := startDocs(t, testConfig(), dir, nil)
	const a, b = "docs://team/ops/policy/a.md", "docs://team/ops/policy/b.md"
	updated, changed := make(chan string, 16), make(chan string, 16)
	acks := make(chan *mcp.SubscriptionsAcknowledgedParams, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-modern", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler:     func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- "resources" },
	})
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok {
				acks <- p
			}
			return next(ctx, method, req)
		}
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcptest.WSTransport{URL: "ws://" + host + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("go-sdk's client negotiated %q", v)
	}
	ack := func(want ...string) {
		t.Helper()
		p := mcptest.WaitFor(t, acks, wait, "an acknowledgement")
		if !slices.Equal(p.Notifications.ResourceSubscriptions, want) {
			t.Fatalf("acknowledged %+v, want %v", p.Notifications, want)
		}
	}
	ack() // the client's list_changed listen
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: a}); err != nil {
		t.Fatal(err)
	}
	ack(a)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: b}); err != nil {
		t.Fatal(err)
	}
	ack(b)
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: b}); err != nil {
		t.Fatal(err)
	}
	waitLog(t, logs, "docs: listen ended", 1)

	write("ops/policy/a.md", "# a\n\nSecond version.\n")
	if got := mcptest.WaitFor(t, updated, wait, "updated(a)"); got != a {
		t.Fatalf("updated %q", got)
	}
	write("ops/policy/c.md", "# c\n\nAdded.\n")
	mcptest.WaitFor(t, changed, wait, "list_changed after a listen ended")

	// Re-subscribing a at once: the new listen may open before the old one
	// ends; a stays watched either way.
	cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: a})
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: a}); err != nil {
		t.Fatal(err)
	}
	ack(a)
	waitLog(t, logs, "docs: listen ended", 2)
	drain(updated)
	write("ops/policy/a.md", "# a\n\nThird version.\n")
	if got := mcptest.WaitFor(t, updated, wait, "updated(a) after re-subscribing"); got != a {
		t.Fatalf("updated %q", got)
	}
	os.Remove(filepath.Join(dir, "ops", "policy", "c.md"))
	mcptest.WaitFor(t, changed, wait, "list_changed after re-subscribing")
}

// TestModernListenScoping: a listen is scoped to the principal as
// resources/subscribe is: a forbidden or missing URI is left out of the
// acknowledged filter (the rest of the listen goes on) and never notified.
// Results that depend on the principal say cacheScope "private"; the rest
// stay "public".
func TestModernListenScoping(t *testing.T) {
	t.Parallel()
	dir, write := docsDir(t, "platform/policy/p.md", "payments/policy/q.md")
	ps, err := ParseTokenFile(strings.NewReader("tok-platform platform\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := startDocs(t, testConfig(), dir, ps)
	const p, q, missing = "docs://team/platform/policy/p.md", "docs://team/payments/policy/q.md", "docs://team/platform/policy/none.md"
	c := mcptest.DialRaw(t, host, "tok-platform")
	c.Send(modern(1, "subscriptions/listen", `"notifications":{"resourceSubscriptions":["`+q+`","`+p+`","`+missing+`"]}`))
	if got := acked(t, c, "1"); !slices.Equal(got, []string{p}) {
		t.Fatalf("listen honours %v, want only %s", got, p)
	}
	write("payments/policy/q.md", "# q\n\nChanged.\n")
	write("platform/policy/p.md", "# p\n\nChanged.\n")
	if m := c.Next(wait); m.Method != "notifications/resources/updated" || !strings.Contains(string(m.Params), p) {
		t.Fatalf("first notification: %s (a forbidden document must never be notified)", m.Raw)
	}

	scope := func(id int, method, params string) string {
		c.Send(modern(id, method, params))
		var r struct {
			CacheScope string `json:"cacheScope"`
		}
		m := c.Answer(fmt.Sprint(id), wait, nil)
		if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
			t.Fatalf("%s: %s", method, m.Raw)
		}
		return r.CacheScope
	}
	for _, tc := range []struct{ method, params, want string }{
		{"resources/list", "", "private"},
		{"resources/read", `"uri":"` + p + `"`, "private"},
		{"tools/list", "", "private"}, // fetch_document depends on the client
		{"resources/templates/list", "", "public"},
		{"server/discover", "", "public"},
	} {
		if got := scope(10, tc.method, tc.params); got != tc.want {
			t.Errorf("%s with a token: cacheScope %q, want %q", tc.method, got, tc.want)
		}
	}
	// Without a token file every connection reads the same documents.
	cfg := testConfig()
	cfg.ResourceBlind = nil
	open, _ := startDocs(t, cfg, dir, nil)
	c = mcptest.DialRaw(t, open, "")
	for _, m := range []string{"resources/list", "tools/list"} {
		if got := scope(20, m, ""); got != "public" {
			t.Errorf("%s without tokens or resource-blind clients: cacheScope %q, want public", m, got)
		}
	}
}

// TestModernClientInfoDecidesTools: in the 2026-07-28 revision (no
// initialize, so no InitializedHandler) the first request's _meta
// clientInfo decides fetch_document; no clientInfo means not resource-blind.
func TestModernClientInfoDecidesTools(t *testing.T) {
	t.Parallel()
	host, _ := startDocs(t, testConfig(), "", nil)
	ctx := context.Background()
	tools := func(name string) []string {
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcptest.WSTransport{URL: "ws://" + host + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Fatalf("negotiated %q", v)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		if slices.Contains(names, "fetch_document") {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch_document", Arguments: map[string]any{"uri": "docs://team/platform/onboarding/welcome.md"}})
			if err != nil || r.IsError {
				t.Fatalf("fetch_document: %+v %v", r, err)
			}
		}
		return names
	}
	if got := tools("resource-blind-demo"); !slices.Equal(got, []string{"fetch_document", "search_documents"}) {
		t.Errorf("a resource-blind go-sdk client gets %v", got)
	}
	if got := tools("go-sdk-client"); !slices.Equal(got, []string{"search_documents"}) {
		t.Errorf("another go-sdk client gets %v", got)
	}
	// A raw first request without clientInfo; a later one naming a
	// resource-blind client changes nothing.
	c := mcptest.DialRaw(t, host, "")
	c.Send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + metaWith("") + `}}`)
	c.Answer("1", wait, nil)
	c.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + metaWith("resource-blind-demo") + `}}`)
	if m := c.Answer("2", wait, nil); strings.Contains(string(m.Result), "fetch_document") {
		t.Errorf("no clientInfo on the first request, yet fetch_document: %s", m.Raw)
	}
}
