package dedupe

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func pct(r float64) string { return fmt.Sprintf("%.1f", 100*r) }

// TestFiguresWorkedExample: of 4,150 sessions, 2,583 listed, 419 read, and
// 50 of the readers read a stored URI without listing. List-without-read
// is counted per session, not computed as list share minus read reach.
func TestFiguresWorkedExample(t *testing.T) {
	const sessions, listed, read, readNoList = 4150, 2583, 419, 50
	kinds := make([]string, 0, sessions)
	add := func(kind string, n int) {
		for i := 0; i < n; i++ {
			kinds = append(kinds, kind)
		}
	}
	add("read-only", readNoList)
	add("list+read", read-readNoList)
	add("list-only", listed-(read-readNoList))
	add("idle", sessions-len(kinds))
	rng := rand.New(rand.NewSource(1))
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })

	var total Figures
	for _, k := range kinds {
		l := New(Options{})
		// Several lists or reads in one session still count one session.
		for i := 0; i < 1+rng.Intn(3); i++ {
			if strings.Contains(k, "list") {
				l.RecordList()
			}
			if strings.Contains(k, "read") {
				l.RecordRead()
			}
		}
		total.Merge(l.Figures())
	}
	if total.Sessions != sessions || total.SessionsListed != listed || total.SessionsRead != read ||
		total.SessionsReadWithoutList != readNoList {
		t.Fatalf("counts = %+v", total)
	}
	if total.SessionsListedWithoutRead != 2214 {
		t.Errorf("listed without read = %d, want 2,214", total.SessionsListedWithoutRead)
	}
	r := total.Ratios()
	for name, got := range map[string][2]string{
		"list share":        {pct(r.ListShare), "62.2"},
		"read reach":        {pct(r.ReadReach), "10.1"},
		"list-without-read": {pct(r.ListWithoutRead), "53.3"},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %s%%, want %s%%", name, got[0], got[1])
		}
	}
	if sub := pct(r.ListShare - r.ReadReach); sub != "52.1" || sub == pct(r.ListWithoutRead) {
		t.Errorf("subtraction gives %s%%; the example exists because it differs from 53.3%%", sub)
	}
}

