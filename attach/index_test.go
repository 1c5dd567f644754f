package attach

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func f64(v float64) *float64 { return &v }

func names(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		if m.Resource != nil {
			out[i] = m.Resource.Name
		} else {
			out[i] = "T:" + m.Template.Name
		}
	}
	return out
}

func TestQueryRanking(t *testing.T) {
	x := NewIndex()
	x.AddResources(
		Resource{URI: "docs://guides/about-nb.md", Name: "about-nb"},
		Resource{URI: "docs://guides/team-onboarding.md", Name: "team-onboarding", Title: "Team onboarding guide"},
		Resource{URI: "docs://onboarding.md", Name: "onboarding", Title: "Onboarding", Description: "Start here", MIMEType: "text/markdown"},
		Resource{URI: "docs://misc/x.md", Name: "misc", Description: "mentions onboarding somewhere"},
		Resource{URI: "docs://other.md", Name: "other"},
	)
	got := names(x.Query("onb", QueryOptions{}))
	// about-nb is no match: its "o" is inside a word (issue 16 §2).
	want := []string{"onboarding", "team-onboarding", "misc"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Query(onb) = %q, want %q", got, want)
	}
	if got := names(x.Query("ONB", QueryOptions{Limit: 1})); !reflect.DeepEqual(got, []string{"onboarding"}) {
		t.Errorf("case-insensitive Query(ONB, limit 1) = %q", got)
	}
	if got := x.Query("zzz", QueryOptions{}); len(got) != 0 {
		t.Errorf("Query(zzz) = %q, want none", names(got))
	}
	// Empty query lists everything, priority then name.
	if got := x.Query("", QueryOptions{}); len(got) != 5 {
		t.Errorf("Query(\"\") returned %d, want 5", len(got))
	}
}

func TestQueryWordStartsAndCamelCase(t *testing.T) {
	x := NewIndex()
	x.AddResources(
		Resource{URI: "mem://1", Name: "xxrxxexxaxxd"},
		Resource{URI: "mem://2", Name: "readMe"},
		Resource{URI: "mem://3", Name: "release-admin-docs"},
	)
	got := names(x.Query("rad", QueryOptions{}))
	// xxrxxexxaxxd is no match: its "r" starts no word (issue 16 §2).
	if want := []string{"release-admin-docs", "readMe"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Query(rad) = %q, want %q: word starts should beat scattered letters", got, want)
	}
	got = names(x.Query("rm", QueryOptions{}))
	if got[0] != "readMe" {
		t.Errorf("Query(rm) = %q: camelCase hump should count as a word start", got)
	}
}

