//go:build !js

// Command mcphost serves the mcphost demo: the web page and wasm module, and
// on /mcp (MCP over WebSocket, subprotocol "mcp") either a built-in documents
// server or a gateway to any stdio or Streamable HTTP MCP server. On
// /mcp/read-resource/{channel} it answers a provider relay's read-resource
// ask from the same source, behind the same checks (bridge.RelayDoor): one
// text message in (resources/read params), one binary relay frame out.
//
//	mcphost [-addr 127.0.0.1:8080] [-docs DIR | -stdio "CMD ARGS" | -upstream URL [-upstream-header "K: V"]...]
//	        [-origin PATTERN]... [-token-file FILE] [-page-size N] [-max-conns N] [-read-limit BYTES]
//	        [-max-request BYTES] [-max-queue BYTES] [-write-timeout D] [-first-request-timeout D]
//	        [-idle-timeout D] [-ping-interval D] [-start-timeout D] [-child-log-rate N] [-max-upstream-requests N]
//	        [-allowed-hosts NAMES] [-trusted-proxy CIDR]... [-resource-blind NAMES] [-no-web]
//	        [-figures FILE] [-figures-token FILE] [-gate-window D] [-gate-reach R] [-gate-duplicates R]
//	        [-gate-min-sessions N] [-gate-every D]
//
// Run bare, it serves the sample documents embedded in the binary. See -h.
//
// # Platforms
//
// mcphost is a native program (it is excluded from js/wasm builds). The
// stdio gateway's guarantee that no descendant outlives the gateway relies on
// Linux (process groups, Pdeathsig, a child subreaper); elsewhere the child is
// stopped by closing its stdin and then killed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/netutil"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/docserver"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/figures"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/gateway"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/sampledocs"
	"github.com/mcphost/mcphost/web"
)

// version is reported as serverInfo.version.
const version = "0.1.0"

const usageHead = `mcphost serves the mcphost demo page and MCP over WebSocket on /mcp.
/mcp/read-resource/{channel} answers one relay read-resource ask per
WebSocket from the same source, with the same checks (README.md, "Relay door").

Usage:
  mcphost [-addr 127.0.0.1:8080] [-docs DIR | -stdio "CMD ARGS" | -upstream URL [-upstream-header "K: V"]...]
          [-origin PATTERN]... [-token-file FILE] [-page-size N] [-max-conns N] [-read-limit BYTES]
          [-max-request BYTES] [-max-queue BYTES] [-write-timeout D] [-first-request-timeout D]
          [-idle-timeout D] [-ping-interval D] [-start-timeout D] [-child-log-rate N] [-max-upstream-requests N]
          [-allowed-hosts NAMES] [-trusted-proxy CIDR]... [-resource-blind NAMES] [-no-web]
          [-figures FILE] [-figures-token FILE] [-gate-window D] [-gate-reach R] [-gate-duplicates R]
          [-gate-min-sessions N] [-gate-every D]

Without a source flag, /mcp is the built-in documents server over the sample
documents embedded in the binary. With -docs, the same server over a folder
laid out as {team}/{kind}/{name}. With -stdio or -upstream, /mcp is a gateway:
each WebSocket connection gets its own upstream process or session.

Every bound below has a default that holds against a hostile client or
server; README.md's Security section lists them. A refused page learns why
from GET /mcp with Accept: application/json ({"code","reason","fix"});
README.md's Troubleshooting section shows each refusal and its fix.

The documents server records per client (clientInfo name and version) its
sessions and what they did, in SQLite at -figures FILE (in memory without
it), and gives fetch_document to the clients whose read reach is below
-gate-reach (re-derived at start and every -gate-every; docs/figures.md has
the rules). /figures shows the figures and every decision: to loopback
peers, or with -figures-token to anyone holding the token.

Flags:
`

