//go:build !js

package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// meta is the per-request metadata of the 2026-07-28 revision.
const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw-test","version":"1"}}`

// modernReq builds a 2026-07-28 request: params (a JSON object without
// braces, or "") plus _meta.
func modernReq(id any, method, params string) string {
	if params != "" {
		params += ","
	}
	idj, _ := json.Marshal(id)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s"_meta":%s}}`, idj, method, params, meta)
}

// A seen is one HTTP request the upstream received.
type seen struct {
	method string // HTTP method
	header http.Header
	rpc    string // JSON-RPC method
	id     string // JSON-RPC id, as JSON
}

// headerRecorder stands in front of a go-sdk handler and records every
// request's headers and JSON-RPC method and id; it reports the end of each
// subscriptions/listen POST (the gateway closing its SSE) on listenEnded.
type headerRecorder struct {
	next        http.Handler
	mu          sync.Mutex
	seen        []seen
	listenEnded chan string // listen ids
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &msg)
	h.mu.Lock()
	h.seen = append(h.seen, seen{method: r.Method, header: r.Header.Clone(), rpc: msg.Method, id: string(msg.ID)})
	h.mu.Unlock()
	if msg.Method == "subscriptions/listen" {
		defer func() { h.listenEnded <- string(msg.ID) }()
	}
	h.next.ServeHTTP(w, r)
}

func (h *headerRecorder) requests() []seen {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.seen)
}

// upstreamConfig is one of the go-sdk v1.8.0 Streamable HTTP configurations
// the gateway is tested against.
type upstreamConfig struct {
	name      string
	versions  []string // ServerOptions.SupportedProtocolVersions
	stateless bool     // go-sdk v1.8.0 serves 2026-07-28 over HTTP only statelessly
}

var (
	dualConfig   = upstreamConfig{name: "dual", stateless: true}
	modernConfig = upstreamConfig{name: "2026-07-28 only", versions: []string{"2026-07-28"}, stateless: true}
	legacyConfig = upstreamConfig{name: "2025-11-25 only", versions: []string{"2025-11-25"}}
)

// regionSchema marks the region argument for the Mcp-Param-Region header.
const regionSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},` +
	`"query":{"type":"string"},"opts":{"type":"object","properties":{"shard":{"type":"integer","x-mcp-header":"Shard"}}}},"required":["region"]}`

// startGoSDKUpstream serves a go-sdk server in configuration cfg behind a
// header recorder: five text resources mem://r0..r4 listed two per page,
// mem://a ("alpha"), mem://café, and the tool route (x-mcp-header Region
// and nested Shard).
func startGoSDKUpstream(t *testing.T, cfg upstreamConfig) (*mcp.Server, *headerRecorder, string) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream-" + cfg.name, Version: "1"}, &mcp.ServerOptions{
		PageSize:                  2,
		SupportedProtocolVersions: cfg.versions,
		SubscribeHandler:          func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	text := func(s string) mcp.ResourceHandler {
		return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: s}}}, nil
		}
	}
	for i := range 5 {
		srv.AddResource(&mcp.Resource{URI: fmt.Sprintf("mem://r%d", i), Name: fmt.Sprintf("r%d", i)}, text("r"))
	}
	srv.AddResource(&mcp.Resource{URI: "mem://a", Name: "a", MIMEType: "text/plain"}, text("alpha"))
	srv.AddResource(&mcp.Resource{URI: "mem://café", Name: "café", MIMEType: "text/plain"}, text("crème"))
	srv.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(regionSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "routed " + string(req.Params.Arguments)}}}, nil
		})
	rec := &headerRecorder{listenEnded: make(chan string, 16)}
	rec.next = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: cfg.stateless})
	up := httptest.NewServer(rec)
	t.Cleanup(up.Close)
	return srv, rec, up.URL
}

// result decodes an answer's result into v, failing on an error answer.
func result(t *testing.T, m mcptest.RawMsg, v any) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("answer %s is an error: %d %s %s", m.ID, m.Error.Code, m.Error.Message, m.Error.Data)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		t.Fatalf("answer %s: %v: %s", m.ID, err, m.Result)
	}
}

// subscriptionID is the _meta subscriptionId of a notification, as JSON.
func subscriptionID(m mcptest.RawMsg) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

