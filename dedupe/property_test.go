package dedupe

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
)

// modelDoc is the reference model of one attached single-part document.
type modelDoc struct {
	version   string // content of the attached copy ("t:.." or "b:..")
	state     State
	delivered string // a copy a tool result put in the context since the last read ("" = none)
}

// liveCopies lists the versions of a URI the model's context holds.
func (d *modelDoc) liveCopies() []string {
	var v []string
	if d.state == Fresh || d.state == Stale {
		v = append(v, d.version)
	}
	if d.delivered != "" {
		v = append(v, d.delivered)
	}
	return v
}

func versionPart(uri, v string) Part {
	if strings.HasPrefix(v, "b:") {
		return blobPart(uri, []byte(v[2:]))
	}
	return textPart(uri, v[2:])
}

// TestPropertyNoSecondCopy drives a Ledger with random attach, refresh,
// update, not-found, detach and tool-result events and checks it against
// a reference model: every dropped block was a copy the context already
// held, every kept block that names an attached URI was not, the context
// never holds two copies of one URI and version (with Replace, never two
// copies of one URI at all), and the ledger's states match the model's.
func TestPropertyNoSecondCopy(t *testing.T) {
	servers := []string{"ws://a", "ws://b"}
	uris := []string{"mem://1", "mem://2", "mem://3", "mem://4"}
	versions := []string{"t:v0", "t:v1", "t:v2", "b:v0"}
	for _, policy := range []NewerPolicy{Replace, KeepNewer} {
		var seen Figures // so the test cannot pass by never exercising a case
		for seed := int64(1); seed <= 25; seed++ {
			t.Run(fmt.Sprintf("policy%d/seed%d", policy, seed), func(t *testing.T) {
				rng := rand.New(rand.NewSource(seed))
				l := New(Options{OnNewer: policy})
				model := map[key]*modelDoc{}
				pick := func() key { return key{servers[rng.Intn(2)], uris[rng.Intn(len(uris))]} }
				for step := 0; step < 300; step++ {
					k := pick()
					d := model[k]
					switch op := rng.Intn(10); {
					case op == 0: // attach (or re-attach)
						v := versions[rng.Intn(len(versions))]
						mustAttach(t, l, k.server, k.uri, versionPart(k.uri, v))
						model[k] = &modelDoc{version: v, state: Fresh}
					case op == 1 && d != nil: // update announced, re-read succeeded
						v := versions[rng.Intn(len(versions))]
						if _, err := l.Refresh(k.server, k.uri, []Part{versionPart(k.uri, v)}); err != nil {
							t.Fatal(err)
						}
						*d = modelDoc{version: v, state: Fresh}
					case op == 2 && d != nil: // update announced, re-read pending or failed
						if err := l.MarkStale(k.server, k.uri, "updated"); err != nil {
							t.Fatal(err)
						}
						if d.state == Fresh {
							d.state = Stale
						}
					case op == 3 && d != nil: // not found
						if err := l.MarkGone(k.server, k.uri); err != nil {
							t.Fatal(err)
						}
						d.state = Gone
					case op == 4 && d != nil:
						l.Detach(k.server, k.uri)
						delete(model, k)
					default: // a tool result from one server
						toolResult(t, rng, l, policy, model, k.server, uris, versions)
					}
					// Invariants and agreement with the ledger.
					for mk, md := range model {
						live := md.liveCopies()
						if len(live) == 2 && live[0] == live[1] {
							t.Fatalf("step %d: two identical copies of %v in the context", step, mk)
						}
						if policy == Replace && len(live) > 1 {
							t.Fatalf("step %d: %d copies of %v in the context", step, len(live), mk)
						}
						if st := partState(t, l, mk.server, mk.uri); st != md.state {
							t.Fatalf("step %d: %v state %s, model %s", step, mk, st, md.state)
						}
					}
					if n := len(l.Entries()); n != len(model) {
						t.Fatalf("step %d: ledger has %d documents, model %d", step, n, len(model))
					}
				}
				seen.Merge(l.Figures())
			})
		}
		if seen.DuplicatesDropped < 100 || seen.LinksDropped < 100 || (policy == Replace) != (seen.Superseded > 100) ||
			seen.ToolResultsCarryingAttached < 100 {
			t.Errorf("policy %d: too few cases exercised: %+v", policy, seen)
		}
	}
}