// config is the parsed command line.
type config struct {
	addr          string
	docsDir       string
	stdio         string
	upstream      string
	headers       multiFlag
	origins       multiFlag
	tokenFile     string
	pageSize      int
	maxConns      int
	maxUpstream   int
	readLimit     sizeFlag
	maxRequest    sizeFlag
	maxQueue      sizeFlag
	writeTimeout  time.Duration
	firstTimeout  time.Duration
	idleTimeout   time.Duration
	childLogRate  int
	pingInterval  time.Duration
	startTimeout  time.Duration
	allowedHosts  listFlag
	trustedProxy  listFlag
	proxies       []netip.Prefix
	resourceBlind string
	noWeb         bool

	figures        string
	figuresToken   string
	gateWindow     time.Duration
	gateReach      float64
	gateDuplicates float64
	gateMinSess    int
	gateEvery      time.Duration

	// Internal knobs for tests (not flags).
	pollInterval time.Duration
	killGrace    time.Duration
	sseRetry     time.Duration
	relayTimeout time.Duration // 0: bridge.DefaultRelayTimeout

	// Plain HTTP (the page's files, /figures, refusals and diagnoses;
	// WebSockets once upgraded are not plain HTTP). Not flags: the
	// defaults are the bounds README.md's Security section lists.
	httpIdle      time.Duration // a keep-alive connection idle this long is closed
	httpDeadline  time.Duration // reading a request and writing its response, for the files and /figures
	plainConns    int           // connections accepted at once, besides -max-conns
	shutdownGrace time.Duration // what shutdown waits for requests and sessions to end
	webFS         fs.FS         // the page's files (nil: web.FS)
}

// The plain HTTP bounds' defaults: see config.
const (
	defaultHTTPIdle      = time.Minute
	defaultHTTPDeadline  = time.Minute
	defaultPlainConns    = 256
	defaultShutdownGrace = 5 * time.Second
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// listFlag is repeatable and each value comma-separated: "-allowed-hosts
// a,b -allowed-hosts c" is a, b and c.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			return fmt.Errorf("empty entry in %q", v)
		}
		*l = append(*l, s)
	}
	return nil
}

// sizeFlag is a byte count: 1048576, 64MiB, 512KiB, 1GiB (also KB/MB/GB as
// powers of ten).
type sizeFlag int64