// TestUpstreamModern relays hand-built 2026-07-28 requests from a raw
// WebSocket client through -upstream to go-sdk servers serving both
// revisions and 2026-07-28 only: discover, a listing across pages, reads
// (one whose URI needs the =?base64?...?= Mcp-Name), tools with
// x-mcp-header (learned from tools/list, re-listed by the gateway on a
// header mismatch), a listen whose
// acknowledged, updated and list_changed notifications arrive as they
// come, and its cancellation, which closes its POST upstream and gets no
// answer. Every POST must carry the revision's headers, none a session id,
// and no GET may be made.
func TestUpstreamModern(t *testing.T) {
	t.Parallel()
	for _, cfg := range []upstreamConfig{dualConfig, modernConfig} {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			srv, rec, url := startGoSDKUpstream(t, cfg)
			host := startHTTP(t, &HTTP{URL: url, Header: http.Header{"X-Test": {"yes"}}})
			c := mcptest.DialRaw(t, host, "")
			const wait = 10 * time.Second

			c.Send(modernReq(1, "server/discover", ""))
			var disc struct {
				SupportedVersions []string `json:"supportedVersions"`
			}
			result(t, c.Answer("1", wait, nil), &disc)
			if !slices.Contains(disc.SupportedVersions, "2026-07-28") {
				t.Fatalf("discover: supportedVersions %v", disc.SupportedVersions)
			}

			// A listing across pages (two per page).
			var uris []string
			cursor, pages := "", 0
			for id := 100; ; id++ {
				params := ""
				if pages > 0 {
					params = fmt.Sprintf(`"cursor":%q`, cursor)
				}
				c.Send(modernReq(id, "resources/list", params))
				var page struct {
					Resources []struct {
						URI string `json:"uri"`
					} `json:"resources"`
					NextCursor *string `json:"nextCursor"`
				}
				result(t, c.Answer(fmt.Sprint(id), wait, nil), &page)
				pages++
				for _, r := range page.Resources {
					uris = append(uris, r.URI)
				}
				if page.NextCursor == nil {
					break
				}
				cursor = *page.NextCursor
				if pages > 10 {
					t.Fatal("more than 10 pages")
				}
			}
			if len(uris) != 7 || pages != 4 {
				t.Fatalf("listed %d resources in %d pages: %v", len(uris), pages, uris)
			}

			// Reads; mem://café needs the encoded Mcp-Name, which go-sdk
			// v1.8.0 compares undecoded: the gateway retries it as is.
			for i, want := range map[string]string{"mem://a": "alpha", "mem://café": "crème"} {
				id := fmt.Sprintf(`"read-%s"`, i)
				c.Send(modernReq(json.RawMessage(id), "resources/read", fmt.Sprintf(`"uri":%q`, i)))
				var rr struct {
					Contents []struct {
						Text string `json:"text"`
					} `json:"contents"`
				}
				result(t, c.Answer(id, wait, nil), &rr)
				if len(rr.Contents) != 1 || rr.Contents[0].Text != want {
					t.Errorf("read %s: %+v", i, rr)
				}
			}

			// Tools: learned from tools/list, then the call carries
			// Mcp-Param-Region and Mcp-Param-Shard.
			c.Send(modernReq(20, "tools/list", ""))
			var tl struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			result(t, c.Answer("20", wait, nil), &tl)
			if len(tl.Tools) != 1 || tl.Tools[0].Name != "route" {
				t.Errorf("tools/list through the gateway = %+v, want route", tl.Tools)
			}
			c.Send(modernReq(21, "tools/call", `"name":"route","arguments":{"region":"us-west1","query":"q","opts":{"shard":7}}`))
			var tr struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			result(t, c.Answer("21", wait, nil), &tr)
			if len(tr.Content) != 1 || !strings.HasPrefix(tr.Content[0].Text, "routed") {
				t.Errorf("tools/call route: %+v", tr)
			}
			// A connection that never listed tools: the server rejects the
			// call (-32020), the gateway re-lists and retries once.
			c2 := mcptest.DialRaw(t, host, "")
			c2.Send(modernReq(1, "tools/call", `"name":"route","arguments":{"region":"Zürich"}`))
			result(t, c2.Answer("1", wait, nil), &tr)

			// A listen: acknowledged, then updated and list_changed as they come.
			c.Send(modernReq(30, "subscriptions/listen", `"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["mem://a"]}`))
			ack := c.Next(wait)
			if ack.Method != "notifications/subscriptions/acknowledged" || subscriptionID(ack) != "30" {
				t.Fatalf("first message of the listen: %s", ack.Raw)
			}
			srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: "mem://a"})
			if m := c.Next(wait); m.Method != "notifications/resources/updated" || subscriptionID(m) != "30" || !strings.Contains(string(m.Params), "mem://a") {
				t.Fatalf("after ResourceUpdated: %s", m.Raw)
			}
			srv.AddResource(&mcp.Resource{URI: "mem://new", Name: "new"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
			if m := c.Next(wait); m.Method != "notifications/resources/list_changed" || subscriptionID(m) != "30" {
				t.Fatalf("after AddResource: %s", m.Raw)
			}
			// Cancelling it closes its POST upstream; it gets no answer.
			c.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":30}}`)
			if id := mcptest.WaitFor(t, rec.listenEnded, wait, "the listen's POST to end upstream"); id != "30" {
				t.Fatalf("listen %s ended, want 30", id)
			}
			c.Send(modernReq(31, "server/discover", ""))
			c.Answer("31", wait, func(m mcptest.RawMsg) {
				t.Errorf("after cancelling the listen, before the next answer: %s", m.Raw)
			})

			checkModernHeaders(t, rec.requests())
		})
	}
}

