package attach

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// queryAll is Query without its shortcuts: every descriptor ranked with no
// threshold, all sorted, scattered ones dropped by the same rule, the first
// limit kept. The pruned scan must return exactly this.
func (x *Index) queryAll(q string, limit int) []Match {
	qq := newQuery(q)
	buf := make([]int, len(qq.runes))
	var all []candidate
	strong := 0
	for i := range x.entries {
		s, _, ok := x.best(i, &qq, buf, 0)
		if !ok {
			continue
		}
		if s >= rank(tierInside, fURI) {
			strong++
		}
		all = append(all, candidate{idx: i, score: s})
	}
	slices.SortFunc(all, func(a, b candidate) int {
		if x.better(a, b, false) {
			return -1
		}
		return 1
	})
	var out []Match
	for _, c := range all[:min(limit, len(all))] {
		if strong >= strongMatches && c.score < rank(tierInside, fURI) {
			continue
		}
		out = append(out, x.matchOf(c, &qq, buf))
	}
	return out
}

// peerIndex is bench/peer's descriptor set (the browser bench's): long
// descriptions, few distinct words, no priorities.
func peerIndex(n int, seed uint64) (*Index, []Resource) {
	teams := []string{"payments", "platform", "support", "identity", "growth", "data", "security", "infra"}
	kinds := []string{"runbook", "policy", "onboarding", "design", "postmortem", "reference", "faq"}
	words := []string{"deploy", "rollback", "incident", "kubernetes", "database", "latency", "budget", "review",
		"access", "token", "refund", "invoice", "retry", "cache", "search", "oncall", "escalation", "privacy",
		"retention", "restore", "release", "api", "gateway", "ledger", "payout", "über", "café", "résumé", "straße"}
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	rs := make([]Resource, n)
	for i := range rs {
		team, kind := pick(teams), pick(kinds)
		slug := make([]string, 1+r.IntN(3))
		for j := range slug {
			slug[j] = pick(words)
		}
		desc := make([]string, 4+r.IntN(8))
		for j := range desc {
			desc[j] = pick(words)
		}
		name := strings.Join(slug, "-") + "-" + strconv.Itoa(i) + ".md"
		rs[i] = Resource{URI: "docs://team/" + team + "/" + kind + "/" + name, Name: name,
			Title:       strings.ToUpper(slug[0][:1]) + slug[0][1:] + " " + strings.Join(slug[1:], " ") + " (" + kind + ")",
			Description: "The " + team + " team's " + kind + " on " + strings.Join(desc, " ") + "."}
		if r.IntN(4) == 0 {
			p := float64(r.IntN(5)) / 4
			rs[i].Annotations = &Annotations{Priority: &p}
		}
	}
	x := NewIndex()
	x.AddResources(rs...)
	return x, rs
}

