//go:build !js

package docserver

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"html/template"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// Bounds of the figures page.
const (
	pageClients   = 200 // clients shown, most sessions first
	pageDecisions = 20  // decisions shown per client, the latest
	pagePoints    = 120 // chart points per client, the latest
)

// figuresCSP lets the figures page use its own inline style and nothing
// else: no script at all, no request to anywhere.
const figuresCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// The figures as /figures answers them in JSON.
type figuresReport struct {
	GeneratedAt   time.Time      `json:"generatedAt"`
	Persistent    bool           `json:"persistent"` // false: in memory, lost at restart
	Gate          Gate           `json:"gate"`
	Hysteresis    float64        `json:"hysteresis"`
	LastEvaluated time.Time      `json:"lastEvaluated"`
	LastError     string         `json:"lastError,omitempty"`
	Forced        []string       `json:"forced"` // -resource-blind names: fetch_document whatever the figures
	Dropped       int64          `json:"droppedEvents"`
	Assumption    assumption     `json:"assumption"`
	Clients       []clientReport `json:"clients"`
}

// assumption is the stated assumption behind list-without-read and its
// check in the data.
type assumption struct {
	Statement               string `json:"statement"`
	Holds                   bool   `json:"holds"`
	ReadingSessionsNoListed int64  `json:"readingSessionsThatNeverListed"`
}

type clientReport struct {
	Client              Client     `json:"client"`
	Figures             Figures    `json:"figures"`
	Reach               float64    `json:"reach"`
	ListWithoutReadRate float64    `json:"listWithoutReadRate"`
	DuplicateRate       float64    `json:"duplicateRate"`
	FetchDocument       bool       `json:"fetchDocument"`
	Decision            string     `json:"decision"` // "forced", "gated", "not gated", "undecided", "never (no clientInfo)"
	History             []Decision `json:"history"`
	Series              []Point    `json:"series"`
}

// report gathers the figures of the window ending now.
func (s *Server) report(r *http.Request) (*figuresReport, error) {
	ctx := r.Context()
	now := time.Now().UTC()
	g := s.gate.cfg
	since := now.Add(-g.Window)
	figs, err := s.figures.Figures(ctx, since)
	if err != nil {
		return nil, err
	}
	ds, err := s.figures.Decisions(ctx, pageDecisions)
	if err != nil {
		return nil, err
	}
	pts, err := s.figures.Series(ctx, since, pagePoints)
	if err != nil {
		return nil, err
	}
	evaluated, lastErr := s.gate.status()
	rep := &figuresReport{GeneratedAt: now, Persistent: s.figures.Persistent(), Gate: g, Hysteresis: Hysteresis,
		LastEvaluated: evaluated.UTC(), Dropped: s.figures.Dropped(), Forced: []string{}, Clients: []clientReport{},
		Assumption: assumption{Statement: "every reading session listed resources first " +
			"(so listing sessions = reading sessions + list-without-read sessions); a restored conversation re-reads without listing"}}
	if lastErr != nil {
		rep.LastError = lastErr.Error()
	}
	for n := range s.blind {
		rep.Forced = append(rep.Forced, n)
	}
	slices.Sort(rep.Forced)
	byClient := map[Client]int{}
	add := func(c Client) *clientReport {
		i, ok := byClient[c]
		if !ok {
			i = len(rep.Clients)
			byClient[c] = i
			rep.Clients = append(rep.Clients, clientReport{Client: c, Figures: Figures{Client: c}, History: []Decision{}, Series: []Point{}})
		}
		return &rep.Clients[i]
	}
	for _, f := range figs {
		c := add(f.Client)
		c.Figures = f
		rep.Assumption.ReadingSessionsNoListed += f.ReadWithoutList
	}
	rep.Assumption.Holds = rep.Assumption.ReadingSessionsNoListed == 0
	for _, d := range ds {
		c := add(d.Client)
		c.History = append(c.History, d)
	}
	for _, p := range pts {
		if _, ok := byClient[p.Client]; ok {
			c := add(p.Client)
			c.Series = append(c.Series, p)
		}
	}
	for i := range rep.Clients {
		c := &rep.Clients[i]
		f := c.Figures
		c.Reach, c.ListWithoutReadRate, c.DuplicateRate = f.Reach(), f.ListWithoutReadRate(), f.DuplicateRate()
		switch {
		case !c.Client.Known:
			c.Decision = "never (no clientInfo)"
		case s.blind[c.Client.Name]:
			c.Decision, c.FetchDocument = "forced", true
		case s.gate.fetch(c.Client):
			c.Decision, c.FetchDocument = "gated", true
		case len(c.History) == 0:
			c.Decision = "undecided"
		default:
			c.Decision = "not gated"
		}
	}
	slices.SortStableFunc(rep.Clients, func(a, b clientReport) int {
		switch {
		case a.Figures.Sessions != b.Figures.Sessions:
			return int(b.Figures.Sessions - a.Figures.Sessions)
		case a.Client.Name != b.Client.Name:
			return strings.Compare(a.Client.Name, b.Client.Name)
		}
		return strings.Compare(a.Client.Version, b.Client.Version)
	})
	if len(rep.Clients) > pageClients {
		rep.Clients = rep.Clients[:pageClients]
	}
	return rep, nil
}

