//go:build !js

package docserver

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/bridge"
)

// policyTemplate is the documents server's one resource template.
const policyTemplate = "docs://team/{team}/policy/{name}"

// maxCompletions is the most values completion/complete returns (the spec's cap).
const maxCompletions = 100

// maxSearchResults is the most resource links search_documents returns.
const maxSearchResults = 10

// Config configures a [Server].
type Config struct {
	// FS is the documents root, laid out as {team}/{kind}/{name} (the
	// embedded sample documents, a test's fs.FS). Ignored when Dir is set.
	FS fs.FS
	// Dir is a documents folder: it is listed through an os.Root and every
	// file is read following no symlink on its path and checked against
	// the index by device and inode (see readDocument).
	Dir string
	// ModTime stands in for a zero modification time (embed.FS has none).
	ModTime time.Time
	// PageSize is the resources/list page size.
	PageSize int
	// ResourceBlind lists the clientInfo.name values that always get the
	// fetch_document tool, whatever the figures say (a forced override,
	// reported as such).
	ResourceBlind []string
	// Figures, when set, receives the figures of every session, and the
	// gate decides fetch_document from them (see [Gate]); nil records
	// nothing and only ResourceBlind gets fetch_document.
	Figures FiguresStore
	// Gate holds the thresholds; used with Figures. Its fields must be
	// positive (Reach and Duplicates at most 1).
	Gate Gate
	// Version is reported as serverInfo.version.
	Version string
	// Log receives the server's logs, and go-sdk's from Warn up.
	Log *slog.Logger
}

// A Server builds one go-sdk server per connection, holding only what the
// connection's principal may see: listing, template completion, search,
// subscriptions and both reads are all scoped by construction. Its methods
// may be called concurrently.
type Server struct {
	corpus   *corpus
	resolver *resolver
	pageSize int
	blind    map[string]bool // clientInfo.name values that get fetch_document
	figures  FiguresStore    // nil: nothing recorded
	gate     *gate           // nil without figures
	version  string
	log      *slog.Logger
	sdkLog   *slog.Logger
}

// New indexes cfg.FS once and returns the server over it. It fails only
// when the root itself cannot be read; a file that cannot be served is
// logged once and skipped.
func New(cfg Config) (*Server, error) {
	fsys := cfg.FS
	var root *dirRoot
	if cfg.Dir != "" {
		r, err := os.OpenRoot(cfg.Dir)
		if err != nil {
			return nil, err
		}
		if root, err = openDirRoot(cfg.Dir); err != nil {
			r.Close()
			return nil, err
		}
		fsys = r.FS() // kept open for the server's life, as root is
	}
	c, err := newCorpusRoot(fsys, root, cfg.ModTime, cfg.Log)
	if err != nil {
		return nil, err
	}
	blind := map[string]bool{}
	for _, n := range cfg.ResourceBlind {
		blind[n] = true
	}
	s := &Server{corpus: c, resolver: &resolver{corpus: c, log: cfg.Log}, pageSize: cfg.PageSize, blind: blind,
		figures: cfg.Figures, version: cfg.Version, log: cfg.Log, sdkLog: quietLogger(cfg.Log)}
	if cfg.Figures != nil {
		g := cfg.Gate
		if g.Window <= 0 || g.Every <= 0 || g.MinSessions <= 0 || !(g.Reach > 0 && g.Reach <= 1) || !(g.Duplicates >= 0 && g.Duplicates <= 1) {
			return nil, fmt.Errorf("docserver: gate thresholds out of range: %+v", g)
		}
		s.gate = &gate{cfg: g, store: cfg.Figures}
		// Re-derived at start, before the first session: a restart keeps
		// the stored decisions and applies the thresholds given now.
		ctx := context.Background()
		if err := s.gate.load(ctx); err != nil {
			return nil, fmt.Errorf("figures: load decisions: %w", err)
		}
		if err := s.gate.evaluate(ctx, time.Now()); err != nil {
			return nil, fmt.Errorf("figures: evaluate the gate: %w", err)
		}
	}
	return s, nil
}