func (s *sizeFlag) String() string {
	n := int64(*s)
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

func (s *sizeFlag) Set(v string) error {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mult := strings.TrimSpace(v), int64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(num), strings.ToUpper(u.suffix)) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return fmt.Errorf("want a positive byte count such as 1048576 or 64MiB, got %q", v)
	}
	*s = sizeFlag(n * mult)
	return nil
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{readLimit: bridge.DefaultReadLimit, maxRequest: defaultMaxRequest, maxQueue: bridge.DefaultMaxQueue,
		pollInterval: 500 * time.Millisecond, killGrace: time.Second, sseRetry: 500 * time.Millisecond,
		httpIdle: defaultHTTPIdle, httpDeadline: defaultHTTPDeadline, plainConns: defaultPlainConns, shutdownGrace: defaultShutdownGrace}
	fs := flag.NewFlagSet("mcphost", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "`host:port` to listen on; loopback by default (port 0 picks a free port)")
	fs.StringVar(&cfg.docsDir, "docs", "", "serve the documents under `DIR` ({team}/{kind}/{name}) with the built-in documents server;\nfile changes are polled and notified")
	fs.StringVar(&cfg.stdio, "stdio", "", "gateway: run `\"CMD ARGS\"` once per WebSocket connection and relay to it over stdio;\nsplit with shell quoting rules, never run by a shell, no expansion")
	fs.StringVar(&cfg.upstream, "upstream", "", "gateway: relay each WebSocket connection to its own session on the Streamable HTTP MCP server at `URL`")
	fs.Var(&cfg.headers, "upstream-header", "add the header `\"K: V\"` to every request to -upstream (repeatable), e.g. \"Authorization: Bearer ...\"")
	fs.Var(&cfg.origins, "origin", "also allow WebSocket connections from pages at origins matching `PATTERN` (repeatable):\nscheme://host[:port] matches that scheme only (http://localhost:5173, http://127.0.0.1:*),\nhost[:port] any scheme (*.example.com); no path or trailing slash; * is the wildcard;\nthe same origin (scheme and host) is always allowed, \"null\" never")
	fs.StringVar(&cfg.tokenFile, "token-file", "", "require a token: each line of `FILE` is \"token team1,team2\" (\"*\" = every team);\nclients offer the subprotocol \"mcp.token.<token>\" next to \"mcp\"; documents are scoped to the teams")
	fs.IntVar(&cfg.pageSize, "page-size", 50, "resources/list page size of the documents server (`N`)")
	fs.IntVar(&cfg.maxConns, "max-conns", 64, "refuse WebSocket connections past `N` concurrent ones with 503;\nN + 256 connections of any kind are accepted at once (the rest wait)")
	fs.IntVar(&cfg.maxUpstream, "max-upstream-requests", gateway.DefaultMaxInFlight, "gateway -upstream: at most `N` requests of one WebSocket connection in flight upstream at once;\na request past it is not sent but answered at once with a retryable error (-32603, data.limit)")
	fs.Var(&cfg.readLimit, "read-limit", "gateway: largest message accepted from either side, in `BYTES` (e.g. 1048576, 64MiB)")
	fs.Var(&cfg.maxRequest, "max-request", "documents server: largest message accepted from a client, in `BYTES`;\na larger one closes the connection with 1009")
	fs.Var(&cfg.maxQueue, "max-queue", "most `BYTES` waiting to be sent to one client (or one frame of any size); a write that\nfinds no room waits, and a client that keeps it full for -write-timeout is disconnected")
	fs.DurationVar(&cfg.writeTimeout, "write-timeout", bridge.DefaultWriteTimeout, "disconnect a client that does not take a frame, or keeps its -max-queue full, for this `DURATION`")
	fs.DurationVar(&cfg.firstTimeout, "first-request-timeout", bridge.DefaultFirstRequestTimeout, "close a connection (1008) that sends no valid JSON-RPC request within this `DURATION`\nof the upgrade (with -stdio: of its child's start) (0: never)")
	fs.DurationVar(&cfg.idleTimeout, "idle-timeout", bridge.DefaultIdleTimeout, "close a connection (1001) with no traffic either way for this `DURATION`; after half of it\nthe server pings, and a pong counts as traffic (0: never)")
	fs.DurationVar(&cfg.pingInterval, "ping-interval", bridge.DefaultPingInterval, "send a WebSocket ping on a connection the server has sent nothing on for this `DURATION`,\nso that a reverse proxy's idle timeout (nginx proxy_read_timeout: 60s) never closes a quiet one\n(0: off; the -idle-timeout probe at half of it stays)")
	fs.DurationVar(&cfg.startTimeout, "start-timeout", gateway.DefaultStartTimeout, "gateway: give a starting -stdio child this `DURATION` to answer the first request\n(initialize or server/discover) before answering it with an error")
	fs.Var(&cfg.allowedHosts, "allowed-hosts", "Host `NAMES` (comma-separated, repeatable; * wildcard; with or without :port) accepted\nbesides loopback names (DNS rebinding guard); required on a non-loopback -addr without -token-file")
	fs.Var(&cfg.trustedProxy, "trusted-proxy", "believe X-Forwarded-Proto/-Host and Forwarded only from these reverse proxies' addresses\n(`CIDR`s, comma-separated, repeatable, e.g. 127.0.0.1/32); from anyone else they are ignored")
	fs.IntVar(&cfg.childLogRate, "child-log-rate", gateway.DefaultLogRate, "gateway: log at most `N` lines per second of a -stdio child's stderr and stray stdout\n(bursts of 10×N); the rest are counted in a summary line")
	fs.StringVar(&cfg.resourceBlind, "resource-blind", "resource-blind-demo", "comma-separated clientInfo.name `NAMES` that always get the fetch_document tool, whatever the\nfigures say (a forced override, reported as such on /figures)")
	fs.StringVar(&cfg.figures, "figures", "", "documents server: keep the figures and the gate's decisions in this SQLite `FILE` (created if\nmissing; an unwritable path fails the start); without it they are in memory and lost at restart")
	fs.StringVar(&cfg.figuresToken, "figures-token", "", "serve /figures to anyone with Authorization: Bearer <the token in `FILE`>\n(without it, /figures is served to loopback peers only)")
	fs.DurationVar(&cfg.gateWindow, "gate-window", 720*time.Hour, "decide from the sessions started within this `DURATION` (a rolling window)")
	fs.Float64Var(&cfg.gateReach, "gate-reach", 0.20, "give fetch_document to a client whose read reach (reading sessions ÷ sessions) is below `R`;\nit loses it above R + 0.05")
	fs.Float64Var(&cfg.gateDuplicates, "gate-duplicates", 0.30, "take fetch_document from a client whose duplicate rate (fetches of a document it already had\n÷ fetch_document calls) exceeds `R` (this rule wins)")
	fs.IntVar(&cfg.gateMinSess, "gate-min-sessions", 50, "decide only for clients with at least `N` sessions in the window (fewer: no change)")
	fs.DurationVar(&cfg.gateEvery, "gate-every", time.Hour, "re-derive the gate's decisions at start and every `DURATION`")
	fs.BoolVar(&cfg.noWeb, "no-web", false, "do not serve the web page; only /mcp")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q (quote the -stdio command)", fs.Args())
	}
	// A flag given an empty value (-stdio "$UNSET_VAR") is a mistake, not
	// the flag left out: -stdio '' would serve the sample documents in
	// place of a gateway, -token-file '' would require no token.
	var empty *flag.Flag
	fs.Visit(func(f *flag.Flag) {
		if _, ok := emptyMeans[f.Name]; ok && empty == nil && strings.TrimSpace(f.Value.String()) == "" {
			empty = f
		}
	})
	if empty != nil {
		return nil, fmt.Errorf("-%s is empty (an unset variable?): %s", empty.Name, emptyMeans[empty.Name])
	}
	if err := checkAddr(cfg.addr); err != nil {
		return nil, err
	}
	if cfg.stdio != "" || cfg.upstream != "" {
		// The figures and the gate are the documents server's: a gateway
		// records nothing, so asking for them is a mistake worth saying.
		var docsOnly string
		fs.Visit(func(f *flag.Flag) {
			if docsOnly == "" && (f.Name == "figures" || f.Name == "figures-token" || strings.HasPrefix(f.Name, "gate-")) {
				docsOnly = f.Name
			}
		})
		if docsOnly != "" {
			return nil, fmt.Errorf("-%s applies to the documents server only, not to the -stdio or -upstream gateway", docsOnly)
		}
	}
	if cfg.upstream == "" {
		// The bound is the -upstream gateway's (a -stdio child reads one
		// message at a time; the documents server bounds its own calls):
		// given without it, it would bound nothing.
		var given bool
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "max-upstream-requests" })
		if given {
			return nil, errors.New("-max-upstream-requests needs -upstream (it bounds the requests relayed to the Streamable HTTP server)")
		}
	}
	sources := 0
	for _, s := range []string{cfg.docsDir, cfg.stdio, cfg.upstream} {
		if s != "" {
			sources++
		}
	}
	switch {
	case sources > 1:
		return nil, errors.New("-docs, -stdio and -upstream are mutually exclusive")
	case len(cfg.headers) > 0 && cfg.upstream == "":
		return nil, errors.New("-upstream-header needs -upstream")
	case cfg.pageSize <= 0:
		return nil, fmt.Errorf("-page-size must be positive, got %d", cfg.pageSize)
	case cfg.maxConns <= 0:
		return nil, fmt.Errorf("-max-conns must be positive, got %d", cfg.maxConns)
	case cfg.maxUpstream <= 0:
		return nil, fmt.Errorf("-max-upstream-requests must be positive, got %d", cfg.maxUpstream)
	case cfg.writeTimeout <= 0:
		return nil, fmt.Errorf("-write-timeout must be positive, got %v", cfg.writeTimeout)
	case cfg.writeTimeout < time.Second:
		return nil, fmt.Errorf("-write-timeout must be at least 1s (every client slower than it to take a frame is disconnected), got %v", cfg.writeTimeout)
	case cfg.firstTimeout < 0:
		return nil, fmt.Errorf("-first-request-timeout must be positive or 0 (never), got %v", cfg.firstTimeout)
	case cfg.firstTimeout > 0 && cfg.firstTimeout < 100*time.Millisecond:
		return nil, fmt.Errorf("-first-request-timeout must be at least 100ms, or 0 (never), got %v", cfg.firstTimeout)
	case cfg.idleTimeout < 0:
		return nil, fmt.Errorf("-idle-timeout must be positive or 0 (never), got %v", cfg.idleTimeout)
	case cfg.idleTimeout > 0 && cfg.idleTimeout < time.Second:
		return nil, fmt.Errorf("-idle-timeout must be at least 1s, or 0 (never), got %v", cfg.idleTimeout)
	case cfg.childLogRate <= 0:
		return nil, fmt.Errorf("-child-log-rate must be positive, got %d", cfg.childLogRate)
	case cfg.pingInterval < 0:
		return nil, fmt.Errorf("-ping-interval must be positive or 0 (off), got %v", cfg.pingInterval)
	case cfg.pingInterval > 0 && cfg.pingInterval < 100*time.Millisecond:
		return nil, fmt.Errorf("-ping-interval must be at least 100ms, or 0 (off), got %v", cfg.pingInterval)
	case cfg.startTimeout <= 0:
		return nil, fmt.Errorf("-start-timeout must be positive, got %v", cfg.startTimeout)
	case cfg.startTimeout < 100*time.Millisecond:
		return nil, fmt.Errorf("-start-timeout must be at least 100ms, got %v", cfg.startTimeout)
	case cfg.gateWindow <= 0:
		return nil, fmt.Errorf("-gate-window must be a positive duration (e.g. 720h), got %v", cfg.gateWindow)
	case cfg.gateEvery <= 0:
		return nil, fmt.Errorf("-gate-every must be a positive duration (e.g. 1h), got %v", cfg.gateEvery)
	case cfg.gateEvery < time.Second:
		return nil, fmt.Errorf("-gate-every must be at least 1s (e.g. 1h), got %v", cfg.gateEvery)
	case !(cfg.gateReach > 0 && cfg.gateReach <= 1):
		return nil, fmt.Errorf("-gate-reach must be a fraction in (0, 1], got %v", cfg.gateReach)
	case !(cfg.gateDuplicates >= 0 && cfg.gateDuplicates <= 1):
		return nil, fmt.Errorf("-gate-duplicates must be a fraction in [0, 1], got %v", cfg.gateDuplicates)
	case cfg.gateMinSess <= 0:
		return nil, fmt.Errorf("-gate-min-sessions must be positive, got %d", cfg.gateMinSess)
	case cfg.figuresToken != "" && cfg.noWeb:
		return nil, errors.New("-figures-token has no effect with -no-web (which turns /figures off)")
	}
	for _, p := range cfg.trustedProxy {
		pfx, err := bridge.ParseTrustedProxy(p)
		if err != nil {
			return nil, fmt.Errorf("-trusted-proxy %w", err)
		}
		cfg.proxies = append(cfg.proxies, pfx)
	}
	for _, h := range cfg.allowedHosts {
		if err := checkAllowedHost(h); err != nil {
			return nil, fmt.Errorf("-allowed-hosts %q: %w", h, err)
		}
	}
	for _, o := range cfg.origins {
		if err := bridge.CheckOriginPattern(o); err != nil {
			return nil, fmt.Errorf("-origin: %w", err)
		}
	}
	for _, kv := range cfg.headers {
		if _, _, err := parseHeader(kv); err != nil {
			return nil, err
		}
	}
	if cfg.upstream != "" {
		u, err := url.Parse(cfg.upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("-upstream must be an http:// or https:// URL, got %q", cfg.upstream)
		}
	}
	if cfg.stdio != "" {
		// Each connection runs the command: one that cannot run would
		// fail every connection, so it is found at start.
		argv, err := gateway.SplitCommand(cfg.stdio)
		if err != nil {
			return nil, fmt.Errorf("-stdio %q: %w", cfg.stdio, err)
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			return nil, fmt.Errorf("-stdio %q: cannot run %q: %w", cfg.stdio, argv[0], err)
		}
	}
	return cfg, nil
}