func toolResult(t *testing.T, rng *rand.Rand, l *Ledger, policy NewerPolicy, model map[key]*modelDoc, server string, uris, versions []string) {
	type blk struct {
		uri, version string // version "" = link
	}
	n := rng.Intn(5)
	var bs []blk
	var raws []string
	for i := 0; i < n; i++ {
		b := blk{uri: uris[rng.Intn(len(uris))]}
		switch rng.Intn(3) {
		case 0:
			raws = append(raws, link(b.uri))
		case 1:
			b.version = versions[rng.Intn(len(versions))]
			raws = append(raws, embed(t, versionPart(b.uri, b.version)))
		default:
			b.uri = ""
			raws = append(raws, text("plain"))
		}
		bs = append(bs, b)
	}
	in := result(raws...)
	out, rep, err := l.Filter(server, in)
	if err != nil {
		t.Fatal(err)
	}
	dropped := map[int]string{}
	for _, d := range rep.Dropped {
		dropped[d.Index] = d.Reason
	}
	for i, b := range bs {
		d := model[key{server, b.uri}]
		reason, isDropped := dropped[i]
		var dup bool
		switch {
		case b.uri == "" || d == nil:
			dup = false
		case b.version == "":
			dup = len(d.liveCopies()) > 0
		default:
			for _, v := range d.liveCopies() {
				dup = dup || v == b.version
			}
		}
		if isDropped != dup {
			t.Fatalf("block %d (%+v) of %s: dropped=%v (%s), but duplicate=%v; model %+v", i, b, in, isDropped, reason, dup, d)
		}
		if dup || d == nil || b.version == "" {
			continue
		}
		// A kept copy that differs from what the context holds.
		d.delivered = b.version
		if policy == Replace {
			d.state = Superseded
		} else if d.state == Fresh {
			d.state = Stale
		}
	}
	kept := contentOf(t, out)
	if len(kept) == 0 {
		if n > 0 || len(rep.Dropped) > 0 {
			t.Fatalf("empty content from %s", in)
		}
	} else if len(rep.Dropped) < n && len(kept) != n-len(rep.Dropped) {
		t.Fatalf("%d blocks, %d dropped, %d kept", n, len(rep.Dropped), len(kept))
	}
}

func TestConcurrentUse(t *testing.T) {
	l := New(Options{})
	const workers, rounds = 8, 200
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			mine := fmt.Sprintf("mem://w%d", w)
			shared := "mem://shared"
			for i := 0; i < rounds; i++ {
				switch i % 5 {
				case 0:
					l.Attach("s", mine, []Part{textPart(mine, "x")})
					l.Attach("s", shared, []Part{textPart(shared, "y")})
				case 1:
					l.MarkStale("s", shared, "updated")
				case 2:
					l.RecordList()
					l.RecordRead()
				case 3:
					out, _, err := l.Filter("s", result(embed(t, textPart(mine, "x")), link(shared), text("t")))
					if err != nil || !json.Valid(out) {
						t.Errorf("Filter: %v %s", err, out)
					}
				case 4:
					l.Entries()
					l.Figures()
					l.Lookup("s", shared)
				}
			}
		}(w)
	}
	wg.Wait()
	f := l.Figures()
	if f.ToolResults != workers*rounds/5 || f.Lists != workers*rounds/5 || f.Attachments != workers+1 {
		t.Errorf("figures after concurrent use = %+v", f)
	}
	if f.DuplicatesDropped != workers*rounds/5 {
		t.Errorf("each worker's own copy must be dropped every time: %d", f.DuplicatesDropped)
	}
}
