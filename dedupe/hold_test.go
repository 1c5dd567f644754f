package dedupe

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestHold: a held part (attached, not sent to the model) is not in the
// context: the filter keeps a tool result's copy of it and links to it,
// supersedes nothing and asks for no confirming read; the mark survives
// re-reads, may precede the first attach, and ends with Hold(false) or
// Detach.
func TestHold(t *testing.T) {
	t.Parallel()
	const srv, doc = "ws://s", "docs://big.md"
	big := textPart(doc, "a held-back document")
	other := textPart(doc, "another copy")
	type step struct {
		result    json.RawMessage
		dropped   []string // reasons, in order
		confirm   []string
		supersede bool
	}
	for _, tc := range []struct {
		name  string
		setup func(l *Ledger)
		steps []step
	}{
		{"not held: the duplicate and the link are dropped", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
		}, []step{
			{result: result(embed(t, big)), dropped: []string{ReasonDuplicate}},
			{result: result(link(doc), text("x")), dropped: []string{ReasonLinkToAttached}, confirm: []string{doc}},
		}},
		{"held: the same copy is kept, then counts as delivered", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
			l.Hold(srv, doc, true)
		}, []step{
			{result: result(embed(t, big), text("x"))},
			// The model now has it from that result: a second copy is a duplicate.
			{result: result(embed(t, big), text("x")), dropped: []string{ReasonDuplicate}},
		}},
		{"held: a link is kept and needs no confirming read", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
			l.Hold(srv, doc, true)
		}, []step{{result: result(link(doc), text("x"))}}},
		{"held: a different copy is kept and supersedes nothing", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
			l.Hold(srv, doc, true)
		}, []step{{result: result(embed(t, other))}}},
		{"held before the first attach", func(l *Ledger) {
			l.Hold(srv, doc, true)
			l.Attach(srv, doc, []Part{big})
		}, []step{{result: result(embed(t, big), text("x"))}}},
		{"held across a refresh", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
			l.Hold(srv, doc, true)
			l.Refresh(srv, doc, []Part{big})
		}, []step{{result: result(embed(t, big), text("x"))}}},
		{"released by Hold(false): in the context again", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
			l.Hold(srv, doc, true)
			l.Hold(srv, doc, false)
		}, []step{{result: result(embed(t, big)), dropped: []string{ReasonDuplicate}}}},
		{"released by Detach", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
			l.Hold(srv, doc, true)
			l.Detach(srv, doc)
			l.Attach(srv, doc, []Part{big})
		}, []step{{result: result(embed(t, big)), dropped: []string{ReasonDuplicate}}}},
		{"another server's part is not held", func(l *Ledger) {
			l.Attach(srv, doc, []Part{big})
			l.Hold("ws://other", doc, true)
		}, []step{{result: result(embed(t, big)), dropped: []string{ReasonDuplicate}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(Options{})
			tc.setup(l)
			for i, s := range tc.steps {
				confirm := l.Confirmations(srv, s.result)
				_, rep, err := l.Filter(srv, s.result)
				if err != nil {
					t.Fatal(err)
				}
				var reasons []string
				for _, d := range rep.Dropped {
					reasons = append(reasons, d.Reason)
				}
				if !slices.Equal(reasons, s.dropped) || !slices.Equal(confirm, s.confirm) || (len(rep.Superseded) > 0) != s.supersede {
					t.Errorf("step %d: dropped %v confirm %v superseded %v; want %v %v %v",
						i, reasons, confirm, rep.Superseded, s.dropped, s.confirm, s.supersede)
				}
			}
			if e, ok := l.Lookup(srv, doc); ok && e.Parts[0].State != Fresh {
				t.Errorf("state %s: holding changes no state", e.Parts[0].State)
			}
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	for size, want := range map[int64]int64{0: 0, 1: 1, 4: 1, 5: 2, 400_000: 100_000, 400_001: 100_001, 1_300_021: 325_006} {
		if got := EstimateTokens(size); got != want {
			t.Errorf("EstimateTokens(%d) = %d, want %d", size, got, want)
		}
	}
}