// TestQueryPruning: the scan's thresholds and early stop change nothing —
// over bench-shaped and picker-shaped indexes, with and without
// priorities, before and after removals reorder the entries, for the
// bench's queries, every prefix of them (as typed) and random letters.
func TestQueryPruning(t *testing.T) {
	nativeOnly(t)
	r := rand.New(rand.NewPCG(7, 7))
	queries := slices.Clone(mentionQueries)
	for _, q := range mentionQueries {
		for i := 1; i < len(q); i++ {
			queries = append(queries, q[:i])
		}
	}
	for range 40 {
		b := make([]byte, 1+r.IntN(4))
		for i := range b {
			b[i] = "abcdeilmnoprstuy-/ "[r.IntN(19)]
		}
		queries = append(queries, string(b))
	}
	// Typed in order, so that each query narrows from the one before
	// (Query's narrowing), with words that share prefixes and restarts.
	var typed []string
	for _, q := range append(slices.Clone(mentionQueries), "data retention policy", "data ret", "dat", "r", "re", "ret") {
		for i := 1; i <= len(q); i++ {
			typed = append(typed, q[:i])
		}
	}
	queries = append(queries, typed...)
	x1, rs := peerIndex(3000, 1)
	x2 := pickerIndex(2000)
	x3 := benchPeerIndex(3000)
	for _, tc := range []struct {
		name string
		x    *Index
		edit func()
	}{
		{"bench-shaped", x1, nil},
		{"picker-shaped", x2, nil},
		{"bench peer's descriptors", x3, nil},
		{"after removals", x1, func() {
			for i := 0; i < len(rs); i += 7 {
				x1.RemoveResources(rs[i].URI)
			}
			x1.AddResources(rs[0], rs[7]) // re-added: new seq, moved
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.edit != nil {
				tc.edit()
			}
			for _, limit := range []int{1, 5, 20} {
				for j, q := range queries {
					if tc.edit != nil {
						// Changes between keystrokes: the narrowing must not
						// survive them, and the signatures must follow the
						// entries (updated in place, moved by a removal,
						// appended).
						r := rs[(j*7)%len(rs)]
						switch j % 50 {
						case 25: // an update: new title, same place
							r.Title = "data retention " + q
							tc.x.AddResources(r)
						case 40: // a removal moves the last entry into its place
							tc.x.RemoveResources(r.URI)
						case 45: // an addition, at the end
							r.URI += "/again"
							r.Name = "Retention " + q + " " + r.Name
							tc.x.AddResources(r)
						}
					}
					got, want := tc.x.Query(q, QueryOptions{Limit: limit}), tc.x.queryAll(q, limit)
					if len(got) == 0 && len(want) == 0 {
						continue
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("query %q limit %d:\n got %s\nwant %s", q, limit, uris(got), uris(want))
					}
				}
			}
		})
	}
}

// TestQueryPruningStrong: over 20,000 of bench/peer's descriptors (enough
// that multi-word queries stop recording full narrowings and record strong
// ones), typed queries answer as queryAll, whether a strong narrowing
// serves them (strong answers) or they must rank everything (scattered
// ones kept), with descriptors updated, removed and added between keys.
func TestQueryPruningStrong(t *testing.T) {
	nativeOnly(t)
	x := benchPeerIndex(20_000)
	typed := benchTyped()
	for _, q := range []string{"data retention policy", "sec audit", "deploy rollback"} {
		for i := 1; i <= len(q); i++ {
			typed = append(typed, q[:i])
		}
	}
	served, ranked := 0, 0
	for _, limit := range []int{20, 5} {
		for j, q := range typed {
			if j%60 == 59 { // a change between keys: no narrowing survives it
				r := x.entries[(j*131)%len(x.entries)].res
				r.Title = "data retention " + q
				x.AddResources(r)
			}
			if j%90 == 89 {
				x.RemoveResources(x.entries[(j*17)%len(x.entries)].key.id)
			}
			want := x.queryAll(q, limit)
			if n := x.last.Load(); n != nil && n.strong && n.gen == x.gen && strings.HasPrefix(newQuery(q).str, n.str) {
				if slices.ContainsFunc(want, func(m Match) bool { return m.Score < rank(tierInside, fURI) }) {
					ranked++
				} else {
					served++
				}
			}
			got := x.Query(q, QueryOptions{Limit: limit})
			if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
				t.Fatalf("query %q limit %d:\n got %s\nwant %s", q, limit, uris(got), uris(want))
			}
		}
	}
	if served == 0 || ranked == 0 {
		t.Fatalf("strong narrowings served %d queries and left %d to rank everything; want both", served, ranked)
	}
	t.Logf("strong narrowings: %d queries served, %d ranked everything", served, ranked)
}

func uris(ms []Match) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s(%d) ", m.Resource.URI, m.Score)
	}
	return b.String()
}