// RunGate re-derives the gate's decisions every Gate.Every until ctx ends
// (New derived them once already). A failed evaluation is logged and the
// decisions stand. Without Config.Figures it returns at once.
func (s *Server) RunGate(ctx context.Context) {
	if s.gate == nil {
		return
	}
	t := time.NewTicker(s.gate.cfg.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if err := s.gate.evaluate(ctx, now); err != nil && ctx.Err() == nil {
				s.log.Warn("docs: gate evaluation failed; decisions unchanged", "err", err)
			}
		}
	}
}

// Len returns the number of documents indexed now.
func (s *Server) Len() int { return len(s.corpus.current().list) }

// Watch rescans the root every interval until ctx ends, and tells the
// connected clients what changed (list_changed, resources/updated).
func (s *Server) Watch(ctx context.Context, interval time.Duration) { s.corpus.watch(ctx, interval) }

// Serve runs one connection for p until it ends. A nil p reads nothing.
func (s *Server) Serve(ctx context.Context, c *bridge.Conn, p *Principal) {
	srv, detach := s.newServer(p)
	defer detach()
	if err := serve(ctx, c, srv); err != nil {
		s.log.Warn("docs: session failed to start", "err", err)
	}
}

func resourceOf(d *doc) *mcp.Resource {
	return &mcp.Resource{
		URI: d.uri, Name: d.name, Title: d.title, Description: d.description,
		MIMEType: d.mimeType, Size: d.size,
		Annotations: &mcp.Annotations{LastModified: d.modTime.UTC().Format(time.RFC3339)},
	}
}

// visible reports whether uri is an indexed document p may read.
func (s *Server) visible(uri string, p *Principal) *doc {
	d := s.corpus.current().byURI[uri]
	if d == nil || !p.mayRead(d.team) {
		return nil
	}
	return d
}

