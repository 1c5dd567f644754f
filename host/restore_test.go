//go:build !js

package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	rsSame    = "docs://t/policy/same.md"
	rsChanged = "docs://t/policy/changed.md"
	rsGone    = "docs://t/policy/on-call-escalation.md"
	rsRenamed = "docs://t/policy/oncall-escalation-policy.md"
	rsFailing = "docs://t/policy/flaky.md"
	rsRefused = "docs://t/policy/refused.md"
)

// refuse makes reads of uri answer -32602 without data (not a not-found:
// the server rejects the request itself).
func refuse(d *docServer, uri string) {
	d.AddResource(&mcp.Resource{URI: uri, Name: "refused.md"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "this document cannot be read by this client"}
	})
}

// firstSession attaches uris on a host of url and returns its snapshot.
func firstSession(t *testing.T, url string, content bool, uris ...string) *host.Snapshot {
	t.Helper()
	h, _ := connect(t, url, nil)
	for _, u := range uris {
		if _, err := h.Attach(context.Background(), u); err != nil {
			t.Fatalf("attach %s: %v", u, err)
		}
	}
	snap, err := h.Snapshot(context.Background(), &host.SnapshotOptions{IncludeContent: content})
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	// It survives JSON, as a page's localStorage holds it.
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	back, err := host.ParseSnapshot(b)
	if err != nil {
		t.Fatalf("ParseSnapshot of a snapshot: %v\n%s", err, b)
	}
	return back
}

func resultOf(t *testing.T, rs []host.RestoreResult, uri string) host.RestoreResult {
	t.Helper()
	for _, r := range rs {
		if r.URI == uri {
			return r
		}
	}
	t.Fatalf("no result for %s in %+v", uri, rs)
	return host.RestoreResult{}
}