func TestQueryPriorityBreaksTies(t *testing.T) {
	x := NewIndex()
	x.AddResources(
		Resource{URI: "mem://low", Name: "report", Annotations: &Annotations{Priority: f64(0.1)}},
		Resource{URI: "mem://none", Name: "report"},
		Resource{URI: "mem://high", Name: "report", Annotations: &Annotations{Priority: f64(0.9)}},
		Resource{URI: "mem://zero", Name: "report", Annotations: &Annotations{Priority: f64(0)}},
	)
	var got []string
	for _, m := range x.Query("report", QueryOptions{}) {
		got = append(got, m.Resource.URI)
	}
	want := []string{"mem://high", "mem://none", "mem://low", "mem://zero"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
}

func TestQueryAudience(t *testing.T) {
	x := NewIndex()
	x.AddResources(
		Resource{URI: "mem://u", Name: "notes-user", Annotations: &Annotations{Audience: []string{"user"}}},
		Resource{URI: "mem://a", Name: "notes-assistant", Annotations: &Annotations{Audience: []string{"assistant"}}},
		Resource{URI: "mem://b", Name: "notes-both", Annotations: &Annotations{Audience: []string{"user", "assistant"}}},
		Resource{URI: "mem://n", Name: "notes-any"},
	)
	got := names(x.Query("notes", QueryOptions{Audience: "assistant"}))
	if len(got) != 3 || containsString(got, "notes-user") {
		t.Errorf("audience assistant = %q", got)
	}
	if got := x.Query("notes", QueryOptions{}); len(got) != 4 {
		t.Errorf("no audience filter returned %d, want 4", len(got))
	}
}

func TestQueryHighlightsUTF16(t *testing.T) {
	x := NewIndex()
	x.AddResources(
		Resource{URI: "mem://u/😀/notes", Name: "Ünïcödé 😀 notes", Description: "ÉTÉ 𝔘 notes"},
		Resource{URI: "docs://onboarding.md", Name: "onboarding"},
	)
	ms := x.Query("notes", QueryOptions{})
	if len(ms) != 1 {
		t.Fatalf("got %d matches", len(ms))
	}
	h := ms[0].Highlights
	// Ü n ï c ö d é ␠ 😀(2 units) ␠ n o t e s → "notes" at [11,16).
	if want := []Range{{11, 16}}; !reflect.DeepEqual(h.Name, want) {
		t.Errorf("name ranges = %v, want %v", h.Name, want)
	}
	// m e m : / / u / 😀(2) / n o t e s → [11,16).
	if want := []Range{{11, 16}}; !reflect.DeepEqual(h.URI, want) {
		t.Errorf("uri ranges = %v, want %v", h.URI, want)
	}
	// É T É ␠ 𝔘(2) ␠ n o t e s → [7,12).
	if want := []Range{{7, 12}}; !reflect.DeepEqual(h.Description, want) {
		t.Errorf("description ranges = %v, want %v", h.Description, want)
	}
	if h.Title != nil {
		t.Errorf("title ranges = %v, want none", h.Title)
	}
	// Non-ASCII query, folded: "ÜNÏ" finds "Ünï".
	ms = x.Query("ÜNÏ", QueryOptions{})
	if len(ms) != 1 || !reflect.DeepEqual(ms[0].Highlights.Name, []Range{{0, 3}}) {
		t.Errorf("Query(ÜNÏ) = %+v", ms)
	}
	// A subsequence: "onbrd" in "onboarding" is o-n-b, r-d.
	ms = x.Query("onbrd", QueryOptions{})
	if len(ms) != 1 || !reflect.DeepEqual(ms[0].Highlights.Name, []Range{{0, 3}, {5, 7}}) {
		t.Errorf("Query(onbrd) highlights = %+v", ms)
	}
}

func TestIndexTemplatesAndIncremental(t *testing.T) {
	x := NewIndex()
	x.AddResources(Resource{URI: "docs://a", Name: "alpha"}, Resource{URI: "docs://b", Name: "beta"})
	x.AddTemplates(ResourceTemplate{URITemplate: "docs://team/{team}/policy/{name}", Name: "team-policy"})
	if x.Len() != 3 {
		t.Fatalf("Len = %d", x.Len())
	}
	ms := x.Query("policy", QueryOptions{})
	if len(ms) != 1 || ms[0].Template == nil || ms[0].Resource != nil || ms[0].Highlights.URI == nil {
		t.Fatalf("template match = %+v", ms)
	}
	// Replace by URI: no duplicate, new name searchable, old not.
	x.AddResources(Resource{URI: "docs://a", Name: "apple"})
	if x.Len() != 3 || len(x.Query("alpha", QueryOptions{})) != 0 || len(x.Query("apple", QueryOptions{})) != 1 {
		t.Errorf("replace by URI failed: len %d", x.Len())
	}
	// Priority-only change is picked up without refolding.
	x.AddResources(Resource{URI: "docs://b", Name: "beta", Annotations: &Annotations{Priority: f64(1)}})
	if p := x.Query("beta", QueryOptions{})[0].Resource.Annotations; p == nil || *p.Priority != 1 {
		t.Errorf("updated descriptor not returned: %+v", p)
	}
	x.RemoveResources("docs://a", "docs://missing")
	x.RemoveTemplates("docs://team/{team}/policy/{name}")
	if x.Len() != 1 || len(x.Query("policy", QueryOptions{})) != 0 {
		t.Errorf("remove failed: len %d", x.Len())
	}
	// SetResources is a diff against the full list.
	x.AddTemplates(ResourceTemplate{URITemplate: "t://{x}", Name: "tmpl"})
	x.SetResources([]Resource{{URI: "docs://c", Name: "gamma"}, {URI: "docs://b", Name: "beta"}})
	if x.Len() != 3 || len(x.Query("gamma", QueryOptions{})) != 1 || len(x.Query("tmpl", QueryOptions{})) != 1 {
		t.Errorf("SetResources: len %d", x.Len())
	}
	x.SetTemplates(nil)
	if x.Len() != 2 {
		t.Errorf("SetTemplates(nil): len %d", x.Len())
	}
	// The caller's copy is its own.
	m := x.Query("gamma", QueryOptions{})[0]
	m.Resource.Name = "mutated"
	if x.Query("gamma", QueryOptions{})[0].Resource.Name != "gamma" {
		t.Error("a match aliases the index's descriptor")
	}
}

func TestIndexMinimalDescriptorsRank(t *testing.T) {
	x := NewIndex()
	x.AddResources(Resource{URI: "x://1"}, Resource{URI: "x://2", Name: "n"})
	if got := x.Query("x", QueryOptions{}); len(got) != 2 {
		t.Errorf("descriptors with only a URI: %d matches, want 2", len(got))
	}
}

func TestIndexConcurrent(t *testing.T) {
	x := NewIndex()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 200 {
				u := fmt.Sprintf("mem://%d/%d", w, i)
				x.AddResources(Resource{URI: u, Name: fmt.Sprintf("doc %d %d", w, i)})
				if i%3 == 0 {
					x.RemoveResources(u)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				for _, m := range x.Query("doc", QueryOptions{Limit: 5}) {
					if m.Resource == nil || m.Highlights.Name == nil {
						t.Error("inconsistent match under concurrency")
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if x.Len() != 4*(200-67) {
		t.Errorf("Len = %d, want %d", x.Len(), 4*(200-67))
	}
}

// TestHighlightsOnlyWhereTheyHelp: letters of the query scattered through a
// field that did not rank the match are not highlighted; the deciding field
// and one-piece occurrences are.
func TestHighlightsOnlyWhereTheyHelp(t *testing.T) {
	x := NewIndex()
	x.AddResources(Resource{URI: "docs://team/support/onboarding/support-handbook.md", Name: "support-handbook.md", Title: "Support handbook"})
	ms := x.Query("onb", QueryOptions{})
	if len(ms) != 1 {
		t.Fatalf("matches = %+v", ms)
	}
	h := ms[0].Highlights
	if h.Title != nil || h.Name != nil {
		t.Errorf("scattered title/name highlights = %v / %v, want none", h.Title, h.Name)
	}
	if !reflect.DeepEqual(h.URI, []Range{{20, 23}}) {
		t.Errorf("uri highlights = %v, want [[20 23]]", h.URI)
	}
}

// TestQueryBound: only the first MaxQueryRunes runes of a query that are
// not spaces count, however long the query (a pasted blob at the caret):
// the matches and highlights are those of the cut query, and a URI longer
// than the bound still finds its document.
func TestQueryBound(t *testing.T) {
	long := "docs://a/" + strings.Repeat("ab", MaxQueryRunes)
	x := NewIndex()
	x.AddResources(
		Resource{URI: long, Name: "long"},
		Resource{URI: "docs://a/short", Name: "short", Description: strings.Repeat("ab", 40)},
		Resource{URI: "docs://b/other", Name: "other"},
	)
	cut := string([]rune(strings.ReplaceAll(long, " ", ""))[:MaxQueryRunes])
	want := x.Query(cut, QueryOptions{})
	if len(want) == 0 || want[0].Resource.URI != long {
		t.Fatalf("the cut query does not find the long URI first: %q", names(want))
	}
	for _, q := range []string{
		long,                                   // longer than the bound
		long + strings.Repeat("z", 1<<20),      // then a megabyte that matches nothing
		strings.Repeat(" ", 1<<10) + long,      // spaces first, not counted
		cut + " " + strings.Repeat("é", 1<<16), // multi-byte runes past the bound
	} {
		got := x.Query(q, QueryOptions{})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("query of %d bytes: %q, want the cut query's %q", len(q), names(got), names(want))
		}
	}
	// At most 16 KiB of the query is read: one whose first 20 KiB are
	// spaces has no rune within it, and lists everything as an empty one.
	if got := x.Query(strings.Repeat(" ", 20<<10)+long, QueryOptions{}); len(got) != 3 {
		t.Errorf("a query of spaces past the scan bound: %d matches, want all 3 (an empty query)", len(got))
	}
}
