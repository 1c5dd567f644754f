//go:build !js

package bridge

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A refused upgrade is read natively: 401 and 403 are kind refused with the
// body as the reason, never retryable; 503 is unavailable with Retry-After;
// any other status keeps the old unavailable path.
func TestDialRefusal(t *testing.T) {
	for _, tc := range []struct {
		status     int
		body       string
		retryAfter string
		kind       Kind
		wait       time.Duration
	}{
		{403, `origin "http://a.example" is not allowed (same origin or -origin patterns only)`, "", KindRefused, 0},
		{401, "the token was not accepted", "", KindRefused, 0},
		{503, "too many connections (max 2)", "3", KindUnavailable, 3 * time.Second},
		{404, "not here", "", KindUnavailable, 0},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.retryAfter != "" {
				w.Header().Set("Retry-After", tc.retryAfter)
			}
			http.Error(w, tc.body, tc.status)
		}))
		url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/mcp"
		_, err := Dial(context.Background(), url, &Options{Timeout: 2 * time.Second})
		srv.Close()
		e, ok := AsError(err)
		if !ok || e.Kind != tc.kind {
			t.Errorf("HTTP %d: %v, want kind %s", tc.status, err, tc.kind)
			continue
		}
		if e.Retryable() != (tc.kind == KindUnavailable) {
			t.Errorf("HTTP %d: retryable %v", tc.status, e.Retryable())
		}
		if tc.status == 404 {
			continue
		}
		if e.Code != int64(tc.status) || e.RetryAfter != tc.wait {
			t.Errorf("HTTP %d: code %d, RetryAfter %v; want %d, %v", tc.status, e.Code, e.RetryAfter, tc.status, tc.wait)
		}
		var d struct{ Reason, Fix string }
		if json.Unmarshal(e.Data, &d) != nil || d.Reason != tc.body {
			t.Errorf("HTTP %d: data %s, want the body as the reason", tc.status, e.Data)
		}
		if !strings.Contains(e.Error(), tc.body) || !strings.Contains(e.Error(), url) {
			t.Errorf("HTTP %d: message %q names neither the cause nor the server", tc.status, e.Error())
		}
	}
}

func TestRefusalErrorBounds(t *testing.T) {
	e := refusalError("ws://x/mcp", &refusal{status: 403, reason: strings.Repeat("é", 2000), fix: "start mcphost with -origin http://a", retryAfter: time.Hour})
	var d struct {
		Reason, Fix  string
		RetryAfterMs int64
	}
	if err := json.Unmarshal(e.Data, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Reason) > maxRefusalText || d.Fix != "start mcphost with -origin http://a" {
		t.Errorf("reason %d bytes, fix %q", len(d.Reason), d.Fix)
	}
	if e.RetryAfter != MaxRetryAfter {
		t.Errorf("RetryAfter %v, want capped at %v", e.RetryAfter, MaxRetryAfter)
	}
	if !strings.HasSuffix(e.Message, ": start mcphost with -origin http://a") || e.Kind != KindRefused || e.Code != 403 {
		t.Errorf("%+v", e)
	}
}

// Dial against the real endpoint: its refusals (body "reason: fix") arrive
// as kind refused natively, and a full cap as unavailable with Retry-After.
func TestDialEndpointRefusals(t *testing.T) {
	hold := make(chan struct{})
	h := Endpoint(&EndpointOptions{MaxConns: 1, Authenticate: func(tok string) (string, bool) { return "p", tok == "good" }},
		func(ctx context.Context, c *Conn) {
			select {
			case <-hold:
			case <-ctx.Done():
			}
		})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer close(hold)
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/mcp"
	for _, tc := range []struct {
		token, want string
	}{{"", "requires a token"}, {"bad", "the token was refused"}} {
		_, err := Dial(context.Background(), url, &Options{Token: tc.token, Timeout: 2 * time.Second})
		e, ok := AsError(err)
		if !ok || e.Kind != KindRefused || e.Code != 401 || !strings.Contains(e.Message, tc.want) || e.Retryable() {
			t.Errorf("token %q: %v, want kind refused 401 naming %q", tc.token, err, tc.want)
		}
	}
	// A socket with the good token holds the only slot: the next dial finds
	// the cap full.
	c, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{Subprotocols: []string{Subprotocol, TokenPrefix + "good"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	_, err = Dial(context.Background(), url, &Options{Token: "good", Timeout: 2 * time.Second})
	e, ok := AsError(err)
	if !ok || e.Code != 503 || e.Kind != KindUnavailable || !e.Retryable() || e.RetryAfter <= 0 {
		t.Errorf("full cap: %v, want unavailable 503, retryable, with Retry-After", err)
	}
}
