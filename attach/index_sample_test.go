package attach

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"
)

// sampleIndex indexes the documents server's default listing
// (testdata/sampledocs-list.json, generated from the sample documents by
// cmd/mcphost/internal/docserver TestSampleListFixture), resources first.
func sampleIndex(t *testing.T) *Index {
	t.Helper()
	data, err := os.ReadFile("testdata/sampledocs-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Resources []Resource         `json:"resources"`
		Templates []ResourceTemplate `json:"templates"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Resources) < 20 || len(l.Templates) != 1 {
		t.Fatalf("fixture has %d resources and %d templates", len(l.Resources), len(l.Templates))
	}
	x := NewIndex()
	x.AddResources(l.Resources...)
	x.AddTemplates(l.Templates...)
	return x
}

// TestQuerySampleDocs: what a person typing @query over the sample
// documents gets (issue 16 §2). want is the leading results in order; with
// exact, the whole list; never lists names that must not appear.
func TestQuerySampleDocs(t *testing.T) {
	t.Parallel()
	x := sampleIndex(t)
	cases := []struct {
		name, q string
		want    []string
		exact   bool
		never   []string
	}{
		{name: "onb: the four onboarding documents, their URI segment, in listing order", q: "onb",
			want:  []string{"first-week.md", "dev-environment.md", "welcome.md", "support-handbook.md"},
			exact: true, never: []string{"deploy-rollback.md", "incident-comms.md"}},
		{name: "ONB folds case", q: "ONB",
			want: []string{"first-week.md", "dev-environment.md", "welcome.md", "support-handbook.md"}, exact: true},
		{name: "wel: the title prefix first", q: "wel", want: []string{"welcome.md"}, exact: true},
		{name: "pol: titles with a word starting pol, then policy/ URIs in listing order", q: "pol",
			want: []string{"change-management.md", "escalation.md", "T:team-policy",
				"data-retention.md", "pci-dss-scope.md", "access-control.md", "customer-data-handling.md"}, exact: true},
		{name: "team: the template's title prefix, a title word, then URIs", q: "team",
			want: []string{"T:team-policy", "welcome.md", "ledger-reconciliation.jpg", "ledger.md"}},
		{name: "deploy: the name prefix, then a description word", q: "deploy",
			want: []string{"deploy-rollback.md", "welcome.md"}},
		{name: "tpol: word-start pieces in seven URIs drop the scattered matches", q: "tpol",
			want: []string{"T:team-policy", "data-retention.md", "pci-dss-scope.md", "access-control.md",
				"change-management.md", "customer-data-handling.md", "escalation.md"}, exact: true},
		{name: "rb: initials of two titles", q: "rb", want: []string{"refund-backlog.md", "deploy-rollback.md"}},
		{name: "mgmt: letters inside one word", q: "mgmt", want: []string{"change-management.md"}, exact: true},
		{name: "led: two name prefixes, then a description word", q: "led",
			want: []string{"ledger-reconciliation.jpg", "ledger.md", "first-week.md"}, exact: true},
		{name: "sup: a description prefix outranks a URI segment", q: "sup",
			want:  []string{"support-handbook.md", "customer-data-handling.md", "incident-comms.md", "queue-dashboard.png"},
			never: []string{"first-week.md"}},
		{name: "platform onboarding: spaces ignored, URI word starts", q: "platform onboarding",
			want: []string{"dev-environment.md", "welcome.md"}, exact: true},
		{name: "png: a description prefix, then a name's extension", q: "png",
			want: []string{"system-overview.png", "queue-dashboard.png", "overview.md"}},
		{name: "handb: a word start in title and name", q: "handb", want: []string{"support-handbook.md"}, exact: true},
		{name: "elc: inside a word, before scattered letters", q: "elc", want: []string{"welcome.md", "escalation.md"}},
		{name: "fw: initials of a name", q: "fw", want: []string{"first-week.md"}, exact: true},
		{name: "dbf: scattered, kept when fewer than five better matches", q: "dbf",
			want: []string{"database-failover.md"}},
		{name: "o: one letter, the name prefix first", q: "o", want: []string{"overview.md"}},
		{name: "xyz: nothing", q: "xyz", exact: true},
		{name: "empty: by priority, then title alphabetically", q: "",
			want: []string{"change-management.md", "incident-comms.md", "customer-data-handling.md", "database-failover.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := names(x.Query(tc.q, QueryOptions{Limit: 100}))
			if tc.exact {
				if !slices.Equal(got, tc.want) {
					t.Errorf("Query(%q) = %q, want %q", tc.q, got, tc.want)
				}
			} else if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) {
				t.Errorf("Query(%q) = %q, want it to start with %q", tc.q, got, tc.want)
			}
			for _, n := range tc.never {
				if slices.Contains(got, n) {
					t.Errorf("Query(%q) = %q: has %s", tc.q, got, n)
				}
			}
		})
	}
	// The empty query lists everything; its last entry is the last title.
	if all := names(x.Query("", QueryOptions{Limit: 100})); len(all) != 24 || all[len(all)-1] != "first-week.md" {
		t.Errorf(`Query("") = %q`, all)
	}
	// Welcome's match is its URI segment, highlighted there only.
	for _, m := range x.Query("onb", QueryOptions{}) {
		if m.Resource.Name == "welcome.md" {
			h := m.Highlights
			if !reflect.DeepEqual(h.URI, []Range{{21, 24}}) || h.Title != nil || h.Name != nil || h.Description != nil {
				t.Errorf("welcome.md highlights = %+v, want uri [[21 24]] only", h)
			}
		}
	}
}

// TestQueryScatteredDropped: scattered matches stay while fewer than five
// better ones exist, and go at five.
func TestQueryScatteredDropped(t *testing.T) {
	t.Parallel()
	x := NewIndex()
	x.AddResources(Resource{URI: "mem://s", Name: "gusta"}) // g…t…a scattered from a word start
	for i, n := range []string{"gta-one", "gta-two", "gta-three", "gta-four"} {
		x.AddResources(Resource{URI: "mem://" + string(rune('a'+i)), Name: n})
	}
	if got := names(x.Query("gta", QueryOptions{})); len(got) != 5 || got[4] != "gusta" {
		t.Errorf("four strong matches: %q, want the scattered one last", got)
	}
	x.AddResources(Resource{URI: "mem://e", Name: "gta-five"})
	if got := names(x.Query("gta", QueryOptions{})); len(got) != 5 || slices.Contains(got, "gusta") {
		t.Errorf("five strong matches: %q, want the scattered one dropped", got)
	}
}

// TestQueryEmptyAlphabetical: the empty query is priority, then name
// alphabetically (not shortest first).
func TestQueryEmptyAlphabetical(t *testing.T) {
	t.Parallel()
	x := NewIndex()
	x.AddResources(Resource{URI: "m://3", Name: "zeta"}, Resource{URI: "m://1", Name: "alphabet soup"},
		Resource{URI: "m://2", Name: "beta", Annotations: &Annotations{Priority: f64(0.9)}}, Resource{URI: "m://4", Name: "Al"})
	if got, want := names(x.Query("", QueryOptions{})), []string{"beta", "Al", "alphabet soup", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Errorf(`Query("") = %q, want %q`, got, want)
	}
}
