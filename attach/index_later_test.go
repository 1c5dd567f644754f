package attach

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// sameIndex fails unless two indexes hold the same entries in the same
// order with the same folded fields, masks, signatures and ranks.
func sameIndex(t *testing.T, got, want *Index) {
	t.Helper()
	got.FoldPending(-1)
	want.FoldPending(-1)
	if !reflect.DeepEqual(got.entries, want.entries) || !reflect.DeepEqual(got.ranks, want.ranks) {
		t.Fatal("entries or ranks differ")
	}
	if !reflect.DeepEqual(got.fields, want.fields) || !reflect.DeepEqual(got.masks, want.masks) || !reflect.DeepEqual(got.sigs, want.sigs) {
		t.Fatal("folded fields, masks or signatures differ")
	}
	if got.ordered != want.ordered || got.maxPriority != want.maxPriority || !reflect.DeepEqual(got.byKey, want.byKey) {
		t.Fatal("order, priority bound or keys differ")
	}
}

// TestIndexLaterMatchesEager: descriptors added later (folded in pieces,
// by a query, or by an eager call that comes after them, and replaced or
// removed while pending) give the same index and the same answers as
// descriptors added at once.
func TestIndexLaterMatchesEager(t *testing.T) {
	rs := benchPeerResources(3000)
	for i := range rs {
		if i%7 == 0 {
			p := float64(i%10) / 10
			rs[i].Annotations = &Annotations{Priority: &p, Audience: []string{"user"}}
		}
	}
	ts := []ResourceTemplate{{URITemplate: "docs://team/{team}/runbook/{name}", Name: "team-runbook", Title: "Runbook by team"},
		{URITemplate: "docs://x/{y}", Name: "über {y}", Description: "naïve template"}}
	queries := append([]string{"", "r", "Run", "über", "zzz"}, benchTyped()...)
	eager, later := NewIndex(), NewIndex()
	for off := 0; off < len(rs); off += 250 {
		page := rs[off : off+250]
		eager.AddResources(page...)
		later.AddResourcesLater(page...)
		switch off / 250 % 4 {
		case 1:
			if n := later.FoldPending(100); n != off+250-later.folded {
				t.Fatalf("FoldPending reports %d pending, %d are", n, off+250-later.folded)
			}
		case 2:
			q := queries[off%len(queries)]
			if got, want := later.Query(q, QueryOptions{Limit: 20}), eager.Query(q, QueryOptions{Limit: 20}); !reflect.DeepEqual(got, want) {
				t.Fatalf("query %q during the listing: got %s, want %s", q, uris(got), uris(want))
			}
			if later.folded != len(later.entries) {
				t.Fatal("a query left descriptors pending")
			}
		}
	}
	eager.AddTemplates(ts...)
	later.AddTemplatesLater(ts...)
	// Replaced once folded; removed (which folds what waits first).
	changed := rs[10]
	changed.Title = "Changed title"
	eager.AddResources(changed)
	later.AddResourcesLater(changed)
	eager.RemoveResources(rs[2999].URI, rs[5].URI)
	later.RemoveResources(rs[2999].URI, rs[5].URI)
	sameIndex(t, later, eager)
	for _, q := range queries {
		for _, opts := range []QueryOptions{{Limit: 20}, {Limit: 5, Audience: "assistant"}} {
			if got, want := later.Query(q, opts), eager.Query(q, opts); !reflect.DeepEqual(got, want) {
				t.Fatalf("query %q %+v: got %s, want %s", q, opts, uris(got), uris(want))
			}
		}
	}
	// An eager call after pending ones folds them first, in order.
	a, b := NewIndex(), NewIndex()
	a.AddResources(rs[:40]...)
	b.AddResourcesLater(rs[:30]...)
	b.AddResources(rs[30:40]...)
	if b.folded != 40 {
		t.Fatalf("folded %d of 40 after an eager add", b.folded)
	}
	sameIndex(t, b, a)
	a.SetResources(rs[20:60])
	b.AddResourcesLater(rs[40:50]...)
	b.SetResources(rs[20:60])
	sameIndex(t, b, a)
	// Replaced while still pending: the fold sees the new descriptor.
	c, d := NewIndex(), NewIndex()
	renamed := rs[1]
	renamed.Name, renamed.Title = "renamed.md", ""
	c.AddResources(rs[:5]...)
	c.AddResources(renamed)
	d.AddResourcesLater(rs[:5]...)
	d.AddResourcesLater(renamed)
	if d.folded != 0 {
		t.Fatal("a later add folded")
	}
	sameIndex(t, d, c)
	if got := d.Query("renamed", QueryOptions{}); len(got) != 1 || got[0].Resource.URI != rs[1].URI {
		t.Fatalf("the replaced pending descriptor: %s", uris(got))
	}
}

// TestIndexLaterConcurrent: adds later, folds and queries from several
// goroutines (run with -race) never show a query an unfolded entry.
func TestIndexLaterConcurrent(t *testing.T) {
	x := NewIndex()
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for i := range 200 {
				x.AddResourcesLater(Resource{URI: fmt.Sprintf("mem://%d/%d", w, i), Name: fmt.Sprintf("doc %d %d", w, i)})
			}
		}()
		go func() {
			defer wg.Done()
			for range 100 {
				x.FoldPending(7)
			}
		}()
		go func() {
			defer wg.Done()
			for range 100 {
				for _, m := range x.Query("doc", QueryOptions{Limit: 5}) {
					if m.Resource == nil || m.Highlights.Name == nil {
						t.Error("a query saw an unfolded descriptor")
						return
					}
				}
				for _, m := range x.Query("", QueryOptions{Limit: 5}) {
					if m.Resource == nil || m.Resource.Name == "" {
						t.Error("the empty query saw an unfolded descriptor")
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if n := x.FoldPending(-1); n != 0 || x.Len() != 600 {
		t.Fatalf("%d pending, %d entries after all adds", n, x.Len())
	}
}

// TestIndexLaterBound: however many descriptors are added later, at most
// maxPending wait unfolded (what a query may have to fold first), and the
// index is the one AddResources builds.
func TestIndexLaterBound(t *testing.T) {
	rs := benchPeerResources(3*maxPending + 250)
	later, eager := NewIndex(), NewIndex()
	for i := 0; i < len(rs); i += 100 {
		page := rs[i:min(i+100, len(rs))]
		later.AddResourcesLater(page...)
		eager.AddResources(page...)
		if p := later.FoldPending(0); p > maxPending {
			t.Fatalf("after %d descriptors %d wait unfolded, more than %d", i+len(page), p, maxPending)
		}
	}
	if p := later.FoldPending(0); p != maxPending {
		t.Fatalf("%d wait at the end, want the bound %d", p, maxPending)
	}
	sameIndex(t, later, eager)
}
