package attach

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updatePromptRanking = flag.Bool("update-prompt-ranking", false, "rewrite testdata/prompt-ranking.json's want from the index")

// promptRankingFile is shared with e2e/rank.test.mjs, which runs the same
// queries through web/mention/rank.js (the "/" list of <mcp-mention> ranks
// prompts in JavaScript) and must get the same order and highlights.
const promptRankingFile = "testdata/prompt-ranking.json"

type promptRankingCase struct {
	Prompts []struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
	} `json:"prompts"`
	Queries []string                        `json:"queries"`
	Want    map[string][]promptRankingMatch `json:"want"`
}

type promptRankingMatch struct {
	Name       string     `json:"name"`
	Highlights Highlights `json:"highlights"`
}

// TestPromptRankingGolden ranks prompt descriptors with the picker index
// (as resources whose URI no query can match: a run of U+2603, one more per
// entry, so the URI breaks ties in listing order as prompts do) and checks
// the result against testdata/prompt-ranking.json; -update-prompt-ranking
// rewrites it.
func TestPromptRankingGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.FromSlash(promptRankingFile))
	if err != nil {
		t.Fatal(err)
	}
	var c promptRankingCase
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Prompts) < 10 || len(c.Queries) < 10 {
		t.Fatalf("the table is too small: %d prompts, %d queries", len(c.Prompts), len(c.Queries))
	}
	x := NewIndex()
	for i, p := range c.Prompts {
		x.AddResources(Resource{URI: strings.Repeat("\u2603", i+1), Name: p.Name, Title: p.Title, Description: p.Description})
	}
	got := map[string][]promptRankingMatch{}
	for _, q := range c.Queries {
		ms := x.Query(q, QueryOptions{Limit: 50})
		out := []promptRankingMatch{}
		for _, m := range ms {
			if m.Highlights.URI != nil {
				t.Fatalf("query %q matched the placeholder URI of %q", q, m.Resource.Name)
			}
			out = append(out, promptRankingMatch{Name: m.Resource.Name, Highlights: m.Highlights})
		}
		got[q] = out
	}
	if *updatePromptRanking {
		c.Want = got
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.FromSlash(promptRankingFile), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, q := range c.Queries {
		g, _ := json.Marshal(got[q])
		w, _ := json.Marshal(c.Want[q])
		if !bytes.Equal(g, w) {
			t.Errorf("query %q:\n got %s\nwant %s\n(run with -update-prompt-ranking after a deliberate change, then e2e/rank.test.mjs)", q, g, w)
		}
	}
}