// soundQueries are queries for the signature checks: the bench's typed
// prefixes, word-start pieces, separators, non-ASCII and random letters.
func soundQueries() []string {
	qs := benchTyped()
	qs = append(qs, "team/", "/su", "a-b", "md", ".md", "über", "straße", "résumé rev", "ÜBER", "t", "x", "ß",
		"retryi", "refundinvoice", "rollbackapi", "dbr", "rad", "payouts", "ledgerpayout1")
	r := rand.New(rand.NewPCG(3, 3))
	for range 200 {
		b := make([]byte, 1+r.IntN(7))
		for i := range b {
			b[i] = "abcdeilmnoprstuy-/. 0123"[r.IntN(24)]
		}
		qs = append(qs, string(b))
	}
	return qs
}

// TestSignatureSound: an entry's signature never rules out the rank its
// fields reach for a query (reaches(q, score) holds for every match), and
// when it rules out every match (reaches(q, 1) false), no query extending
// q matches the entry either: what the scan and the narrowing rest on.
func TestSignatureSound(t *testing.T) {
	nativeOnly(t)
	x1, _ := peerIndex(1500, 9)
	for _, x := range []*Index{x1, pickerIndex(1500), benchPeerIndex(1500), sampleIndex(t)} {
		qs := soundQueries()
		for _, q := range qs {
			qq := newQuery(q)
			if len(qq.runes) == 0 {
				continue
			}
			buf := make([]int, len(qq.runes))
			for i := range x.entries {
				s, _, ok := x.best(i, &qq, buf, 0)
				if ok && !x.sigs[i].reaches(&qq, s) {
					t.Fatalf("query %q: entry %q scores %d but its signature rules it out", q, x.entries[i].key.id, s)
				}
				if !x.sigs[i].reaches(&qq, 1) {
					for _, ext := range []string{"a", "e", "s", "-", "/", "1", "ü"} {
						eq := newQuery(q + ext)
						if _, _, ok := x.best(i, &eq, make([]int, len(eq.runes)), 0); ok {
							t.Fatalf("query %q rules out entry %q, which matches %q", q, x.entries[i].key.id, q+ext)
						}
					}
				}
				if err := strongSound(x, i, q, ok && s >= rank(tierInside, fURI), []string{"e", "-", "ü", " p"}); err != "" {
					t.Fatal(err)
				}
			}
		}
	}
}

// strongSound reports what is wrong when the signature of entry i rules
// out a strong match (better than scattered) of q, or of q extended by one
// of exts, that its fields have: a strong narrowing rests on strongMay.
// strong tells whether the entry matches q itself strongly.
func strongSound(x *Index, i int, q string, strong bool, exts []string) string {
	qq := newQuery(q)
	if len(qq.runes) < 2 || x.sigs[i].strongMay(&qq) {
		return ""
	}
	if strong {
		return fmt.Sprintf("query %q: entry %q matches better than scattered, but strongMay rules it out", q, x.entries[i].key.id)
	}
	for _, ext := range exts {
		eq := newQuery(q + ext)
		if s, _, ok := x.best(i, &eq, make([]int, len(eq.runes)), 0); ok && s >= rank(tierInside, fURI) {
			return fmt.Sprintf("query %q: strongMay rules out entry %q, which matches %q better than scattered (%d)", q, x.entries[i].key.id, q+ext, s)
		}
	}
	return ""
}

// strongCase types the bench's queries over 20,000 of bench/peer's
// descriptors up to the first query that a strong narrowing serves
// (scattered: one whose answer keeps a scattered match, which the
// narrowing lacks) and returns the index, that query and the narrowing,
// checked intact against queryAll.
func strongCase(t *testing.T, scattered bool) (*Index, string, *narrowing) {
	x := benchPeerIndex(20_000)
	for _, q := range benchTyped() {
		n := x.last.Load()
		if n != nil && n.strong && strings.HasPrefix(newQuery(q).str, n.str) {
			want := x.queryAll(q, 20)
			if len(want) > 0 && slices.ContainsFunc(want, func(m Match) bool { return m.Score < rank(tierInside, fURI) }) == scattered {
				if got := x.Query(q, QueryOptions{Limit: 20}); !reflect.DeepEqual(got, want) {
					t.Fatalf("%q: the intact strong narrowing differs from queryAll", q)
				}
				x.last.Store(n)
				return x, q, n
			}
		}
		x.Query(q, QueryOptions{Limit: 20})
	}
	t.Fatalf("no typed query served by a strong narrowing (scattered answer: %v)", scattered)
	return nil, "", nil
}