// FiguresHandler serves /figures: the figures, the gate's thresholds and
// each client's decisions, as JSON for Accept: application/json, else as
// an HTML page (no script, no external resource; every client string
// escaped). With token "", only loopback peers that used a loopback Host
// name are served (a DNS-rebinding page reaches loopback under its own
// name); otherwise every request needs Authorization: Bearer token.
// Without Config.Figures it answers 404.
func (s *Server) FiguresHandler(token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) != 1 {
				h.Set("WWW-Authenticate", `Bearer realm="mcphost figures"`)
				http.Error(w, "the figures need Authorization: Bearer <the token in -figures-token>", http.StatusUnauthorized)
				return
			}
		} else if !loopbackPeer(r) {
			http.Error(w, "the figures are served to loopback peers only (with a loopback Host); "+
				"start mcphost with -figures-token FILE to serve them to others with a token", http.StatusForbidden)
			return
		}
		if s.gate == nil {
			http.NotFound(w, r)
			return
		}
		rep, err := s.report(r)
		if err != nil {
			s.log.Warn("docs: figures report failed", "err", err)
			http.Error(w, "the figures could not be read: "+err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("Vary", "Accept")
		if wantsJSON(r) {
			h.Set("Content-Type", "application/json")
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.Encode(rep)
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", figuresCSP)
		h.Set("X-Frame-Options", "DENY")
		if err := figuresPage.Execute(w, rep); err != nil {
			s.log.Warn("docs: figures page failed", "err", err)
		}
	})
}

func loopbackPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() && bridge.HostIsLoopback(r.Host)
}

// wantsJSON reports whether Accept lists application/json.
func wantsJSON(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "application/json" {
			return true
		}
	}
	return false
}

// chart is a client's reach over time as SVG coordinates (numbers only:
// the template escapes everything else).
type chart struct {
	W, H       int
	Points     string // polyline points
	Threshold  float64
	Last       Point
	Single     bool // one point: a dot
	X, Y       float64
	First, End string
}

func chartOf(c clientReport, g Gate) *chart {
	if len(c.Series) == 0 {
		return nil
	}
	ch := &chart{W: 240, H: 60}
	y := func(r float64) float64 { return float64(ch.H-4) - r*float64(ch.H-8) }
	ch.Threshold = y(g.Reach)
	first, last := c.Series[0].At, c.Series[len(c.Series)-1].At
	span := last.Sub(first)
	var b strings.Builder
	for i, p := range c.Series {
		x := 4.0
		if span > 0 {
			x += float64(ch.W-8) * float64(p.At.Sub(first)) / float64(span)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x, y(p.Reach))
		ch.X, ch.Y = x, y(p.Reach)
	}
	ch.Points, ch.Last, ch.Single = b.String(), c.Series[len(c.Series)-1], len(c.Series) == 1
	layout := "2006-01-02 15:04"
	if span < 24*time.Hour {
		layout = "2006-01-02 15:04:05"
	}
	ch.First, ch.End = first.UTC().Format(layout), last.UTC().Format(layout+" UTC")
	return ch
}