// TestFiguresReplay replays 100 turns of a session that attached a
// runbook; in 34 turns the model fetches the runbook again (as an embedded
// copy or as a link), in the others it calls unrelated tools.
func TestFiguresReplay(t *testing.T) {
	const srv = "ws://127.0.0.1:8080/mcp"
	runbook := textPart("file:///ops/runbook.md", strings.Repeat("Restart the service, then check the queue.\n", 40))
	l := New(Options{})
	l.RecordList()
	l.RecordRead()
	mustAttach(t, l, srv, runbook.URI, runbook)

	turns := make([]bool, 100)
	for _, i := range rand.New(rand.NewSource(34)).Perm(100)[:34] {
		turns[i] = true
	}
	var embeds, links int
	for i, fetch := range turns {
		var r json.RawMessage
		switch {
		case fetch && i%2 == 0:
			r = result(text("Here is the runbook:"), embed(t, runbook))
			embeds++
		case fetch:
			r = result(link(runbook.URI), text("Found 1 document."))
			links++
		default:
			r = result(text(fmt.Sprintf("weather for turn %d", i)), embed(t, textPart(fmt.Sprintf("mem://t/%d", i), "x")))
		}
		if _, _, err := l.Filter(srv, r); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	f := l.Figures()
	if f.ToolResults != 100 || f.ToolResultsWithAttachment != 100 || f.ToolResultsCarryingAttached != 34 {
		t.Fatalf("figures = %+v", f)
	}
	if got := pct(f.Ratios().DuplicateDelivery); got != "34.0" {
		t.Errorf("duplicate delivery = %s%%, want 34.0%%", got)
	}
	if f.DuplicatesDropped != int64(embeds) || f.LinksDropped != int64(links) {
		t.Errorf("dropped %d embeds and %d links, want %d and %d", f.DuplicatesDropped, f.LinksDropped, embeds, links)
	}
	size := int64(len(*runbook.Text))
	linkLen := int64(len(link(runbook.URI)))
	if want := int64(embeds)*size + int64(links)*linkLen; f.BytesSaved != want {
		t.Errorf("bytes saved = %d, want %d", f.BytesSaved, want)
	}
	if want := int64(embeds)*((size+3)/4) + int64(links)*((linkLen+3)/4); f.TokensSaved != want {
		t.Errorf("tokens saved = %d, want %d", f.TokensSaved, want)
	}
	if d := f.Decide(Thresholds{OfferBelowReadReach: 0.2, WithdrawAboveDuplicateDelivery: 0.3}); d.OfferFetchTool ||
		!strings.Contains(d.Reason, "34.0%") {
		t.Errorf("decision = %+v, want withdraw at 34.0%%", d)
	}
}

func TestFiguresWithoutAttachment(t *testing.T) {
	l := New(Options{})
	l.Filter("s", result(link("mem://a")))
	mustAttach(t, l, "s", "mem://a", textPart("mem://a", "A"))
	l.Filter("s", result(link("mem://b")))
	l.Filter("s", result(link("mem://a"), link("mem://a"))) // one result, counted once
	f := l.Figures()
	if f.ToolResults != 3 || f.ToolResultsWithAttachment != 2 || f.ToolResultsCarryingAttached != 1 || f.LinksDropped != 2 {
		t.Errorf("figures = %+v", f)
	}
	if f.Ratios().DuplicateDelivery != 0.5 {
		t.Errorf("rate = %v", f.Ratios().DuplicateDelivery)
	}
}

func TestFiguresJSONAndMerge(t *testing.T) {
	a := Figures{Sessions: 2, SessionsListed: 1, SessionsRead: 1, SessionsReadWithoutList: 1, Lists: 3, Reads: 4,
		Attachments: 2, ToolResults: 10, ToolResultsWithAttachment: 8, ToolResultsCarryingAttached: 2,
		DuplicatesDropped: 1, LinksDropped: 1, Superseded: 1, BytesSaved: 100, TokensSaved: 25}
	b := a
	b.SessionsListedWithoutRead = 1
	a.Merge(b)
	if a.Sessions != 4 || a.TokensSaved != 50 || a.SessionsListedWithoutRead != 1 || a.ToolResultsCarryingAttached != 4 {
		t.Errorf("merged = %+v", a)
	}
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sessions":4`, `"toolResultsCarryingAttached":4`, `"ratios":{"listShare":0.5,"readReach":0.5,"listWithoutRead":0.25,"duplicateDelivery":0.25}`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("JSON %s lacks %s", js, want)
		}
	}
	var back Figures
	if err := json.Unmarshal(js, &back); err != nil || back != a {
		t.Errorf("round trip: %v %+v", err, back)
	}
	if r := (Figures{}).Ratios(); r != (Ratios{}) {
		t.Errorf("empty ratios = %+v", r)
	}
}

func TestDecide(t *testing.T) {
	th := Thresholds{OfferBelowReadReach: 0.20, WithdrawAboveDuplicateDelivery: 0.30}
	tests := []struct {
		name  string
		f     Figures
		offer bool
		why   string
	}{
		{"no data", Figures{}, false, "no sessions"},
		{"low read reach", Figures{Sessions: 100, SessionsRead: 10}, true, "offer: read reach 10.0% < 20.0%"},
		{"read reach at threshold", Figures{Sessions: 100, SessionsRead: 20}, false, "not needed"},
		{"duplicates above threshold", Figures{Sessions: 100, SessionsRead: 10, ToolResultsWithAttachment: 100, ToolResultsCarryingAttached: 31}, false, "withdraw: duplicate delivery 31.0% > 30.0%"},
		{"duplicates at threshold", Figures{Sessions: 100, SessionsRead: 10, ToolResultsWithAttachment: 100, ToolResultsCarryingAttached: 30}, true, "offer"},
	}
	for _, tt := range tests {
		d := tt.f.Decide(th)
		if d.OfferFetchTool != tt.offer || !strings.Contains(d.Reason, tt.why) {
			t.Errorf("%s: %+v, want offer=%v reason ~ %q", tt.name, d, tt.offer, tt.why)
		}
	}
}