// emptyMeans says, for each flag whose value names something, what leaving
// the flag out does: an empty value is refused with it.
var emptyMeans = map[string]string{
	"docs":          "give a folder, or leave -docs out to serve the sample documents embedded in the binary",
	"stdio":         "give a command, or leave -stdio out (then /mcp is the documents server, not a gateway)",
	"upstream":      "give an http:// or https:// URL, or leave -upstream out (then /mcp is the documents server, not a gateway)",
	"token-file":    "give a file, or leave -token-file out (then no token is required)",
	"figures":       "give a file, or leave -figures out (then the figures are kept in memory)",
	"figures-token": "give a file, or leave -figures-token out (then /figures is served to loopback peers only)",
	"addr":          "give host:port such as 127.0.0.1:8080, or leave -addr out for 127.0.0.1:8080",
}

// checkAddr checks -addr: host:port, the host optional (all addresses),
// the port a number or a service name (0 picks a free port).
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return fmt.Errorf("-addr %q: %v; want host:port such as 127.0.0.1:8080 (port 0 picks a free port)", addr, err)
	}
	return nil
}

func main() {
	if code, ok := gateway.SupervisorMode(); ok {
		os.Exit(code)
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcphost:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, log, os.Stdout, nil); err != nil {
		log.Error("mcphost: " + err.Error())
		os.Exit(1)
	}
}

