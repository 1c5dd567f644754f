//go:build !js

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/gateway"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

// TestMain lets the test binary act as the stdio supervisor, as the mcphost
// binary does: the stdio gateway re-executes os.Executable().
func TestMain(m *testing.M) {
	if code, ok := gateway.SupervisorMode(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// testConfig returns a config as parseFlags would, for port 0 and with fast
// internal intervals.
func testConfig(t testing.TB, args ...string) *config {
	t.Helper()
	cfg, err := parseFlags(append([]string{"-addr", "127.0.0.1:0", "-no-web"}, args...), io.Discard)
	if err != nil {
		t.Fatalf("parseFlags(%q): %v", args, err)
	}
	cfg.pollInterval = 40 * time.Millisecond
	cfg.killGrace = 500 * time.Millisecond
	cfg.sseRetry = 50 * time.Millisecond
	return cfg
}

// startServer runs mcphost in-process and returns its host:port and logs.
// The server is shut down (and checked to return) at cleanup.
func startServer(t testing.TB, cfg *config) (string, *mcptest.LogBuffer) {
	t.Helper()
	log, logs := mcptest.Logger()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, cfg, log, io.Discard, ready) }()
	select {
	case host := <-ready:
		t.Cleanup(func() {
			cancel()
			select {
			case err := <-errc:
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("run did not return within 10 s of shutdown")
			}
		})
		return host, logs
	case err := <-errc:
		cancel()
		t.Fatalf("run: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("server did not start within 10 s")
	}
	return "", nil
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		err  string
		chk  func(*config) bool
	}{
		{"defaults", nil, "", func(c *config) bool {
			return c.addr == "127.0.0.1:8080" && c.pageSize == 50 && c.maxConns == 64 && c.readLimit == 64<<20 &&
				c.resourceBlind == "resource-blind-demo" && !c.noWeb && c.docsDir == "" && c.stdio == "" && c.upstream == ""
		}},
		{"all flags", []string{"-addr", ":0", "-docs", "d", "-origin", "a", "-origin", "b", "-token-file", "f",
			"-page-size", "3", "-max-conns", "2", "-read-limit", "1MiB", "-resource-blind", "x,y", "-no-web"}, "", func(c *config) bool {
			return c.docsDir == "d" && len(c.origins) == 2 && c.tokenFile == "f" && c.pageSize == 3 && c.maxConns == 2 &&
				c.readLimit == 1<<20 && c.resourceBlind == "x,y" && c.noWeb
		}},
		{"upstream with headers", []string{"-upstream", "http://127.0.0.1:1/mcp", "-upstream-header", "Authorization: Bearer x", "-upstream-header", "X-A: b"}, "", func(c *config) bool {
			return len(c.headers) == 2
		}},
		{"read limit bytes", []string{"-read-limit", "1048576"}, "", func(c *config) bool { return c.readLimit == 1<<20 }},
		{"bounds defaults", nil, "", func(c *config) bool {
			return c.maxRequest == 4<<20 && c.maxQueue == 8<<20 && c.writeTimeout == 30*time.Second &&
				c.firstTimeout == 10*time.Second && c.idleTimeout == 2*time.Minute && c.childLogRate == 20
		}},
		{"bounds", []string{"-max-request", "1MiB", "-max-queue", "2MiB", "-write-timeout", "5s", "-first-request-timeout", "0",
			"-idle-timeout", "1m", "-child-log-rate", "7"}, "", func(c *config) bool {
			return c.maxRequest == 1<<20 && c.maxQueue == 2<<20 && c.writeTimeout == 5*time.Second && c.firstTimeout == 0 &&
				c.idleTimeout == time.Minute && c.childLogRate == 7
		}},
		{"front door defaults", nil, "", func(c *config) bool {
			return c.pingInterval == 25*time.Second && c.startTimeout == 30*time.Second && len(c.allowedHosts) == 0 && len(c.proxies) == 0
		}},
		{"front door", []string{"-ping-interval", "2s", "-start-timeout", "5s", "-allowed-hosts", "chat.test, *.example.com",
			"-allowed-hosts", "lan.host:8080", "-trusted-proxy", "127.0.0.1/32,10.0.0.0/8", "-trusted-proxy", "::1"}, "", func(c *config) bool {
			return c.pingInterval == 2*time.Second && c.startTimeout == 5*time.Second &&
				strings.Join(c.allowedHosts, " ") == "chat.test *.example.com lan.host:8080" &&
				len(c.proxies) == 3 && c.proxies[0].String() == "127.0.0.1/32" && c.proxies[2].String() == "::1/128"
		}},
		{"pings off", []string{"-ping-interval", "0"}, "", func(c *config) bool { return c.pingInterval == 0 }},
		{"negative ping interval", []string{"-ping-interval", "-1s"}, "-ping-interval must be positive or 0", nil},
		{"zero start timeout", []string{"-start-timeout", "0s"}, "-start-timeout must be positive", nil},
		{"bad trusted proxy", []string{"-trusted-proxy", "proxy.lan"}, `-trusted-proxy "proxy.lan": want a CIDR`, nil},
		{"bad allowed host", []string{"-allowed-hosts", "https://chat.test/"}, `-allowed-hosts "https://chat.test/"`, nil},
		{"empty allowed host", []string{"-allowed-hosts", "a,,b"}, "empty entry", nil},
		{"bad max request", []string{"-max-request", "0"}, "positive byte count", nil},
		{"zero write timeout", []string{"-write-timeout", "0s"}, "-write-timeout must be positive", nil},
		{"negative idle timeout", []string{"-idle-timeout", "-1s"}, "-idle-timeout must be positive or 0", nil},
		{"zero log rate", []string{"-child-log-rate", "0"}, "-child-log-rate must be positive", nil},
		{"two sources", []string{"-docs", "d", "-stdio", "x"}, "mutually exclusive", nil},
		{"header without upstream", []string{"-upstream-header", "A: b"}, "needs -upstream", nil},
		{"bad upstream", []string{"-upstream", "ftp://x"}, "http:// or https://", nil},
		{"bad read limit", []string{"-read-limit", "lots"}, "byte count", nil},
		{"zero page size", []string{"-page-size", "0"}, "-page-size", nil},
		{"upstream requests default", nil, "", func(c *config) bool { return c.maxUpstream == 32 }},
		{"upstream requests", []string{"-upstream", "http://127.0.0.1:1/mcp", "-max-upstream-requests", "5"}, "", func(c *config) bool { return c.maxUpstream == 5 }},
		{"zero upstream requests", []string{"-upstream", "http://127.0.0.1:1/mcp", "-max-upstream-requests", "0"}, "-max-upstream-requests must be positive, got 0", nil},
		{"upstream requests without upstream", []string{"-max-upstream-requests", "5"}, "-max-upstream-requests needs -upstream", nil},
		{"upstream requests with stdio", []string{"-stdio", "sh", "-max-upstream-requests", "5"}, "-max-upstream-requests needs -upstream", nil},
		{"stray args", []string{"node", "x"}, "unexpected arguments", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := parseFlags(tc.args, io.Discard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.chk(c) {
				t.Fatalf("config = %+v", c)
			}
		})
	}
}