// TestRestoreOutcomes: one snapshot, reopened after the server changed,
// gives each outcome, keeps what each promises and fires the right events.
func TestRestoreOutcomes(t *testing.T) {
	d, url := newDocServer(t, map[string]string{
		rsSame: "# Same\n", rsChanged: "# Before\n", rsGone: "# On-call escalation\n", rsFailing: "# Flaky\n",
	})
	snap := firstSession(t, url, true, rsSame, rsChanged, rsGone, rsFailing)
	if snap.Version != 1 || snap.DigestAlg != "sha-256" || snap.Server != url || snap.ProtocolVersion == "" || snap.TakenAt == "" {
		t.Fatalf("snapshot header: %+v", snap)
	}
	if p := snap.Attachments[0].Parts[0]; len(p.Digest) != 64 || p.Text == nil || *p.Text != "# Same\n" {
		t.Fatalf("snapshot part: %+v", p)
	}
	// Between the sessions: one changes, one is renamed, one fails.
	d.mu.Lock()
	d.docs[rsChanged] = "# After\n"
	d.fail[rsFailing] = 1000
	d.mu.Unlock()
	d.RemoveResources(rsGone)
	d.mu.Lock()
	d.docs[rsRenamed] = "# Oncall escalation policy\n"
	d.mu.Unlock()
	d.add(rsRenamed)
	refuse(d, rsRefused)
	snap.Attachments = append(snap.Attachments, host.SnapshotAttachment{URI: rsRefused, State: host.StateFresh,
		Parts: []host.SnapshotPart{{URI: rsRefused, Kind: "text", MIMEType: "text/markdown", Digest: strings.Repeat("0", 64), Text: ptr("x")}}})
	snap.ProtocolVersion = "2026-07-28" // taken under another revision: fine
	readsBefore := d.readsOf(rsFailing)

	h, rec := connect(t, url, &host.Options{BackoffMin: time.Millisecond, BackoffMax: 4 * time.Millisecond})
	res, err := h.Restore(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 {
		t.Fatalf("%d results, want 5", len(res))
	}
	for i, u := range []string{rsSame, rsChanged, rsGone, rsFailing, rsRefused} {
		if res[i].URI != u {
			t.Fatalf("result %d is %s, want %s (snapshot order)", i, res[i].URI, u)
		}
	}

	same := resultOf(t, res, rsSame)
	if same.Outcome != host.OutcomeUnchanged || same.Err != nil || len(same.Parts) != 1 || same.Parts[0].State != host.StateFresh {
		t.Errorf("same: %+v", same)
	}
	changed := resultOf(t, res, rsChanged)
	if changed.Outcome != host.OutcomeChanged || len(changed.Parts) != 1 || changed.Parts[0].Text != "# After\n" || changed.Parts[0].State != host.StateFresh {
		t.Errorf("changed: %+v", changed)
	}
	gone := resultOf(t, res, rsGone)
	if gone.Outcome != host.OutcomeGone || !bridge.IsNotFound(gone.Err) || len(gone.Parts) != 1 || gone.Parts[0].State != host.StateGone || host.ForModel(&gone.Parts[0]) {
		t.Errorf("gone: %+v", gone)
	}
	if len(gone.Suggestions) == 0 || gone.Suggestions[0].Resource.URI != rsRenamed || gone.SuggestionsIncomplete {
		t.Errorf("gone suggestions: %+v (incomplete %v), want %s first", gone.Suggestions, gone.SuggestionsIncomplete, rsRenamed)
	}
	failed := resultOf(t, res, rsFailing)
	if failed.Outcome != host.OutcomeFailed || !bridge.IsRetryable(failed.Err) || len(failed.Parts) != 1 || failed.Parts[0].State != host.StateStale || failed.Parts[0].Text != "# Flaky\n" {
		t.Errorf("failed: %+v", failed)
	} else if w := strings.Join(failed.Parts[0].Warnings, "; "); !strings.Contains(w, "restore failed") {
		t.Errorf("failed copy's warnings %q do not say why it is stale", w)
	}
	if n := d.readsOf(rsFailing) - readsBefore; n != 4 {
		t.Errorf("flaky read %d times, want 4 (the first and 3 retries)", n)
	}
	refused := resultOf(t, res, rsRefused)
	if be, ok := bridge.AsError(refused.Err); refused.Outcome != host.OutcomeRefused || !ok || be.Kind != bridge.KindInvalid || refused.Parts != nil {
		t.Errorf("refused: %+v", refused)
	}

	// The context: snapshot order, the refused one not kept.
	want := []string{rsSame, rsChanged, rsGone, rsFailing}
	if got := h.AttachedURIs(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("attached %v, want %v", got, want)
	}
	ev := rec.wait(t, host.EventRestored, "")
	if len(ev.Restored) != len(res) {
		t.Fatalf("restored event with %d results, want %d", len(ev.Restored), len(res))
	}
	for i := range res {
		if ev.Restored[i].URI != res[i].URI || ev.Restored[i].Outcome != res[i].Outcome {
			t.Errorf("restored event result %d: %s %s, want %s %s", i, ev.Restored[i].URI, ev.Restored[i].Outcome, res[i].URI, res[i].Outcome)
		}
	}
	var updated []string
	for _, e := range rec.events() {
		if e.Type == host.EventUpdated {
			updated = append(updated, e.URI)
		}
	}
	if len(updated) != 1 || updated[0] != rsChanged {
		t.Errorf("updated events for %v, want only %s", updated, rsChanged)
	}

	// A gone copy is not for the model; Replace swaps in the suggestion.
	parts, err := h.Replace(context.Background(), rsGone, gone.Suggestions[0].Resource.URI)
	if err != nil || len(parts) != 1 || parts[0].Text != "# Oncall escalation policy\n" {
		t.Fatalf("replace: %v %+v", err, parts)
	}
	want = []string{rsSame, rsChanged, rsRenamed, rsFailing}
	if got := h.AttachedURIs(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after replace: attached %v, want %v (same position)", got, want)
	}
}

func ptr(s string) *string { return &s }

// TestRestoreWithoutContent: a snapshot without content keeps nothing for a
// gone or failed document.
func TestRestoreWithoutContent(t *testing.T) {
	d, url := newDocServer(t, map[string]string{rsSame: "# Same\n", rsGone: "# Gone\n", rsFailing: "# Flaky\n"})
	snap := firstSession(t, url, false, rsSame, rsGone, rsFailing)
	if p := snap.Attachments[0].Parts[0]; p.Text != nil || len(p.Digest) != 64 {
		t.Fatalf("snapshot without content: %+v", p)
	}
	d.RemoveResources(rsGone)
	d.mu.Lock()
	d.fail[rsFailing] = 1000
	d.mu.Unlock()
	h, _ := connect(t, url, &host.Options{BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond})
	res, err := h.Restore(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if r := resultOf(t, res, rsSame); r.Outcome != host.OutcomeUnchanged {
		t.Errorf("same: %+v", r)
	}
	if r := resultOf(t, res, rsGone); r.Outcome != host.OutcomeGone || r.Parts != nil {
		t.Errorf("gone: %+v", r)
	}
	if r := resultOf(t, res, rsFailing); r.Outcome != host.OutcomeFailed || r.Parts != nil {
		t.Errorf("failed: %+v", r)
	}
	if got := h.AttachedURIs(); len(got) != 1 || got[0] != rsSame {
		t.Errorf("attached %v, want only %s", got, rsSame)
	}
}

// TestRestoreAlreadyAttached: a URI already in the context is re-read (not
// from a cache), never duplicated.
func TestRestoreAlreadyAttached(t *testing.T) {
	d, url := newDocServer(t, map[string]string{rsSame: "# Same\n", rsChanged: "# Before\n"})
	snap := firstSession(t, url, true, rsSame, rsChanged)
	h, _ := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), rsSame); err != nil {
		t.Fatal(err)
	}
	n := d.readsOf(rsSame)
	res, err := h.Restore(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if d.readsOf(rsSame) != n+1 {
		t.Errorf("%s read %d times by the restore, want 1", rsSame, d.readsOf(rsSame)-n)
	}
	if r := resultOf(t, res, rsSame); r.Outcome != host.OutcomeUnchanged {
		t.Errorf("same: %+v", r)
	}
	if got := h.AttachedURIs(); strings.Join(got, " ") != rsSame+" "+rsChanged {
		t.Errorf("attached %v", got)
	}
	if got := h.Attachments(); len(got) != 2 {
		t.Errorf("%d parts in the context, want 2", len(got))
	}
}

// TestRestoreMalformed: a malformed snapshot, one of another server or of a
// newer version is kind invalid naming the field, and changes nothing.
func TestRestoreMalformed(t *testing.T) {
	d, url := newDocServer(t, map[string]string{rsSame: "# Same\n"})
	good := firstSession(t, url, true, rsSame)
	h, _ := connect(t, url, nil)
	if _, err := h.Attach(context.Background(), rsSame); err != nil {
		t.Fatal(err)
	}
	goodJSON, _ := json.Marshal(good)
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(goodJSON, &m)
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	att := func(m map[string]any) map[string]any { return m["attachments"].([]any)[0].(map[string]any) }
	part := func(m map[string]any) map[string]any { return att(m)["parts"].([]any)[0].(map[string]any) }
	cases := []struct {
		name, field string
		json        []byte
	}{
		{"not an object", "snapshot", []byte(`[1]`)},
		{"not JSON", "snapshot", []byte(`{"version": 1,`)},
		{"no version", "snapshot.version", edit(func(m map[string]any) { delete(m, "version") })},
		{"newer version", "snapshot.version", edit(func(m map[string]any) { m["version"] = 2 })},
		{"version not a number", "snapshot.version", edit(func(m map[string]any) { m["version"] = "1" })},
		{"another server", "snapshot.server", edit(func(m map[string]any) { m["server"] = "ws://127.0.0.1:1/mcp" })},
		{"another digest", "snapshot.digestAlg", edit(func(m map[string]any) { m["digestAlg"] = "md5" })},
		{"no attachments", "snapshot.attachments", edit(func(m map[string]any) { delete(m, "attachments") })},
		{"attachments not a list", "snapshot.attachments", edit(func(m map[string]any) { m["attachments"] = "x" })},
		{"uri missing", "snapshot.attachments[0].uri", edit(func(m map[string]any) { delete(att(m), "uri") })},
		{"uri twice", "snapshot.attachments[1].uri", edit(func(m map[string]any) {
			m["attachments"] = append(m["attachments"].([]any), att(m))
		})},
		{"bad state", "snapshot.attachments[0].state", edit(func(m map[string]any) { att(m)["state"] = "weird" })},
		{"bad digest", "snapshot.attachments[0].parts[0].digest", edit(func(m map[string]any) { part(m)["digest"] = "abc" })},
		{"bad kind", "snapshot.attachments[0].parts[0].kind", edit(func(m map[string]any) { part(m)["kind"] = "video" })},
		{"blob in a text part", "snapshot.attachments[0].parts[0].blob", edit(func(m map[string]any) { part(m)["blob"] = "AAAA" })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reads := d.readsOf(rsSame)
			before := h.AttachedURIs()
			snap, err := host.ParseSnapshot(tc.json)
			if err == nil {
				_, err = h.Restore(context.Background(), snap)
			}
			be, ok := bridge.AsError(err)
			if !ok || be.Kind != bridge.KindInvalid {
				t.Fatalf("err %v, want kind invalid", err)
			}
			var data struct{ Field string }
			if json.Unmarshal(be.Data, &data); data.Field != tc.field || !strings.Contains(be.Message, tc.field) {
				t.Errorf("names %q (%s), want %q", data.Field, be.Message, tc.field)
			}
			if d.readsOf(rsSame) != reads || strings.Join(h.AttachedURIs(), " ") != strings.Join(before, " ") {
				t.Errorf("the context changed")
			}
		})
	}
	if _, err := h.Restore(context.Background(), nil); err == nil {
		t.Error("a nil snapshot restored")
	}
}