// TestQueryPruningCatchesSabotage: the comparison with queryAll finds a
// wrong signature and a wrong narrowing, so TestQueryPruning would too.
func TestQueryPruningCatchesSabotage(t *testing.T) {
	nativeOnly(t)
	differs := func(x *Index, qs []string) bool {
		for _, q := range qs {
			got, want := x.Query(q, QueryOptions{Limit: 20}), x.queryAll(q, 20)
			if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
				return true
			}
		}
		return false
	}
	t.Run("signature without word-start keys", func(t *testing.T) {
		x := benchPeerIndex(1500)
		if differs(x, benchTyped()) {
			t.Fatal("the intact index differs from queryAll")
		}
		for i := range x.sigs {
			x.sigs[i].ntWords, x.sigs[i].udWords = [4]uint64{}, [8]uint64{}
		}
		x.last.Store(nil)
		if !differs(x, benchTyped()) {
			t.Fatal("signatures without word-start keys went unnoticed")
		}
	})
	t.Run("signature that moved with no entry", func(t *testing.T) {
		x := benchPeerIndex(1500)
		x.sigs[0], x.sigs[len(x.sigs)-1] = x.sigs[len(x.sigs)-1], x.sigs[0]
		x.sigs[1], x.sigs[len(x.sigs)-2] = x.sigs[len(x.sigs)-2], x.sigs[1]
		if !differs(x, soundQueries()) {
			t.Fatal("signatures swapped between entries went unnoticed")
		}
	})
	t.Run("strongMay without word-start pieces", func(t *testing.T) {
		// What TestSignatureSound's strong check finds in a strongMay
		// that knows only one-piece matches.
		x := benchPeerIndex(1500)
		found := false
		for _, q := range soundQueries() {
			qq := newQuery(q)
			if len(qq.runes) < 2 {
				continue
			}
			for i := range x.entries {
				sg := x.sigs[i]
				if sg.strongMay(&qq) && !sg.ntPairs.holds(&qq.sig.pairs) && !sg.uriPairs.holds(&qq.sig.pairs) && !sg.descPairs.holds(&qq.sig.descPairs) {
					// Only the word-start pieces allowed it: blank them.
					sg.starts = [3]uint64{}
					x.sigs[i] = sg
					if strongSound(x, i, q, false, []string{""}) != "" || strongSound(x, i, q, false, []string{"a", "e", "s", " p", "ion"}) != "" {
						found = true
					}
				}
			}
			if found {
				break
			}
		}
		if !found {
			t.Fatal("a strongMay without word-start pieces went unnoticed")
		}
	})
	t.Run("strong narrowing taken for a full one", func(t *testing.T) {
		// A strong narrowing holds no scattered match; a query that needs
		// them must rank everything. Marked full, it would not.
		x, q, n := strongCase(t, true)
		want := x.queryAll(q, 20)
		bad := *n
		bad.strong = false
		x.last.Store(&bad)
		if got := x.Query(q, QueryOptions{Limit: 20}); reflect.DeepEqual(got, want) {
			t.Fatalf("%q: a strong narrowing taken for a full one went unnoticed", q)
		}
	})
	t.Run("strong narrowing that lost a strong match", func(t *testing.T) {
		x, q, n := strongCase(t, false)
		want := x.queryAll(q, 20)
		bad := *n
		bad.entries = slices.DeleteFunc(slices.Clone(n.entries), func(i int32) bool { return int(i) == x.byKey[entryKey{id: want[0].Resource.URI}] })
		x.last.Store(&bad)
		if got := x.Query(q, QueryOptions{Limit: 20}); reflect.DeepEqual(got, want) {
			t.Fatalf("%q: a strong narrowing without the best match went unnoticed", q)
		}
	})
	t.Run("narrowing that lost an entry", func(t *testing.T) {
		x := benchPeerIndex(1500)
		want := x.queryAll("data retention", 20)
		x.Query("data retention", QueryOptions{Limit: 20})
		n := x.last.Load()
		if n == nil || n.str != "dataretention" || len(n.entries) < len(want) {
			t.Fatalf("no narrowing recorded for %q: %+v", "data retention", n)
		}
		if got := x.Query("data retention", QueryOptions{Limit: 20}); !reflect.DeepEqual(got, want) {
			t.Fatal("the intact narrowing differs from queryAll")
		}
		x.Query("data retention", QueryOptions{Limit: 20})
		n = x.last.Load()
		bad := *n
		bad.entries = slices.DeleteFunc(slices.Clone(n.entries), func(i int32) bool { return int(i) == x.byKey[entryKey{id: want[0].Resource.URI}] })
		x.last.Store(&bad)
		if got := x.Query("data retention", QueryOptions{Limit: 20}); reflect.DeepEqual(got, want) {
			t.Fatal("a narrowing without the best match went unnoticed")
		}
	})
}