var figuresPage = template.Must(template.New("figures").Funcs(template.FuncMap{
	"pct":   func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"num":   func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"when":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"chart": chartOf,
	"plus":  func(a, b float64) string { return fmt.Sprintf("%.2f", a+b) },
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcphost documents server: figures and the fetch_document gate</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; color: #1b1f24; background: #fff; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-top: 1px solid #d0d7de; padding-top: 1rem; }
h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
table { border-collapse: collapse; margin: .3rem 0 .8rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .55rem; text-align: left; vertical-align: top; }
th { background: #f3f5f7; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.on { color: #0a6e31; font-weight: 600; } .off { color: #5a3e00; } .forced { color: #8a1c7c; font-weight: 600; }
.warn { background: #fff4ce; border: 1px solid #c99a00; padding: .4rem .6rem; }
.note { color: #444c56; }
code { background: #f3f5f7; padding: 0 .2rem; }
svg { background: #f8fafc; border: 1px solid #d0d7de; }
</style>
</head>
<body>
<main>
<h1>Documents server: figures and the <code>fetch_document</code> gate</h1>
<p>Generated {{when .GeneratedAt}}. Window: the sessions started in the last <strong>{{.Gate.Window}}</strong>.
Last evaluation: {{if .LastEvaluated.IsZero}}none{{else}}{{when .LastEvaluated}}{{end}}; the gate is re-derived every {{.Gate.Every}}
and a client's tools change only when a session starts.</p>
{{if not .Persistent}}<p class="warn">The figures are in memory (no <code>-figures FILE</code>): they and the decisions will not survive a restart.</p>{{end}}
{{with .LastError}}<p class="warn">The last evaluation failed, the decisions stand: {{.}}</p>{{end}}
{{if .Dropped}}<p class="warn">{{.Dropped}} events were lost (the write queue was full, or a write failed: see the log).</p>{{end}}

<h2>Rules</h2>
<ul>
<li>Read reach = sessions that read at least one resource ÷ sessions. List-without-read = sessions that listed resources and never read one ÷ sessions.
Duplicate rate = duplicate deliveries (a <code>fetch_document</code> of a URI the session already read or fetched) ÷ <code>fetch_document</code> calls.</li>
<li>A client with at least <strong>{{.Gate.MinSessions}}</strong> sessions in the window gets <code>fetch_document</code> when its read reach is below
<strong>{{num .Gate.Reach}}</strong>, and loses it when its duplicate rate exceeds <strong>{{num .Gate.Duplicates}}</strong> (that rule wins)
or its reach rises above <strong>{{plus .Gate.Reach .Hysteresis}}</strong> ({{num .Gate.Reach}} + {{num .Hysteresis}} hysteresis). Fewer sessions: no change.</li>
<li>Clients without clientInfo are “unknown” and never gated.
{{if .Forced}}Forced by <code>-resource-blind</code> (always <code>fetch_document</code>, whatever the figures):{{range .Forced}} <code>{{.}}</code>{{end}}.{{else}}No client is forced by <code>-resource-blind</code>.{{end}}</li>
<li>Assumption: {{.Assumption.Statement}}.
{{if .Assumption.Holds}}It holds in these figures: every reading session listed.{{else}}<span class="warn">It does not hold: {{.Assumption.ReadingSessionsNoListed}} reading sessions never listed.</span>{{end}}</li>
</ul>

<h2>Clients</h2>
{{if not .Clients}}<p>No sessions in the window yet.</p>{{end}}
{{range .Clients}}{{$c := .}}
<section aria-label="{{.Client.Label}}">
<h3>{{.Client.Label}}: {{if eq .Decision "forced"}}<span class="forced">fetch_document (forced by -resource-blind)</span>{{else if .FetchDocument}}<span class="on">fetch_document (gated)</span>{{else}}<span class="off">{{.Decision}}</span>{{end}}</h3>
<table>
<caption class="note">Figures of {{.Client.Label}} over the window</caption>
<thead><tr><th scope="col">sessions</th><th scope="col">read reach</th><th scope="col">list-without-read</th><th scope="col">fetch_document calls</th><th scope="col">duplicates</th><th scope="col">searches</th><th scope="col">links followed</th><th scope="col">read without list</th></tr></thead>
<tbody><tr><td class="n">{{.Figures.Sessions}}</td><td class="n">{{pct .Reach}} ({{.Figures.Reading}})</td><td class="n">{{pct .ListWithoutReadRate}} ({{.Figures.ListWithoutRead}})</td>
<td class="n">{{.Figures.Fetches}}</td><td class="n">{{pct .DuplicateRate}} ({{.Figures.Duplicates}})</td><td class="n">{{.Figures.Searches}}</td><td class="n">{{.Figures.LinksFollowed}}</td><td class="n">{{.Figures.ReadWithoutList}}</td></tr></tbody>
</table>
{{with chart . $.Gate}}<svg width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="Read reach of {{$c.Client.Label}} over time, from {{.First}} to {{.End}}; latest {{pct .Last.Reach}}">
<line x1="0" x2="{{.W}}" y1="{{.Threshold}}" y2="{{.Threshold}}" stroke="#c99a00" stroke-dasharray="4 3"/>
{{if .Single}}<circle cx="{{.X}}" cy="{{.Y}}" r="3" fill="#0b5cad"/>{{else}}<polyline points="{{.Points}}" fill="none" stroke="#0b5cad" stroke-width="2"/>{{end}}
</svg>
<p class="note">Read reach at each evaluation, {{.First}} to {{.End}} (dashed: the threshold).</p>{{end}}
{{if .History}}<table>
<caption class="note">Decisions for {{.Client.Label}}, oldest first</caption>
<thead><tr><th scope="col">time</th><th scope="col">fetch_document</th><th scope="col">why</th><th scope="col">thresholds then</th></tr></thead>
<tbody>{{range .History}}<tr><td>{{when .At}}</td><td>{{if .Fetch}}<span class="on">given</span>{{else}}<span class="off">not given</span>{{end}}</td><td>{{.Reason}}</td>
<td>reach {{num .Gate.Reach}}, duplicates {{num .Gate.Duplicates}}, min {{.Gate.MinSessions}} sessions, window {{.Gate.Window}}</td></tr>{{end}}</tbody>
</table>{{else if not .Client.Known}}<p class="note">Never gated: the sessions gave no clientInfo.</p>{{else}}<p class="note">No decision stored for this client yet (fewer than {{$.Gate.MinSessions}} sessions in the window).</p>{{end}}
{{if eq .Decision "forced"}}<p class="note">Forced by <code>-resource-blind</code>: its figures are recorded and the gate's decisions stored, but it gets <code>fetch_document</code> whatever they say.</p>{{end}}
</section>
{{end}}
</main>
</body>
</html>
`))
