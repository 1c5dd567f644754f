//go:build !js

package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// TestUpstreamStreamResumes scripts a Streamable HTTP server whose standalone
// stream breaks after one event: the gateway must reconnect with
// Last-Event-ID and the session id, and both notifications must arrive.
func TestUpstreamStreamResumes(t *testing.T) {
	t.Parallel()
	var (
		mu        sync.Mutex
		gets      int
		resumedAt string
		badGET    string
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			return
		}
		if r.Method == http.MethodGet {
			mu.Lock()
			gets++
			n := gets
			if r.Header.Get("Mcp-Session-Id") != "sess-1" || r.Header.Get("Mcp-Protocol-Version") != "2025-11-25" {
				badGET = fmt.Sprintf("GET %d headers: %v", n, r.Header)
			}
			if n == 2 {
				resumedAt = r.Header.Get("Last-Event-ID")
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			switch n {
			case 1:
				fmt.Fprint(w, "id: ev-1\nretry: 20\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"mem://first\"}}\n\n")
				return // the stream breaks
			case 2:
				fmt.Fprint(w, "id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"mem://second\"}}\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return
			}
			http.Error(w, "gone", 405)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &msg)
		w.Header().Set("Mcp-Session-Id", "sess-1")
		switch msg.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"scripted","version":"1"}}}`, msg.ID)
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
		}
	}))
	t.Cleanup(up.Close)
	host := startHTTP(t, &HTTP{URL: up.URL})
	updated := make(chan string, 4)
	mcptest.Dial(t, host, &bridge.Options{OnResourceUpdated: func(uri string) { updated <- uri }})
	if got := mcptest.WaitFor(t, updated, 5*time.Second, "the first event"); got != "mem://first" {
		t.Fatalf("first = %q", got)
	}
	if got := mcptest.WaitFor(t, updated, 5*time.Second, "the event after resumption"); got != "mem://second" {
		t.Fatalf("second = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if resumedAt != "ev-1" {
		t.Errorf("the second GET carried Last-Event-ID %q, want ev-1", resumedAt)
	}
	if badGET != "" {
		t.Error(badGET)
	}
}
