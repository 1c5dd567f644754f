//go:build !js

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// runServer runs mcphost in-process like startServer, but returns a stop
// function so that a test can restart it on the same figures file.
func runServer(t *testing.T, cfg *config) (host string, stop func()) {
	t.Helper()
	log, _ := mcptest.Logger()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, log, io.Discard, ready) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-errc:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("run: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("run did not return within 15 s of shutdown")
		}
	}
	t.Cleanup(stop)
	select {
	case host = <-ready:
		return host, stop
	case err := <-errc:
		stopped = true
		cancel()
		t.Fatalf("run: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("server did not start within 15 s")
	}
	return "", stop
}

// figuresJSON is what the tests read of GET /figures (Accept: application/json).
type figuresJSON struct {
	Persistent bool     `json:"persistent"`
	Forced     []string `json:"forced"`
	Assumption struct {
		Holds bool  `json:"holds"`
		N     int64 `json:"readingSessionsThatNeverListed"`
	} `json:"assumption"`
	Clients []struct {
		Client struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Known   bool   `json:"known"`
		} `json:"client"`
		Figures struct {
			Sessions        int64 `json:"sessions"`
			Listing         int64 `json:"listingSessions"`
			Reading         int64 `json:"readingSessions"`
			ListWithoutRead int64 `json:"listWithoutRead"`
			ReadWithoutList int64 `json:"readWithoutList"`
			Fetches         int64 `json:"fetchCalls"`
			Duplicates      int64 `json:"duplicateDeliveries"`
			Searches        int64 `json:"searchCalls"`
			LinksFollowed   int64 `json:"linksFollowed"`
		} `json:"figures"`
		Reach         float64 `json:"reach"`
		DuplicateRate float64 `json:"duplicateRate"`
		FetchDocument bool    `json:"fetchDocument"`
		Decision      string  `json:"decision"`
		History       []struct {
			At      time.Time `json:"at"`
			Fetch   bool      `json:"fetchDocument"`
			Reason  string    `json:"reason"`
			Figures struct {
				Sessions int64 `json:"sessions"`
			} `json:"figures"`
			Gate struct {
				Reach       float64 `json:"reach"`
				MinSessions int64   `json:"minSessions"`
			} `json:"gate"`
		} `json:"history"`
		Series []struct {
			Reach float64 `json:"reach"`
		} `json:"series"`
	} `json:"clients"`
}

func getFigures(t *testing.T, host string) *figuresJSON {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+host+"/figures", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /figures: %s %s: %s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	var f figuresJSON
	if err := json.Unmarshal(body, &f); err != nil {
		t.Fatalf("GET /figures: %v: %s", err, body)
	}
	return &f
}

func (f *figuresJSON) client(name string) int {
	for i, c := range f.Clients {
		if c.Client.Name == name {
			return i
		}
	}
	return -1
}