// TestRestoreDeadline: a read still going at timeoutMs is failed (timeout)
// with the snapshot's copy kept stale, and a listing that does not finish
// in time gives no suggestions, marked incomplete.
func TestRestoreDeadline(t *testing.T) {
	d, url := newDocServer(t, map[string]string{rsSame: "# Same\n", rsGone: "# Gone\n"})
	snap := firstSession(t, url, true, rsSame, rsGone)
	gate := make(chan struct{})
	defer close(gate)
	d.mu.Lock()
	d.gate[rsSame] = gate
	d.listLatency = 2 * time.Second
	d.mu.Unlock()
	d.RemoveResources(rsGone)
	h, _ := connect(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := h.Restore(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, res, rsSame)
	if be, ok := bridge.AsError(r.Err); r.Outcome != host.OutcomeFailed || !ok || be.Kind != bridge.KindTimeout || len(r.Parts) != 1 || r.Parts[0].State != host.StateStale {
		t.Errorf("timed out read: %+v", r)
	}
	g := resultOf(t, res, rsGone)
	if g.Outcome != host.OutcomeGone || !g.SuggestionsIncomplete || g.Suggestions == nil || len(g.Suggestions) != 0 {
		t.Errorf("gone before the listing finished: %+v", g)
	}
}

// TestRestoreCancelled: an aborted restore rejects with kind cancelled and
// leaves nothing it had not settled.
func TestRestoreCancelled(t *testing.T) {
	d, url := newDocServer(t, map[string]string{rsSame: "# Same\n"})
	snap := firstSession(t, url, true, rsSame)
	gate := make(chan struct{})
	defer close(gate)
	d.mu.Lock()
	d.gate[rsSame] = gate
	d.mu.Unlock()
	h, rec := connect(t, url, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		eventually(t, "the restore's read", func() bool { return d.readsOf(rsSame) > 1 })
		cancel()
	}()
	_, err := h.Restore(ctx, snap)
	if be, ok := bridge.AsError(err); !ok || be.Kind != bridge.KindCancelled {
		t.Fatalf("err %v, want kind cancelled", err)
	}
	if got := h.AttachedURIs(); len(got) != 0 {
		t.Errorf("attached %v after a cancelled restore", got)
	}
	if rec.count(host.EventRestored) != 0 {
		t.Error("restored fired for a cancelled restore")
	}
}

// TestReplace: the new document takes the old one's place; bad arguments
// are kind invalid and change nothing.
func TestReplace(t *testing.T) {
	a, b, c, n := "docs://t/k/a.md", "docs://t/k/b.md", "docs://t/k/c.md", "docs://t/k/new.md"
	_, url := newDocServer(t, map[string]string{a: "a", b: "b", c: "c", n: "new"})
	h, _ := connect(t, url, nil)
	for _, u := range []string{a, b, c} {
		if _, err := h.Attach(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][2]string{{"docs://t/k/none.md", n}, {b, b}, {b, ""}} {
		_, err := h.Replace(context.Background(), args[0], args[1])
		if be, ok := bridge.AsError(err); !ok || be.Kind != bridge.KindInvalid {
			t.Errorf("replace %q by %q: %v, want kind invalid", args[0], args[1], err)
		}
	}
	if _, err := h.Replace(context.Background(), b, "docs://t/k/missing.md"); !bridge.IsNotFound(err) {
		t.Errorf("replace by a missing document: %v", err)
	}
	if got := strings.Join(h.AttachedURIs(), " "); got != a+" "+b+" "+c {
		t.Fatalf("after failed replaces: %s", got)
	}
	parts, err := h.Replace(context.Background(), b, n)
	if err != nil || len(parts) != 1 || parts[0].Text != "new" {
		t.Fatalf("replace: %v %+v", err, parts)
	}
	if got := strings.Join(h.AttachedURIs(), " "); got != a+" "+n+" "+c {
		t.Errorf("order %s, want %s", got, a+" "+n+" "+c)
	}
	var texts []string
	for _, p := range h.Attachments() {
		texts = append(texts, p.Text)
	}
	if strings.Join(texts, ",") != "a,new,c" {
		t.Errorf("context %v", texts)
	}
}