// newServer returns the server of one connection and the function that
// detaches it from the corpus's change feed.
func (s *Server) newServer(p *Principal) (*mcp.Server, func()) {
	if p == nil {
		p = &Principal{name: "none"} // reads nothing
	}
	reads := make(chan struct{}, maxReadsPerConn)
	t := newTally(s.figures)
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		c, err := s.readLimited(ctx, reads, req.Params.URI, p)
		if err != nil {
			return nil, err
		}
		t.read(req.Params.URI)
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
	}
	var srv *mcp.Server
	ls := &listens{log: s.log}
	// The tools are decided once: at notifications/initialized from
	// initialize's clientInfo (legacy), or on the first 2026-07-28 request
	// from its _meta clientInfo (go-sdk never runs InitializedHandler for
	// those sessions); no clientInfo means "unknown", never gated. The
	// session's figures start then, under that client.
	var decideOnce sync.Once
	decide := func(method string, req mcp.Request) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return
		}
		ip := ss.InitializeParams()
		if ip == nil || (ip.ProtocolVersion < "2026-07-28" && method != "notifications/initialized") {
			return
		}
		decideOnce.Do(func() {
			var c Client
			if ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
				c = Client{Name: cut(ip.ClientInfo.Name, maxClientName), Version: cut(ip.ClientInfo.Version, maxClientVersion), Known: true}
			}
			// The gate's current decision, taken before this session counts:
			// a session's tools come from the sessions before it.
			fetch := c.Known && (s.blind[ip.ClientInfo.Name] || s.gate.fetch(c))
			t.begin(c)
			if fetch {
				s.addFetchTool(srv, p, reads, t)
				ls.listChanged("tools")
			}
		})
	}
	srv = mcp.NewServer(&mcp.Implementation{Name: "mcphost-docs", Title: "mcphost documents", Version: s.version}, &mcp.ServerOptions{
		Instructions: "Team documents (onboarding, runbooks, policies). Attach them as resources; " +
			"search_documents finds documents by keyword and returns links to read.",
		PageSize: s.pageSize,
		Logger:   s.sdkLog,
		Capabilities: &mcp.ServerCapabilities{
			Resources:   &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			if req.Params != nil && req.Params.Ref != nil && req.Params.Ref.Type == "ref/prompt" {
				return s.completePrompt(req.Params, p), nil
			}
			return s.complete(req.Params, p), nil
		},
		SubscribeHandler: func(ctx context.Context, req *mcp.SubscribeRequest) error {
			if ctx.Value(listenKey{}) != nil {
				return nil // a listen's URIs, already filtered (listens.receiving)
			}
			if s.visible(req.Params.URI, p) == nil {
				return mcp.ResourceNotFoundError(req.Params.URI)
			}
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		// Results that differ by principal (with a token file) or by client
		// (fetch_document for the resource-blind) may not be shared.
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			switch req.(type) {
			case *mcp.ListResourcesRequest, *mcp.ReadResourceRequest, *mcp.GetPromptRequest:
				if p != localPrincipal {
					c.CacheScope = "private"
				}
			case *mcp.ListToolsRequest:
				if len(s.blind) > 0 || s.gate != nil {
					c.CacheScope = "private"
				}
			}
		},
	})
	srv.AddReceivingMiddleware(ls.receiving(decide, func(uri string) bool { return s.visible(uri, p) != nil }))
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "resources/list" && err == nil {
				t.listed()
			}
			return res, err
		}
	})
	srv.AddSendingMiddleware(ls.sending())
	// Changes reach legacy sessions through go-sdk (resources/updated to
	// subscribers, a debounced list_changed) and open listens through ls.
	// Each connection takes its changes on its own goroutine (a mailbox):
	// the watcher never waits for one client to deliver to the others.
	mb := newMailbox(func(ch corpusChange) {
		listChanged := false
		updated := func(uri string) {
			srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
			ls.updated(uri)
		}
		for _, d := range ch.removed {
			if p.mayRead(d.team) {
				srv.RemoveResources(d.uri)
				// A deletion is a change too: subscribers re-read and
				// learn at once that the document is gone.
				updated(d.uri)
				listChanged = true
			}
		}
		for _, d := range ch.added {
			if p.mayRead(d.team) {
				srv.AddResource(resourceOf(d), read)
				listChanged = true
			}
		}
		for _, d := range ch.changed {
			if p.mayRead(d.team) {
				srv.AddResource(resourceOf(d), read) // new size and lastModified
				updated(d.uri)
			}
		}
		if listChanged {
			ls.listChanged("resources")
		}
	})
	snap, detachCorpus := s.corpus.attach(mb.post)
	detach := func() { detachCorpus(); mb.close() }
	for _, d := range snap.list {
		if p.mayRead(d.team) {
			srv.AddResource(resourceOf(d), read)
		}
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: policyTemplate,
		Name:        "team-policy",
		Title:       "Team policy",
		Description: "A policy document of a team; complete team, then name.",
		MIMEType:    "text/markdown",
	}, read)
	s.addPrompts(srv, p, reads)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "search_documents",
		Title: "Search documents",
		Description: "Search the team documents by keywords (title, description and text). " +
			"Returns links to the matching documents (at most 10); read a link to get its content.",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, any, error) {
		res := s.search(in.Query, p)
		var uris []string
		for _, c := range res.Content {
			if l, ok := c.(*mcp.ResourceLink); ok {
				uris = append(uris, l.URI)
			}
		}
		t.searched(uris)
		return res, nil, nil
	})
	return srv, detach
}

// maxReadsPerConn is how many documents one connection reads at once (its
// further reads wait; see also maxCallsPerConn).
const maxReadsPerConn = 2

// readLimited reads uri for p once one of the connection's read slots is
// free; a missing or forbidden document is go-sdk's not-found error, its
// URI cut to 1 KiB (no error echoes more of a client's input).
func (s *Server) readLimited(ctx context.Context, slots chan struct{}, uri string, p *Principal) (*mcp.ResourceContents, error) {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-slots }()
	c, err := s.resolver.readDocument(uri, p)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(echo(uri))
	}
	return c, nil
}