// waitFigures polls /figures until ok holds (an evaluation of the gate has
// happened), for at most 30 s.
func waitFigures(t *testing.T, host, what string, ok func(*figuresJSON) bool) *figuresJSON {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		f := getFigures(t, host)
		if ok(f) {
			return f
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(f, "", " ")
			t.Fatalf("timed out after 30 s waiting for %s; figures:\n%s", what, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The three scripted clients of TestFiguresGate.
const (
	neverReads  = "never-reads"   // lists and searches, never reads; fetches links once each when it may
	readsOnly   = "reads-only"    // lists and reads, never fetches
	fetchesDups = "fetches-twice" // lists, never reads; fetches the same document twice when it may
)

// session runs one scripted session of client name and reports whether
// it was offered fetch_document.
func session(t *testing.T, host, name string, i int) bool {
	t.Helper()
	o := &bridge.Options{ClientInfo: bridge.Implementation{Name: name, Version: "1.0"}}
	if i%3 == 0 {
		o.Protocol = bridge.ProtocolLegacy // initialize's clientInfo
	} // else auto: 2026-07-28, the first request's _meta clientInfo
	s := mcptest.Dial(t, host, o)
	defer s.Close()
	ctx := context.Background()
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatalf("%s session %d: tools/list: %v", name, i, err)
	}
	fetch := slices.ContainsFunc(tools.Items, func(tl bridge.Tool) bool { return tl.Name == "fetch_document" })
	list, err := s.ListResources(ctx, nil)
	if err != nil || len(list.Items) < 3 {
		t.Fatalf("%s session %d: resources/list: %v (%d)", name, i, err, len(list.Items))
	}
	call := func(tool string, args map[string]any) json.RawMessage {
		raw, err := s.CallTool(ctx, tool, args)
		if err != nil {
			t.Fatalf("%s session %d: %s: %v", name, i, tool, err)
		}
		return raw
	}
	switch name {
	case neverReads:
		raw := call("search_documents", map[string]any{"query": "incident"})
		var res struct {
			Content []struct {
				Type string `json:"type"`
				URI  string `json:"uri"`
			} `json:"content"`
		}
		if json.Unmarshal(raw, &res) != nil || len(res.Content) == 0 || res.Content[0].Type != "resource_link" {
			t.Fatalf("search_documents: %s", raw)
		}
		if fetch { // a link followed, fetched once
			call("fetch_document", map[string]any{"uri": res.Content[0].URI})
		}
	case readsOnly:
		for _, r := range list.Items[:2] {
			if _, err := s.ReadResource(ctx, r.URI); err != nil {
				t.Fatalf("read %s: %v", r.URI, err)
			}
		}
	case fetchesDups:
		if fetch {
			call("fetch_document", map[string]any{"uri": list.Items[0].URI})
			call("fetch_document", map[string]any{"uri": list.Items[0].URI}) // a duplicate delivery
		}
	}
	return fetch
}

// TestFiguresGate drives 200 scripted sessions of three clients through
// the real server over WebSocket (min sessions lowered to 20, the gate
// re-derived every second; each client's first 20 sessions run before any
// can be decided, as a session's tools come from the sessions before it) and checks the figures, the decisions, their
// persistence across a restart, and that fetch_document appears and
// disappears for the right clients at their next session (issue 17 §2).
func TestFiguresGate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "figures.db")
	args := []string{"-no-web=false", "-figures", path, "-gate-min-sessions", "20", "-gate-every", "1s", "-resource-blind", ""}
	host, stop := runServer(t, testConfig(t, args...))
	sessions := 0
	phase := func(name string, n int, wantFetch bool) {
		t.Helper()
		for i := 0; i < n; i++ {
			if got := session(t, host, name, sessions); got != wantFetch {
				t.Fatalf("%s session %d: fetch_document offered = %v, want %v", name, sessions, got, wantFetch)
			}
			sessions++
		}
	}

	// Phase 1: nobody is decided yet, so nobody has fetch_document.
	for _, n := range []string{neverReads, readsOnly, fetchesDups} {
		phase(n, 20, false)
	}
	f := waitFigures(t, host, "the first decisions", func(f *figuresJSON) bool {
		for _, n := range []string{neverReads, readsOnly, fetchesDups} {
			if i := f.client(n); i < 0 || len(f.Clients[i].History) == 0 {
				return false
			}
		}
		return true
	})
	check := func(f *figuresJSON, name string, want func(c int) string) {
		t.Helper()
		i := f.client(name)
		if i < 0 {
			t.Fatalf("no figures for %s", name)
		}
		if msg := want(i); msg != "" {
			b, _ := json.MarshalIndent(f.Clients[i], "", " ")
			t.Errorf("%s: %s\n%s", name, msg, b)
		}
	}
	check(f, neverReads, func(i int) string {
		c := f.Clients[i]
		if fg := c.Figures; fg.Sessions != 20 || fg.Listing != 20 || fg.Reading != 0 || fg.ListWithoutRead != 20 || fg.Searches != 20 || fg.Fetches != 0 {
			return "figures after phase 1"
		}
		if c.Decision != "gated" || !c.FetchDocument || len(c.History) != 1 || !c.History[0].Fetch ||
			!strings.Contains(c.History[0].Reason, "read reach 0.000 (0 of 20 sessions) < 0.20") || c.History[0].Gate.MinSessions != 20 {
			return "want gated for read reach 0 < 0.20"
		}
		return ""
	})
	check(f, readsOnly, func(i int) string {
		c := f.Clients[i]
		if fg := c.Figures; fg.Sessions != 20 || fg.Reading != 20 || fg.ListWithoutRead != 0 || c.Reach != 1 {
			return "figures after phase 1"
		}
		if c.Decision != "not gated" || c.FetchDocument || len(c.History) != 1 || c.History[0].Fetch || !strings.Contains(c.History[0].Reason, "not gated") {
			return "want a stored 'not gated' decision"
		}
		return ""
	})
	check(f, fetchesDups, func(i int) string {
		if c := f.Clients[i]; c.Decision != "gated" || c.Figures.Reading != 0 {
			return "want gated"
		}
		return ""
	})
	if !f.Persistent || len(f.Forced) != 0 || !f.Assumption.Holds {
		t.Errorf("persistent %v, forced %v, assumption holds %v", f.Persistent, f.Forced, f.Assumption.Holds)
	}

	// A restart on the same file keeps the figures and the decisions.
	stop()
	host, _ = runServer(t, testConfig(t, args...))
	g := getFigures(t, host)
	for _, n := range []string{neverReads, readsOnly, fetchesDups} {
		a, b := f.Clients[f.client(n)], g.Clients[g.client(n)]
		if a.Figures != b.Figures || len(b.History) != len(a.History) || a.History[0].Reason != b.History[0].Reason ||
			!a.History[0].At.Equal(b.History[0].At) || a.Decision != b.Decision {
			t.Errorf("%s after the restart: %+v, before: %+v", n, b, a)
		}
	}

	// Phase 2: the gated clients have fetch_document at their next session.
	// fetchesDups fetches duplicates from its first session on: it keeps
	// the tool until the next evaluation (at most 1 s later) and never gets
	// it back, its reach below the threshold notwithstanding.
	phase(neverReads, 30, true)
	phase(readsOnly, 30, false)
	offered := 0
	for i := 0; i < 30; i++ {
		got := session(t, host, fetchesDups, sessions)
		sessions++
		switch {
		case got && offered == i:
			offered++
		case got:
			t.Fatalf("%s: fetch_document offered again at phase-2 session %d, after it was taken", fetchesDups, i)
		case i == 0:
			t.Fatalf("%s: no fetch_document at its first session after it was gated", fetchesDups)
		}
	}
	f = waitFigures(t, host, fetchesDups+" to lose fetch_document", func(f *figuresJSON) bool {
		i := f.client(fetchesDups)
		return i >= 0 && len(f.Clients[i].History) == 2
	})
	check(f, fetchesDups, func(i int) string {
		c := f.Clients[i]
		k := int64(offered)
		if fg := c.Figures; fg.Sessions != 50 || fg.Fetches != 2*k || fg.Duplicates != k || fg.Reading != 0 || c.DuplicateRate != 0.5 {
			return fmt.Sprintf("figures after phase 2 (%d sessions with fetch_document)", k)
		}
		h := c.History[1]
		if c.Decision != "not gated" || c.FetchDocument || h.Fetch || h.Figures.Sessions < 21 ||
			!regexp.MustCompile(`^duplicate rate 0\.(3[1-9]|[4-9]\d)\d \(\d+ of \d+ fetch_document calls\) > 0\.30$`).MatchString(h.Reason) {
			return "want fetch_document taken for duplicates, though its reach (0) is below the threshold"
		}
		return ""
	})
	check(f, neverReads, func(i int) string {
		c := f.Clients[i]
		if fg := c.Figures; fg.Sessions != 50 || fg.Fetches != 30 || fg.Duplicates != 0 || fg.LinksFollowed != 30 || fg.Searches != 50 || fg.Reading != 0 {
			return "figures after phase 2"
		}
		if c.Decision != "gated" || len(c.History) != 1 || len(c.Series) < 2 {
			return "want still gated (unchanged decisions are not stored again), and a reach series"
		}
		return ""
	})
	check(f, readsOnly, func(i int) string {
		if c := f.Clients[i]; c.Figures.Sessions != 50 || c.Figures.Fetches != 0 || len(c.History) != 1 {
			return "figures after phase 2"
		}
		return ""
	})

	// Phase 3: the next sessions see the new decisions.
	phase(neverReads, 17, true)
	phase(readsOnly, 16, false)
	phase(fetchesDups, 17, false)
	if sessions != 200 {
		t.Fatalf("ran %d sessions, want 200", sessions)
	}
	f = waitFigures(t, host, "every session counted", func(f *figuresJSON) bool {
		total := int64(0)
		for _, c := range f.Clients {
			total += c.Figures.Sessions
		}
		return total == 200
	})
	if len(f.Clients) != 3 || !f.Assumption.Holds {
		t.Errorf("clients %d, assumption holds %v", len(f.Clients), f.Assumption.Holds)
	}
}

