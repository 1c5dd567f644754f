//go:build !js

package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// TestUpstreamAnsweredIsNotUnreachable: an upstream that answers with an
// HTTP error (501 Not Implemented, with a text body, with an HTML page, with
// no body) is never reported as "could not be reached": the answer to the
// handshake, in either revision, names its status and reason. So does a 200
// that is not an MCP answer (an HTML page, a JSON body that does not parse).
func TestUpstreamAnsweredIsNotUnreachable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		want              []string
	}{
		{"501 text", "text/plain; charset=utf-8", "this server speaks no MCP\n", 501,
			[]string{"HTTP 501 Not Implemented", "this server speaks no MCP"}},
		{"501 empty", "", "", 501, []string{"HTTP 501 Not Implemented"}},
		{"405 html", "text/html", "<html><body><h1>405 Not Allowed</h1></body></html>", 405, []string{"HTTP 405 Method Not Allowed"}},
		{"500 json", "application/json", `{"error":"boom"}`, 500, []string{"HTTP 500 Internal Server Error"}},
		{"200 html (not an MCP endpoint)", "text/html", "<html><body>Welcome</body></html>", 200, []string{"HTTP 200 OK", "text/html"}},
		{"200 json that is not JSON", "application/json", "not json", 200, []string{"HTTP 200 OK", "not"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			t.Cleanup(up.Close)
			host := startHTTP(t, &HTTP{URL: up.URL + "/mcp", Header: http.Header{}, Transport: http.DefaultTransport})
			for _, first := range []struct{ id, msg string }{
				{`"init"`, rawInitialize},
				{"1", modernReq(1, "server/discover", "")},
			} {
				c := mcptest.DialRaw(t, host, "")
				c.Send(first.msg)
				m := c.Answer(first.id, 10*time.Second, nil)
				if m.Error == nil {
					t.Fatalf("%s: answered %s", first.id, m.Raw)
				}
				if strings.Contains(m.Error.Message, "could not be reached") {
					t.Errorf("%s: %q", first.id, m.Error.Message)
				}
				for _, w := range tc.want {
					if !strings.Contains(m.Error.Message, w) {
						t.Errorf("%s: %q does not name %q", first.id, m.Error.Message, w)
					}
				}
				if !strings.Contains(string(m.Error.Data), `"httpStatus":`) {
					t.Errorf("%s: data %s lacks httpStatus", first.id, m.Error.Data)
				}
				c.Close()
			}
		})
	}
}