// run serves until ctx ends, then shuts down: the HTTP server stops
// accepting, every WebSocket session is closed (gateways kill their
// children), plain requests still running after cfg.shutdownGrace are cut
// off, and run returns nil (an error only when serving failed). ready, when
// set, receives the bound address.
func run(ctx context.Context, cfg *config, log *slog.Logger, stdout io.Writer, ready chan<- string) error {
	var figuresToken string
	if cfg.figuresToken != "" {
		b, err := os.ReadFile(cfg.figuresToken)
		if err != nil {
			return fmt.Errorf("-figures-token: %w", err)
		}
		if figuresToken = strings.TrimSpace(string(b)); figuresToken == "" || strings.ContainsAny(figuresToken, " \t\r\n") {
			return fmt.Errorf("-figures-token %s: want one token (no spaces) in the file", cfg.figuresToken)
		}
	}
	serve, docs, cleanup, err := cfg.mcpServe(ctx, log)
	if err != nil {
		return err
	}
	defer cleanup()

	opts := &bridge.EndpointOptions{
		OriginPatterns:      cfg.origins,
		ReadLimit:           int64(cfg.readLimit),
		MaxConns:            cfg.maxConns,
		Logger:              log,
		MaxQueue:            int64(cfg.maxQueue),
		WriteTimeout:        cfg.writeTimeout,
		FirstRequestTimeout: orNever(cfg.firstTimeout),
		IdleTimeout:         orNever(cfg.idleTimeout),
		PingInterval:        orNever(cfg.pingInterval),
		AllowedHosts:        cfg.allowedHosts,
		TrustedProxies:      cfg.proxies,
		RelayTimeout:        cfg.relayTimeout,
	}
	if cfg.stdio == "" && cfg.upstream == "" {
		// The documents server: clients send small requests.
		opts.ReadLimit = int64(cfg.maxRequest)
	}
	var ps *docserver.Principals
	if cfg.tokenFile != "" {
		f, err := os.Open(cfg.tokenFile)
		if err != nil {
			return fmt.Errorf("-token-file: %w", err)
		}
		ps, err = docserver.ParseTokenFile(f, cfg.stdio == "" && cfg.upstream == "")
		f.Close()
		if err != nil {
			return fmt.Errorf("-token-file %s: %w", cfg.tokenFile, err)
		}
		opts.Authenticate = ps.Authenticate
	}

	// Sessions are hijacked connections, which http.Server.Shutdown does not
	// track: they run under sessCtx, cancelled at shutdown, and are counted.
	sessCtx, cancelSessions := context.WithCancel(context.Background())
	defer cancelSessions()
	// A session that starts once shutdown is waiting for the others is
	// not served: WaitGroup.Add must not race with Wait (the relay door's
	// short sessions made that reachable).
	var (
		sessions   sync.WaitGroup
		sessMu     sync.Mutex
		sessClosed bool
	)
	track := func() bool {
		sessMu.Lock()
		defer sessMu.Unlock()
		if !sessClosed {
			sessions.Add(1)
		}
		return !sessClosed
	}
	endpoint := bridge.Endpoint(opts, func(ctx context.Context, c *bridge.Conn) {
		if !track() {
			return
		}
		defer sessions.Done()
		// Either ends the session: the caller's ctx (the relay door
		// cancels it to let its source go) or the shutdown.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(sessCtx, cancel)()
		serve(ctx, c, ps.Lookup(c.Principal()))
	})

	mux := http.NewServeMux()
	mux.Handle("/mcp", endpoint)
	// The relay door: one resources/read ask, answered by the same source
	// for the same principal as /mcp, behind the same checks (bridge.RelayDoor).
	mux.Handle("/mcp/read-resource/{channel}", bridge.RelayDoor(endpoint))
	if !cfg.noWeb {
		webFS := cfg.webFS
		if webFS == nil {
			webFS = web.FS
		}
		mux.Handle("/", withDeadline(cfg.httpDeadline, webHandler(webFS)))
		if docs != nil {
			mux.Handle("/figures", withDeadline(cfg.httpDeadline, docs.FiguresHandler(figuresToken)))
		}
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	addr := ln.Addr().(*net.TCPAddr)
	if err := cfg.checkListener(addr.IP); err != nil {
		ln.Close()
		return err
	}
	if !addr.IP.IsLoopback() {
		log.Warn("mcphost: listening on a non-loopback address; anyone who can reach it can use /mcp" +
			map[bool]string{true: " with a token", false: " (no -token-file)"}[cfg.tokenFile != ""])
	}
	host := ln.Addr().String()
	if addr.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(addr.Port))
	}
	if cfg.noWeb {
		fmt.Fprintf(stdout, "mcphost: serving ws://%s/mcp (MCP WebSocket; web page disabled)\n", host)
	} else {
		fmt.Fprintf(stdout, "mcphost: serving http://%s/ (MCP WebSocket at ws://%s/mcp)\n", host, host)
	}
	if ready != nil {
		ready <- host
	}
	// IdleTimeout closes keep-alive connections nobody uses (a hijacked
	// WebSocket is no longer the server's, so it is unaffected); the
	// listener accepts at most -max-conns WebSockets plus plainConns
	// connections at once (the rest wait in the kernel's backlog).
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: cfg.httpIdle,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(netutil.LimitListener(ln, cfg.maxConns+cfg.plainConns)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("mcphost: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownGrace)
	defer cancel()
	// Sessions close while Shutdown waits for the plain requests.
	sessMu.Lock()
	sessClosed = true
	sessMu.Unlock()
	cancelSessions()
	done := make(chan struct{})
	go func() { sessions.Wait(); close(done) }()
	if err := srv.Shutdown(sctx); err != nil {
		// Requests still running at the deadline (a client reading a file
		// slowly): their connections are closed; the shutdown completes.
		srv.Close()
		log.Warn("mcphost: HTTP requests still running at the shutdown deadline were cut off", "grace", cfg.shutdownGrace)
	}
	select {
	case <-done:
	case <-sctx.Done():
	}
	select {
	case <-done:
	default:
		log.Warn("mcphost: WebSocket sessions still closing at the shutdown deadline", "grace", cfg.shutdownGrace)
	}
	return nil
}

// withDeadline bounds a plain HTTP exchange by its progress: the request
// must be read within d, and each write of the response (the file server
// writes 32 KB at a time) must be taken by the client within d, or the
// connection is closed. A client that stops reading a file holds its
// connection no longer than d; one on a slow link that keeps reading gets
// the whole module however long that takes (a total deadline would cut
// off the 1.4 MB module on a link under 190 kbit/s). The server clears
// both deadlines before the connection's next request, and on a hijack.
func withDeadline(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		t := time.Now().Add(d)
		rc.SetReadDeadline(t)
		rc.SetWriteDeadline(t)
		h.ServeHTTP(&progressWriter{ResponseWriter: w, rc: rc, d: d}, r)
	})
}