// TestFiguresDoor checks who may read /figures: loopback peers with a
// loopback Host, or with -figures-token a Bearer token from anyone; the
// page or JSON by Accept; nothing under -no-web; and that a client's name
// is escaped on the page (client names are attacker-controlled).
func TestFiguresDoor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-figures\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	get := func(host, hostHeader, accept, auth string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+host+"/figures", nil)
		if hostHeader != "" {
			req.Host = hostHeader
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}

	host, _ := startServer(t, testConfig(t, "-no-web=false", "-resource-blind", "forced-one"))
	hostile := `<img src=x onerror=alert(1)>"'&<script>x</script>`
	s := mcptest.Dial(t, host, &bridge.Options{ClientInfo: bridge.Implementation{Name: hostile, Version: "<b>1</b>"}})
	if _, err := s.ListResources(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, h, body := get(host, "", "text/html", "")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("page: %d %v", code, h)
	}
	for _, bad := range []string{"<img", "<script", "<b>1"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page contains %q unescaped", bad)
		}
	}
	if !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") || !strings.Contains(body, "forced-one") {
		t.Errorf("the page lacks the escaped client name or the forced name:\n%s", body)
	}
	if code, h, body = get(host, "", "application/json", ""); code != 200 || h.Get("Content-Type") != "application/json" ||
		!strings.Contains(body, `"forced": [`) {
		t.Errorf("JSON: %d %s", code, body)
	}
	var rep figuresJSON
	if json.Unmarshal([]byte(body), &rep) != nil || rep.client(hostile) < 0 || rep.Persistent {
		t.Errorf("JSON lacks the hostile client verbatim, or says persistent: %s", body)
	}
	// DNS rebinding: a loopback peer, but a Host that is not loopback.
	if code, _, _ = get(host, "evil.example:80", "", ""); code != http.StatusForbidden {
		t.Errorf("Host evil.example: %d, want 403", code)
	}
	if code, _, _ = get(host, "", "", "Bearer s3cret-figures"); code != 200 {
		t.Errorf("without -figures-token a loopback peer is served: %d", code)
	}

	host2, _ := startServer(t, testConfig(t, "-no-web=false", "-figures-token", tokenFile))
	for _, c := range []struct {
		name, host, auth string
		want             int
	}{
		{"no token, even from loopback", "", "", http.StatusUnauthorized},
		{"wrong token", "", "Bearer nope", http.StatusUnauthorized},
		{"basic auth", "", "Basic czNjcmV0LWZpZ3VyZXM=", http.StatusUnauthorized},
		{"token", "", "Bearer s3cret-figures", 200},
		{"token, any Host", "figures.example", "Bearer s3cret-figures", 200},
	} {
		if code, h, _ := get(host2, c.host, "application/json", c.auth); code != c.want {
			t.Errorf("%s: %d, want %d", c.name, code, c.want)
		} else if code == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: 401 without WWW-Authenticate: Bearer", c.name)
		}
	}

	host3, _ := startServer(t, testConfig(t)) // -no-web
	if code, _, _ := get(host3, "", "application/json", ""); code != http.StatusNotFound {
		t.Errorf("-no-web: /figures answered %d, want 404", code)
	}
}

