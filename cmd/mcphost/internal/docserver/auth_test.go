//go:build !js

package docserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/sampledocs"
)

func TestParseTokenFile(t *testing.T) {
	t.Parallel()
	ps, err := ParseTokenFile(strings.NewReader("# comment\n\nalpha platform,payments\nbeta payments,platform\ngamma *\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := ps.Authenticate("alpha")
	b, _ := ps.Authenticate("beta")
	if !ok || a != b || a != "teams:payments,platform" {
		t.Errorf("alpha/beta principals = %q, %q", a, b)
	}
	if p := ps.Lookup(a); !p.mayRead("payments") || p.mayRead("support") {
		t.Errorf("alpha scope wrong: %+v", p)
	}
	g, _ := ps.Authenticate("gamma")
	if p := ps.Lookup(g); !p.mayRead("anything") {
		t.Errorf("* must grant every team")
	}
	for _, tok := range []string{"", "alph", "alphaa", "ALPHA"} {
		if _, ok := ps.Authenticate(tok); ok {
			t.Errorf("token %q accepted", tok)
		}
	}
	for in, want := range map[string]string{
		"":                 "no tokens",
		"tok\n":            "line 1: no teams",
		"a b\na c\n":       "line 2: duplicate token",
		"a b c\n":          "3 fields",
		"bad/token team\n": "character '/'",
		"tok team\n x y z": "line 2",
	} {
		if _, err := ParseTokenFile(strings.NewReader(in), true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTokenFile(%q) = %v, want %q", in, err, want)
		}
	}
	if _, err := ParseTokenFile(strings.NewReader("gatewaytoken\n"), false); err != nil {
		t.Errorf("a gateway token file needs no teams: %v", err)
	}
}

// TestAuthorizationRandomized sends 1,000 randomized requests through every
// door (list, templates, completion, search, subscribe, read, fetch) as three
// principals, most of them aimed at existing documents of teams the
// principal may not read, and counts disclosures: a forbidden URI, name or
// team in any answer, a forbidden read, subscribe or fetch that succeeds or
// whose error is not byte-identical to the answer for a missing document.
func TestAuthorizationRandomized(t *testing.T) {
	t.Parallel()
	tokens := map[string][]string{
		"tok-platform":     {"platform"},
		"tok-payments":     {"payments"},
		"tok-support-plat": {"platform", "support"},
	}
	var lines []string
	for tok, teams := range tokens {
		lines = append(lines, tok+" "+strings.Join(teams, ","))
	}
	ps, err := ParseTokenFile(strings.NewReader(strings.Join(lines, "\n")+"\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.PageSize = 4
	host, _ := startDocs(t, cfg, "", ps)

	// Every existing document of the sample corpus, by team.
	type docRef struct{ uri, team, name, kind, title string }
	var all []docRef
	fs.WalkDir(sampledocs.FS, ".", func(p string, d fs.DirEntry, _ error) error {
		if parts := strings.Split(p, "/"); !d.IsDir() && len(parts) == 3 {
			data, _ := sampledocs.FS.ReadFile(p)
			title := ""
			if strings.HasSuffix(p, ".md") {
				title, _ = markdownSummary(data)
			}
			all = append(all, docRef{docURI(parts[0], parts[1], parts[2]), parts[0], parts[2], parts[1], title})
		}
		return nil
	})
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()

	const total = 1000
	var aimed, disclosures, allowedOK int
	disclose := func(format string, args ...any) {
		disclosures++
		if disclosures <= 20 {
			t.Errorf("DISCLOSURE: "+format, args...)
		}
	}
	toks := []string{"tok-platform", "tok-payments", "tok-support-plat"}
	sessions := map[string]*bridge.Session{}
	for _, tok := range toks {
		// The legacy revision: door 4 is resources/subscribe (the listen's
		// scoping is TestModernListenScoping's).
		sessions[tok] = mcptest.Dial(t, host, &bridge.Options{Token: tok, Protocol: bridge.ProtocolLegacy,
			ClientInfo: bridge.Implementation{Name: "resource-blind-demo", Version: "1"}})
	}
	for i := 0; i < total; i++ {
		tok := toks[r.IntN(len(toks))]
		s := sessions[tok]
		allowed := func(team string) bool { return slices.Contains(tokens[tok], team) }
		var forbidden, permitted []docRef
		for _, d := range all {
			if allowed(d.team) {
				permitted = append(permitted, d)
			} else {
				forbidden = append(forbidden, d)
			}
		}
		allowedNames := map[string]bool{}
		for _, d := range permitted {
			allowedNames[d.name] = true
		}
		// Most targets are existing documents of forbidden teams.
		door := r.IntN(7)
		var target docRef
		aim := r.IntN(10)
		switch {
		case aim < 8:
			target = forbidden[r.IntN(len(forbidden))]
			if door >= 2 { // the doors that take a target
				aimed++
			}
		case aim < 9:
			target = permitted[r.IntN(len(permitted))]
		default:
			d := all[r.IntN(len(all))]
			target = docRef{uri: docURI(d.team, d.kind, fmt.Sprintf("missing-%d.md", r.IntN(1000))), team: d.team, name: "missing"}
		}
		isForbidden := !allowed(target.team)
		exists := target.name != "missing"

		switch door {
		case 0: // list
			list, err := s.ListResources(ctx, nil)
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			for _, res := range list.Items {
				team, _, _, _ := parseDocURI(res.URI)
				if !allowed(team) {
					disclose("%s listed %s", tok, res.URI)
				}
			}
			if len(list.Items) != len(permitted) {
				t.Fatalf("%s listed %d documents, may read %d", tok, len(list.Items), len(permitted))
			}
		case 1: // templates
			tl, err := s.ListTemplates(ctx, nil)
			if err != nil || len(tl.Items) != 1 || tl.Items[0].URITemplate != policyTemplate {
				t.Fatalf("templates: %+v %v", tl, err)
			}
		case 2: // completion, for team and for names in the target's team
			c, err := s.Complete(ctx, policyTemplate, "team", target.team[:r.IntN(len(target.team))], nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range c.Values {
				if !allowed(v) {
					disclose("%s completed team %q", tok, v)
				}
			}
			c, err = s.Complete(ctx, policyTemplate, "name", "", map[string]string{"team": target.team})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range c.Values {
				if !allowedNames[v] {
					disclose("%s completed name %q in team %s", tok, v, target.team)
				}
			}
			if isForbidden && len(c.Values) != 0 {
				disclose("%s got %d names for forbidden team %s", tok, len(c.Values), target.team)
			}
		case 3: // search with words of the target's title or name
			q := target.title
			if q == "" {
				q = strings.TrimSuffix(target.name, filepath.Ext(target.name))
			}
			raw, err := s.CallTool(ctx, "search_documents", map[string]any{"query": q})
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Content []struct{ Type, URI string }
			}
			json.Unmarshal(raw, &res)
			for _, c := range res.Content {
				if c.Type == "resource_link" {
					if team, _, _, _ := parseDocURI(c.URI); !allowed(team) {
						disclose("%s found %s searching %q", tok, c.URI, q)
					}
				}
			}
		case 4, 5: // subscribe, read
			var err error
			if door == 4 {
				err = s.Subscribe(ctx, target.uri)
			} else {
				_, err = s.ReadResource(ctx, target.uri)
			}
			if isForbidden || !exists {
				e, ok := bridge.AsError(err)
				if !ok || e.Code != -32602 || e.Message != "Resource not found" || string(e.Data) != `{"uri":`+jsonString(target.uri)+`}` {
					disclose("%s door %d %s (exists %v): err %v data %s, not the missing-document answer", tok, door, target.uri, exists, err, dataOf(err))
				}
			} else if err != nil {
				t.Fatalf("%s door %d %s: %v", tok, door, target.uri, err)
			} else {
				allowedOK++
			}
		case 6: // fetch
			raw, err := s.CallTool(ctx, "fetch_document", map[string]any{"uri": target.uri})
			if err != nil {
				t.Fatal(err)
			}
			if isForbidden || !exists {
				want := `{"content":[{"type":"text","text":` + jsonString(fmt.Sprintf("no document at %q", target.uri)) + `}],"isError":true}`
				if string(raw) != want {
					disclose("%s fetch %s: %s, not the missing-document answer %s", tok, target.uri, raw, want)
				}
			} else if strings.Contains(string(raw), `"isError":true`) {
				t.Fatalf("%s fetch %s: %s", tok, target.uri, raw)
			} else {
				allowedOK++
			}
		}
	}
	t.Logf("%d requests, %d aimed at existing forbidden documents, %d permitted reads succeeded, %d disclosures", total, aimed, allowedOK, disclosures)
	if aimed < total/2 {
		t.Errorf("only %d of %d requests aimed at forbidden documents", aimed, total)
	}
	if allowedOK == 0 {
		t.Error("no permitted read succeeded: the test would pass vacuously")
	}
	if disclosures != 0 {
		t.Fatalf("%d disclosures", disclosures)
	}
}