// A progressWriter moves the write deadline d ahead of each write.
type progressWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *progressWriter) Write(p []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(w.d))
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checkListener refuses a listener that is not loopback with neither a
// token file nor -allowed-hosts: any web page could then reach /mcp by DNS
// rebinding (a name of its own resolved to this address), pass the
// same-origin check and read every document.
func (cfg *config) checkListener(ip net.IP) error {
	if ip.IsLoopback() || cfg.tokenFile != "" || len(cfg.allowedHosts) > 0 {
		return nil
	}
	return fmt.Errorf("-addr %s is not a loopback address and there is no -token-file: pass -allowed-hosts NAMES "+
		"(the host names pages use to reach this server, e.g. -allowed-hosts chat.example.com), or require a token with -token-file; "+
		"otherwise any web page could reach /mcp through DNS rebinding", cfg.addr)
}

// parseHeader splits an -upstream-header value "Name: value"; the name must
// be an RFC 9110 token and the value free of control characters.
func parseHeader(kv string) (name, value string, err error) {
	k, v, ok := strings.Cut(kv, ":")
	bad := func(why string) error {
		return fmt.Errorf("-upstream-header %q: %s; want \"Name: value\" with Name an HTTP header name (letters, digits, !#$%%&'*+-.^_`|~)", kv, why)
	}
	if !ok {
		return "", "", bad("no colon")
	}
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if k == "" {
		return "", "", bad("empty name")
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return "", "", bad(fmt.Sprintf("character %q in the name", c))
		}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return "", "", bad("a control character in the value")
		}
	}
	return k, v, nil
}