// checkModernHeaders asserts that every request the upstream saw was a
// POST with the 2026-07-28 headers: MCP-Protocol-Version equal to the
// _meta value, Mcp-Method, Mcp-Name (encoded when not header-safe, with at
// most one retry as is), Mcp-Param-* for route's marked arguments, the
// -upstream-header, and no session id.
func checkModernHeaders(t *testing.T, reqs []seen) {
	t.Helper()
	var cafe []string
	params := map[string]bool{}
	for _, r := range reqs {
		h := r.header
		switch {
		case r.method != http.MethodPost:
			t.Errorf("%s %s: the modern revision has no GET stream and no DELETE", r.method, r.rpc)
		case h.Get("Mcp-Session-Id") != "":
			t.Errorf("%s carried Mcp-Session-Id %q", r.rpc, h.Get("Mcp-Session-Id"))
		case h.Get("Mcp-Protocol-Version") != "2026-07-28":
			t.Errorf("%s: MCP-Protocol-Version %q", r.rpc, h.Get("Mcp-Protocol-Version"))
		case h.Get("Mcp-Method") != r.rpc:
			t.Errorf("%s: Mcp-Method %q", r.rpc, h.Get("Mcp-Method"))
		case h.Get("X-Test") != "yes":
			t.Errorf("%s lacks the -upstream-header", r.rpc)
		}
		switch r.rpc {
		case "resources/read":
			if n := h.Get("Mcp-Name"); n != "mem://a" {
				cafe = append(cafe, n)
			}
		case "tools/call":
			if h.Get("Mcp-Name") != "route" {
				t.Errorf("tools/call: Mcp-Name %q", h.Get("Mcp-Name"))
			}
			params[h.Get("Mcp-Param-Region")+"|"+h.Get("Mcp-Param-Shard")] = true
		}
	}
	wantCafe := []string{"=?base64?" + base64.StdEncoding.EncodeToString([]byte("mem://café")) + "?=", "mem://café"}
	if !slices.Equal(cafe, wantCafe) {
		t.Errorf("Mcp-Name of the mem://café reads = %q, want %q (encoded, then as is after go-sdk's -32020)", cafe, wantCafe)
	}
	zurich := "=?base64?" + base64.StdEncoding.EncodeToString([]byte("Zürich")) + "?="
	for _, want := range []string{"us-west1|7", zurich + "|"} {
		if !params[want] {
			t.Errorf("no tools/call carried Mcp-Param-Region|Mcp-Param-Shard %q (saw %v)", want, params)
		}
	}
}