// echo cuts a client's string to at most maxEcho bytes for an error message.
func echo(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	i := maxEcho
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// maxEcho is the most bytes of a client's input an error repeats.
const maxEcho = 1000

type searchInput struct {
	Query string `json:"query" jsonschema:"keywords to look for, e.g. 'refund backlog'"`
}

type fetchInput struct {
	URI string `json:"uri" jsonschema:"the docs:// URI of the document"`
}

// addFetchTool registers fetch_document, for clients that cannot attach
// resources themselves (gated by the figures, or named in -resource-blind).
func (s *Server) addFetchTool(srv *mcp.Server, p *Principal, reads chan struct{}, t *tally) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "fetch_document",
		Title: "Fetch a document",
		Description: "Fetch the full content of one document by its docs:// URI (from search_documents). " +
			"Do not fetch a document that is already attached to the conversation: its content is already there.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in fetchInput) (*mcp.CallToolResult, any, error) {
		c, err := s.readLimited(ctx, reads, in.URI, p)
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		t.fetched(in.URI, err == nil)
		if err != nil {
			// The same answer for missing and forbidden documents.
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
				&mcp.TextContent{Text: fmt.Sprintf("no document at %q", echo(in.URI))},
			}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: c}}}, nil, nil
	})
}

// complete answers completion/complete for the policy template: teams the
// principal may read that have policies, and policy names of those teams.
func (s *Server) complete(params *mcp.CompleteParams, p *Principal) *mcp.CompleteResult {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if params == nil || params.Ref == nil || params.Ref.Type != "ref/resource" || params.Ref.URI != policyTemplate {
		return res
	}
	var wantTeam string
	if params.Context != nil {
		wantTeam = params.Context.Arguments["team"]
	}
	prefix := strings.ToLower(params.Argument.Value)
	var vals []string
	for _, d := range s.corpus.current().list {
		if d.kind != "policy" || !p.mayRead(d.team) {
			continue
		}
		var v string
		switch params.Argument.Name {
		case "team":
			v = d.team
		case "name":
			if wantTeam != "" && d.team != wantTeam {
				continue
			}
			v = d.name
		default:
			return res
		}
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			vals = append(vals, v)
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	res.Completion.Total = len(vals)
	if len(vals) > maxCompletions {
		vals, res.Completion.HasMore = vals[:maxCompletions], true
	}
	res.Completion.Values = vals
	return res
}

// search ranks the principal's documents by how many query words they
// contain (a title hit counts more) and returns resource links.
func (s *Server) search(query string, p *Principal) *mcp.CallToolResult {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "query is empty: give one or more keywords"}}}
	}
	type hit struct {
		d     *doc
		score int
	}
	var hits []hit
	for _, d := range s.corpus.current().list {
		if !p.mayRead(d.team) {
			continue
		}
		score := 0
		title := strings.ToLower(d.title + " " + d.name)
		for _, w := range words {
			if strings.Contains(d.search, w) {
				score++
				if strings.Contains(title, w) {
					score += 2
				}
			}
		}
		if score > 0 {
			hits = append(hits, hit{d, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	if len(hits) == 0 {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("No documents match %q.", echo(query))}}}
	}
	if len(hits) > maxSearchResults {
		hits = hits[:maxSearchResults]
	}
	out := &mcp.CallToolResult{}
	for _, h := range hits {
		size := h.d.size
		out.Content = append(out.Content, &mcp.ResourceLink{
			URI: h.d.uri, Name: h.d.name, Title: h.d.title, Description: h.d.description,
			MIMEType: h.d.mimeType, Size: &size,
		})
	}
	return out
}

// quietLogger drops go-sdk's per-request Info logs (one per subscribe and
// per notification) and keeps its warnings and errors.
func quietLogger(base *slog.Logger) *slog.Logger {
	return slog.New(levelFloor{base.Handler(), slog.LevelWarn})
}

type levelFloor struct {
	slog.Handler
	min slog.Level
}

func (h levelFloor) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}
func (h levelFloor) WithAttrs(a []slog.Attr) slog.Handler {
	return levelFloor{h.Handler.WithAttrs(a), h.min}
}
func (h levelFloor) WithGroup(n string) slog.Handler {
	return levelFloor{h.Handler.WithGroup(n), h.min}
}