func TestHelpDocumentsEveryFlag(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &out); err == nil {
		t.Fatal("-h: want flag.ErrHelp")
	}
	for _, f := range []string{"-addr", "-docs", "-stdio", "-upstream", "-upstream-header", "-origin", "-token-file",
		"-page-size", "-max-conns", "-read-limit", "-resource-blind", "-no-web", "(default 64MiB)", "(default 50)", "(default 64)",
		"-max-request", "(default 4MiB)", "-max-queue", "(default 8MiB)", "-write-timeout", "(default 30s)",
		"-first-request-timeout", "(default 10s)", "-idle-timeout", "(default 2m0s)", "-child-log-rate", "(default 20)",
		"-ping-interval", "(default 25s)", "-start-timeout", "(default 30s)", "-allowed-hosts", "-trusted-proxy",
		"-max-upstream-requests", "(default 32)"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("-h output does not mention %s", f)
		}
	}
}

// TestFlagValidation: -origin patterns, -upstream and -upstream-header are
// checked at start; a refusal names the value, what is wrong and (for
// -origin) the accepted forms.
func TestFlagValidation(t *testing.T) {
	t.Parallel()
	originPatterns := []struct {
		pattern string
		err     string // "" = accepted
	}{
		{"http://localhost:5173", ""},
		{"https://chat.example.com", ""},
		{"HTTP://LOCALHOST:5173", ""},
		{"http://127.0.0.1:*", ""},
		{"https://*.example.com", ""},
		{"*.example.com", ""},
		{"localhost:5173", ""},
		{"http://[::1]:8080", ""},
		{"chrome-extension://abcdefghijklmnop", ""},
		{"http://localhost:5173/", "has a trailing slash (an origin has no path: use http://localhost:5173)"},
		{"https://chat.example.com/app", "has a path (an origin has no path: use https://chat.example.com)"},
		{"http://localhost:5173?x=1", "has a query (use http://localhost:5173)"},
		{"http://localhost:5173#top", "has a fragment"},
		{"", "is empty"},
		{"   ", "is empty"},
		{"null", `"null" origin`},
		{"http://", "has no host"},
		{"http://exa mple.com", "white space"},
		{"http://bad_host!:80", "invalid host"},
		{"http://localhost:port", "invalid port"},
		{"http://localhost:99999", "port out of range"},
		{"http://localhost:", "empty port"},
		{"http://user@localhost", "user information"},
		{"1http://x", "invalid scheme"},
		{"http:localhost", `scheme without "//"`},
		{"http://[::1", "unterminated IPv6"},
	}
	for _, tc := range originPatterns {
		_, err := parseFlags([]string{"-origin", tc.pattern}, io.Discard)
		if tc.err == "" {
			if err != nil {
				t.Errorf("-origin %q refused: %v", tc.pattern, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("-origin %q accepted", tc.pattern)
			continue
		}
		for _, want := range []string{tc.err, fmt.Sprintf("%q", tc.pattern), "accepted forms: scheme://host[:port]"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("-origin %q: %v; want it to contain %s", tc.pattern, err, want)
			}
		}
	}
	upstreams := []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8000/mcp", true}, {"https://mcp.example.com/mcp", true},
		{"ftp://x/mcp", false}, {"mcp.example.com/mcp", false}, {"http://", false}, {"ws://127.0.0.1/mcp", false},
	}
	for _, tc := range upstreams {
		_, err := parseFlags([]string{"-upstream", tc.url}, io.Discard)
		if (err == nil) != tc.ok || err != nil && !strings.Contains(err.Error(), "http:// or https:// URL") {
			t.Errorf("-upstream %q: %v", tc.url, err)
		}
	}
	headers := []struct {
		header, err string
	}{
		{"Authorization: Bearer x", ""},
		{"X-Api-Key:abc", ""},
		{"X-Empty:", ""},
		{"Authorization Bearer x", "no colon"},
		{": x", "empty name"},
		{"Bad Name: x", `character ' ' in the name`},
		{"X(y): z", `character '(' in the name`},
		{"X-A: b\x01c", "control character"},
	}
	for _, tc := range headers {
		_, err := parseFlags([]string{"-upstream", "http://127.0.0.1:1/mcp", "-upstream-header", tc.header}, io.Discard)
		if tc.err == "" {
			if err != nil {
				t.Errorf("-upstream-header %q refused: %v", tc.header, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `want "Name: value"`) {
			t.Errorf("-upstream-header %q: %v; want %q", tc.header, err, tc.err)
		}
	}
}

// TestFlagValuesChecked: a flag given an empty value is refused, not taken
// as left out (-stdio "$UNSET_VAR" used to serve the sample documents in
// place of a gateway); -addr is checked as host:port, the -stdio command is
// found at start, and durations below a sane minimum are refused; every
// refusal names the flag.
func TestFlagValuesChecked(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		err  string // "" = accepted
	}{
		{[]string{"-stdio", ""}, "-stdio is empty"},
		{[]string{"-stdio", "  "}, "-stdio is empty"},
		{[]string{"-upstream", ""}, "-upstream is empty"},
		{[]string{"-docs", ""}, "-docs is empty"},
		{[]string{"-token-file", ""}, "-token-file is empty"},
		{[]string{"-figures", ""}, "-figures is empty"},
		{[]string{"-no-web=false", "-figures-token", ""}, "-figures-token is empty"},
		{[]string{"-addr", ""}, "-addr is empty"},
		{[]string{"-resource-blind", ""}, ""}, // no names: the override off
		{[]string{"-addr", "foo"}, `-addr "foo": address foo: missing port in address; want host:port`},
		{[]string{"-addr", "127.0.0.1:99999"}, `-addr "127.0.0.1:99999"`},
		{[]string{"-addr", "127.0.0.1:no-such-service"}, `-addr "127.0.0.1:no-such-service"`},
		{[]string{"-addr", ":0"}, ""},
		{[]string{"-addr", "[::1]:0"}, ""},
		{[]string{"-stdio", "/nonexistent/x --flag"}, `-stdio "/nonexistent/x --flag": cannot run "/nonexistent/x"`},
		{[]string{"-stdio", "no-such-command-mcphost-test"}, `cannot run "no-such-command-mcphost-test"`},
		{[]string{"-stdio", `"unterminated`}, "-stdio"},
		{[]string{"-stdio", "cat -u"}, ""},
		{[]string{"-write-timeout", "1ns"}, "-write-timeout must be at least 1s"},
		{[]string{"-write-timeout", "1s"}, ""},
		{[]string{"-idle-timeout", "1ns"}, "-idle-timeout must be at least 1s, or 0"},
		{[]string{"-idle-timeout", "0"}, ""},
		{[]string{"-first-request-timeout", "1ns"}, "-first-request-timeout must be at least 100ms"},
		{[]string{"-ping-interval", "1ns"}, "-ping-interval must be at least 100ms"},
		{[]string{"-start-timeout", "1ns"}, "-start-timeout must be at least 100ms"},
		{[]string{"-gate-every", "1ns"}, "-gate-every must be at least 1s"},
	}
	for _, tc := range cases {
		_, err := parseFlags(tc.args, io.Discard)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q refused: %v", tc.args, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v; want an error containing %q", tc.args, err, tc.err)
		}
	}
}