// TestUpstreamRefusals: what the gateway answers when the upstream refuses.
// go-sdk's plain-text 400 to a legacy client of a 2026-07-28-only server is
// relayed with its text as a permanent error, and the socket stays open; a
// JSON-RPC error body (go-sdk's -32022 to a modern request on a legacy-only
// server) passes intact; a legacy session that is gone (404) is answered as
// retryable with reconnect, and the socket closes so the host initializes
// again.
func TestUpstreamRefusals(t *testing.T) {
	t.Parallel()
	const wait = 10 * time.Second
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-test","version":"1"}}}`
	const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

	t.Run("2026-07-28 only, legacy client", func(t *testing.T) {
		t.Parallel()
		_, _, url := startGoSDKUpstream(t, modernConfig)
		c := mcptest.DialRaw(t, startHTTP(t, &HTTP{URL: url}), "")
		c.Send(initialize)
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		result(t, c.Answer("1", wait, nil), &ir) // go-sdk still answers it
		c.Send(initialized)
		c.Send(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)
		m := c.Answer("2", wait, nil)
		if m.Error == nil || m.Error.Code != CodeUpstreamRefused || !strings.Contains(m.Error.Message, "HTTP 400") ||
			!strings.Contains(m.Error.Message, "Unsupported protocol version") {
			t.Fatalf("legacy resources/list on a 2026-07-28-only server: %s", m.Raw)
		}
		var d failureData
		if json.Unmarshal(m.Error.Data, &d) != nil || d.HTTPStatus != 400 || d.Retryable || d.Reconnect ||
			!strings.HasPrefix(d.Reason, "Bad Request: Unsupported protocol version") {
			t.Fatalf("data = %s", m.Error.Data)
		}
		// The socket stays open; the modern revision works on it.
		c.Send(modernReq(3, "resources/read", `"uri":"mem://a"`))
		var rr struct {
			Contents []struct{ Text string } `json:"contents"`
		}
		result(t, c.Answer("3", wait, nil), &rr)
	})

	t.Run("no answer", func(t *testing.T) {
		t.Parallel()
		dead := httptest.NewServer(http.NotFoundHandler())
		url := dead.URL
		dead.Close() // nothing listens there any more
		c := mcptest.DialRaw(t, startHTTP(t, &HTTP{URL: url}), "")
		c.Send(modernReq(1, "server/discover", ""))
		c.Send(strings.Replace(initialize, `"id":1`, `"id":2`, 1))
		for range 2 {
			m := c.Next(wait)
			if (string(m.ID) != "1" && string(m.ID) != "2") || m.Error == nil || m.Error.Code != -32603 ||
				!strings.Contains(m.Error.Message, "could not be reached") || string(m.Error.Data) != `{"retryable":true}` {
				t.Fatalf("a request to a server that is not there: %s", m.Raw)
			}
		}
	})

	t.Run("2025-11-25 only", func(t *testing.T) {
		t.Parallel()
		srv, rec, url := startGoSDKUpstream(t, legacyConfig)
		c := mcptest.DialRaw(t, startHTTP(t, &HTTP{URL: url, Retry: 20 * time.Millisecond}), "")
		// A modern request: go-sdk's -32022 body passes intact.
		c.Send(modernReq(1, "resources/list", ""))
		m := c.Answer("1", wait, nil)
		if m.Error == nil || m.Error.Code != -32022 || !strings.Contains(string(m.Error.Data), `"supported":["2025-11-25"]`) {
			t.Fatalf("modern resources/list on a legacy-only server: %s", m.Raw)
		}
		// discover is answered (go-sdk lists no modern version, or refuses).
		c.Send(modernReq(2, "server/discover", ""))
		if m := c.Answer("2", wait, nil); m.Error == nil && strings.Contains(string(m.Result), "2026-07-28") {
			t.Fatalf("discover on a legacy-only server: %s", m.Raw)
		}
		// The legacy revision: a session, then the session is gone.
		c.Send(strings.Replace(initialize, `"id":1`, `"id":3`, 1))
		result(t, c.Answer("3", wait, nil), &struct{}{})
		c.Send(initialized)
		c.Send(`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`)
		result(t, c.Answer("4", wait, nil), &struct{}{})
		for ss := range srv.Sessions() {
			ss.Close()
		}
		c.Send(`{"jsonrpc":"2.0","id":5,"method":"resources/list"}`)
		m = c.Answer("5", wait, nil)
		var d failureData
		if m.Error == nil || m.Error.Code != -32603 || json.Unmarshal(m.Error.Data, &d) != nil ||
			d.HTTPStatus != 404 || !d.Retryable || !d.Reconnect {
			// The standalone stream may see the 404 first: then the answer
			// names the session's end.
			if m.Error == nil || !strings.Contains(m.Error.Message, "is gone") {
				t.Fatalf("a request after the session ended: %s", m.Raw)
			}
		}
		if ended, _ := c.Ended(wait); !ended {
			t.Fatal("the gateway kept the socket open after the upstream session was gone")
		}
		for _, r := range rec.requests() {
			if r.header.Get("Mcp-Method") != "" && r.header.Get("Mcp-Session-Id") != "" {
				t.Errorf("modern %s carried a session id", r.rpc)
			}
		}
	})
}