// TestFiguresFlags checks the gate's flags and that a figures file that
// cannot be written fails the start with the reason.
func TestFiguresFlags(t *testing.T) {
	t.Parallel()
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.figures != "" || cfg.figuresToken != "" || cfg.gateWindow != 720*time.Hour || cfg.gateReach != 0.20 ||
		cfg.gateDuplicates != 0.30 || cfg.gateMinSess != 50 || cfg.gateEvery != time.Hour {
		t.Errorf("defaults: %+v", cfg)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"-gate-window", "0s"}, "-gate-window must be a positive duration"},
		{[]string{"-gate-every", "-1s"}, "-gate-every must be a positive duration"},
		{[]string{"-gate-reach", "0"}, "-gate-reach must be a fraction in (0, 1]"},
		{[]string{"-gate-reach", "1.5"}, "-gate-reach must be a fraction in (0, 1]"},
		{[]string{"-gate-duplicates", "-0.1"}, "-gate-duplicates must be a fraction in [0, 1]"},
		{[]string{"-gate-min-sessions", "0"}, "-gate-min-sessions must be positive"},
		{[]string{"-figures-token", "f", "-no-web"}, "-figures-token has no effect with -no-web"},
		{[]string{"-stdio", "x", "-figures", "f.db"}, "-figures applies to the documents server only"},
		{[]string{"-upstream", "http://127.0.0.1:1/mcp", "-gate-reach", "0.1"}, "-gate-reach applies to the documents server only"},
	} {
		if _, err := parseFlags(c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want %q", c.args, err, c.err)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing folder", []string{"-figures", filepath.Join(dir, "no", "such", "f.db")}, "-figures: figures " + filepath.Join(dir, "no", "such", "f.db")},
		{"a folder", []string{"-figures", dir}, "-figures: figures " + dir},
		{"empty token file", []string{"-no-web=false", "-figures-token", writeFile(t, dir, "empty", "")}, "want one token"},
		{"missing token file", []string{"-no-web=false", "-figures-token", filepath.Join(dir, "none")}, "-figures-token: open"},
	} {
		log, _ := mcptest.Logger()
		err := run(context.Background(), testConfig(t, c.args...), log, io.Discard, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: run = %v, want %q", c.name, err, c.want)
		}
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