// checkAllowedHost checks an -allowed-hosts entry: a host name, an IP
// address or a pattern with *, optionally with :port.
func checkAllowedHost(h string) error {
	name := h
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") && strings.Count(h, ":") == 1 {
		name = h[:i]
		if port := h[i+1:]; port == "" || strings.Trim(port, "0123456789*") != "" {
			return errors.New("invalid port; want a host name such as chat.example.com, *.example.com or chat.example.com:8443")
		}
	}
	if strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
		if _, err := netip.ParseAddr(name[1 : len(name)-1]); err == nil {
			return nil
		}
	}
	if name == "" || strings.Contains(name, "://") || strings.ContainsAny(name, "/?#@ ") {
		return errors.New("want a host name such as chat.example.com, *.example.com or chat.example.com:8443 (no scheme or path)")
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '*') {
			return fmt.Errorf("character %q; want a host name such as chat.example.com or *.example.com", c)
		}
	}
	return nil
}

// defaultMaxRequest is -max-request's default: 4 MiB, the TypeScript SDK
// v2's request limit.
const defaultMaxRequest = 4 << 20

// orNever maps a flag's 0 ("never") to EndpointOptions' negative.
func orNever(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// mcpServe returns the per-connection function of the chosen source, the
// documents server (nil for a gateway) and the cleanup to run after every
// session has ended.
func (cfg *config) mcpServe(ctx context.Context, log *slog.Logger) (func(context.Context, *bridge.Conn, *docserver.Principal), *docserver.Server, func(), error) {
	switch {
	case cfg.stdio != "":
		argv, err := gateway.SplitCommand(cfg.stdio)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("-stdio: %w", err)
		}
		g := &gateway.Stdio{Argv: argv, ReadLimit: int64(cfg.readLimit), Grace: cfg.killGrace, Log: log, LogRate: cfg.childLogRate,
			StartTimeout: cfg.startTimeout}
		log.Info("mcphost: gateway to a stdio server", "argv", argv)
		return func(ctx context.Context, c *bridge.Conn, _ *docserver.Principal) { g.Serve(ctx, c) }, nil, func() {}, nil
	case cfg.upstream != "":
		h := http.Header{}
		for _, kv := range cfg.headers {
			k, v, err := parseHeader(kv)
			if err != nil {
				return nil, nil, nil, err
			}
			h.Add(k, v)
		}
		g := &gateway.HTTP{URL: cfg.upstream, Header: h, ReadLimit: int64(cfg.readLimit), MaxInFlight: cfg.maxUpstream,
			Transport: gateway.NewTransport(cfg.maxConns, cfg.maxUpstream), Retry: cfg.sseRetry, Log: log}
		log.Info("mcphost: gateway to a Streamable HTTP server", "url", cfg.upstream)
		return func(ctx context.Context, c *bridge.Conn, _ *docserver.Principal) { g.Serve(ctx, c) }, nil, func() {}, nil
	}
	var (
		fsys     fs.FS
		fixedMod time.Time
		watch    bool
	)
	if cfg.docsDir != "" {
		if fi, err := os.Stat(cfg.docsDir); err != nil || !fi.IsDir() {
			if err == nil {
				err = errors.New("not a directory")
			}
			return nil, nil, nil, fmt.Errorf("-docs %s: %w", cfg.docsDir, err)
		}
		watch = true
		log.Info("mcphost: documents server", "dir", cfg.docsDir)
	} else {
		fsys = sampledocs.FS
		if exe, err := os.Executable(); err == nil {
			if fi, err := os.Stat(exe); err == nil {
				fixedMod = fi.ModTime()
			}
		}
		log.Info("mcphost: documents server over the embedded sample documents")
	}
	var blind []string
	for n := range strings.SplitSeq(cfg.resourceBlind, ",") {
		if n = strings.TrimSpace(n); n != "" {
			blind = append(blind, n)
		}
	}
	store, err := figures.Open(cfg.figures, log)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("-figures: %w", err)
	}
	gate := docserver.Gate{Window: cfg.gateWindow, Reach: cfg.gateReach, Duplicates: cfg.gateDuplicates,
		MinSessions: int64(cfg.gateMinSess), Every: cfg.gateEvery}
	s, err := docserver.New(docserver.Config{FS: fsys, Dir: cfg.docsDir, ModTime: fixedMod, PageSize: cfg.pageSize, ResourceBlind: blind,
		Figures: store, Gate: gate, Version: version, Log: log})
	if err != nil {
		store.Close()
		return nil, nil, nil, err
	}
	log.Info("mcphost: documents indexed", "count", s.Len())
	if len(blind) > 0 {
		log.Info("mcphost: fetch_document forced by -resource-blind, whatever the figures", "names", blind)
	}
	wctx, cancel := context.WithCancel(ctx)
	if watch {
		go s.Watch(wctx, cfg.pollInterval)
	}
	gateDone := make(chan struct{})
	go func() { defer close(gateDone); s.RunGate(wctx) }()
	return s.Serve, s, func() { cancel(); <-gateDone; store.Close() }, nil
}