// FuzzSignatureSound: for any descriptor and query, the signature allows
// the rank the fields reach, rules out nothing an extension of the query
// matches, and the pruned query answers as queryAll does.
func FuzzSignatureSound(f *testing.F) {
	f.Add("deploy-rollback-12.md", "Deploy Rollback (runbook)", "docs://team/data/runbook/deploy-rollback-12.md", "The data team's runbook on deploy.", "data r")
	f.Add("Über-café.md", "Résumé straße", "docs://x/über", "naïve señal", "über")
	f.Add("camelCaseName", "A-b c/d", "x://a/b/c", "", "cacn")
	f.Add("a\xffb", "\xc3", "", "tt", "a")
	f.Fuzz(func(t *testing.T, name, title, uri, desc, q string) {
		x := NewIndex()
		x.AddResources(Resource{URI: uri, Name: name, Title: title, Description: desc},
			Resource{URI: uri + "/2", Name: title, Title: name, Description: uri},
			Resource{URI: "z://" + desc, Name: desc})
		qq := newQuery(q)
		if len(qq.runes) == 0 {
			return
		}
		buf := make([]int, len(qq.runes))
		for i := range x.entries {
			s, _, ok := x.best(i, &qq, buf, 0)
			if ok && !x.sigs[i].reaches(&qq, s) {
				t.Fatalf("query %q: entry %d scores %d but its signature rules it out", q, i, s)
			}
			if !x.sigs[i].reaches(&qq, 1) {
				for _, ext := range []string{"a", "-", "é", q} {
					eq := newQuery(q + ext)
					if _, _, ok := x.best(i, &eq, make([]int, len(eq.runes)), 0); ok {
						t.Fatalf("query %q rules out entry %d, which matches %q", q, i, q+ext)
					}
				}
			}
			if err := strongSound(x, i, q, ok && s >= rank(tierInside, fURI), []string{"a", "-", "é", " " + q, q}); err != "" {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{1, 2} {
			got, want := x.Query(q, QueryOptions{Limit: limit}), x.queryAll(q, limit)
			if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
				t.Fatalf("query %q limit %d:\n got %s\nwant %s", q, limit, uris(got), uris(want))
			}
		}
	})
}

// nativeOnly skips a sequential property test under -race. These tests
// (the pruning and signature checks, the GFM port's corpus) call the index
// and the renderer from one goroutine, so the race detector has nothing to
// find in them and only makes them 5–8× slower (109 s of attach's 141 under
// -race, 20 s without it): `make unit` runs them without -race, right after
// the -race run of every package, and TestIndexConcurrent and its kin keep
// the index's concurrency under -race.
func nativeOnly(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("sequential property test: make unit runs it without -race (see nativeOnly)")
	}
}