// TestNonLoopbackListener: a listener that is not loopback needs
// -allowed-hosts or -token-file (DNS rebinding); loopback needs neither.
func TestNonLoopbackListener(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ip   string
		args []string
		ok   bool
	}{
		{"127.0.0.1", nil, true},
		{"::1", nil, true},
		{"0.0.0.0", nil, false},
		{"192.168.1.5", nil, false},
		{"0.0.0.0", []string{"-allowed-hosts", "chat.lan"}, true},
		{"192.168.1.5", []string{"-token-file", "tokens"}, true},
	} {
		cfg, err := parseFlags(tc.args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		err = cfg.checkListener(net.ParseIP(tc.ip))
		if (err == nil) != tc.ok || err != nil && (!strings.Contains(err.Error(), "-allowed-hosts") || !strings.Contains(err.Error(), "DNS rebinding")) {
			t.Errorf("%s %q: %v", tc.ip, tc.args, err)
		}
	}
}

func TestSizeFlag(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"1": 1, "64MiB": 64 << 20, "512kib": 512 << 10, "2GiB": 2 << 30, "3MB": 3e6, "10 B": 10} {
		var s sizeFlag
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, s, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "MiB", "1.5MiB", "99999999999GiB"} {
		var s sizeFlag
		if err := s.Set(in); err == nil {
			t.Errorf("Set(%q) accepted", in)
		}
	}
	s := sizeFlag(64 << 20)
	if s.String() != "64MiB" {
		t.Errorf("String = %q", s.String())
	}
}
