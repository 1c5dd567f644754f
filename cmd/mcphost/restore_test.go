//go:build !js

package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/sampledocs"
	"github.com/mcphost/mcphost/host"
)

// copySampleDocs writes the embedded sample documents to a temporary folder
// (never the repository's) and returns it.
func copySampleDocs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(sampledocs.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := sampledocs.FS.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRestoreRenameInDocsFolder: a conversation saved with three documents
// of the real documents server reopens after one file of the folder was
// renamed: two are unchanged, the renamed one is gone with its new name as
// the first suggestion, and Replace puts it in the same place.
func TestRestoreRenameInDocsFolder(t *testing.T) {
	dir := copySampleDocs(t)
	policy := filepath.Join(dir, "platform", "policy")
	if err := os.WriteFile(filepath.Join(policy, "on-call-escalation.md"),
		[]byte("# On-call escalation\n\nWho is paged, in which order, and when a page escalates.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startServer(t, testConfig(t, "-docs", dir))
	url := "ws://" + addr + "/mcp"
	const (
		welcome = "docs://team/platform/onboarding/welcome.md"
		access  = "docs://team/platform/policy/access-control.md"
		oldURI  = "docs://team/platform/policy/on-call-escalation.md"
		newURI  = "docs://team/platform/policy/oncall-escalation-policy.md"
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Monday: three documents attached, the snapshot saved as JSON.
	h1, err := host.Connect(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{welcome, oldURI, access} {
		if _, err := h1.Attach(ctx, u); err != nil {
			t.Fatalf("attach %s: %v", u, err)
		}
	}
	snap, err := h1.Snapshot(ctx, &host.SnapshotOptions{IncludeContent: true})
	if err != nil {
		t.Fatal(err)
	}
	saved, _ := json.Marshal(snap)
	h1.Close()

	// Between the sessions the file is renamed in the folder.
	if err := os.Rename(filepath.Join(policy, "on-call-escalation.md"), filepath.Join(policy, "oncall-escalation-policy.md")); err != nil {
		t.Fatal(err)
	}
	waitForScan(t, ctx, url, oldURI, newURI)

	// Thursday: the conversation reopens.
	var restored []host.RestoreResult
	got := make(chan struct{})
	h2, err := host.Connect(ctx, url, &host.Options{OnEvent: func(e host.Event) {
		if e.Type == host.EventRestored {
			restored = e.Restored
			close(got)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	back, err := host.ParseSnapshot(saved)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h2.Restore(ctx, back)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]host.RestoreResult{}
	for _, r := range res {
		outcomes[r.URI] = r
	}
	for _, u := range []string{welcome, access} {
		if r := outcomes[u]; r.Outcome != host.OutcomeUnchanged || len(r.Parts) == 0 || r.Parts[0].State != host.StateFresh {
			t.Errorf("%s: %s %v, want unchanged and fresh", u, r.Outcome, r.Err)
		}
	}
	g := outcomes[oldURI]
	if g.Outcome != host.OutcomeGone || !bridge.IsNotFound(g.Err) || len(g.Parts) != 1 || g.Parts[0].State != host.StateGone {
		t.Fatalf("renamed: %+v, want gone with its copy", g)
	}
	if len(g.Suggestions) == 0 || g.Suggestions[0].Resource.URI != newURI {
		t.Fatalf("suggestions %+v, want %s first", g.Suggestions, newURI)
	}
	t.Logf("suggestions for %s:", oldURI)
	for _, s := range g.Suggestions {
		t.Logf("  %.3f %s", s.Score, s.Resource.URI)
	}
	select {
	case <-got:
		if len(restored) != 3 {
			t.Errorf("restored event with %d results, want 3", len(restored))
		}
	case <-ctx.Done():
		t.Fatal("no restored event")
	}
	parts, err := h2.Replace(ctx, oldURI, g.Suggestions[0].Resource.URI)
	if err != nil || len(parts) != 1 || parts[0].URI != newURI {
		t.Fatalf("replace: %v %+v", err, parts)
	}
	if uris := h2.AttachedURIs(); len(uris) != 3 || uris[0] != welcome || uris[1] != newURI || uris[2] != access {
		t.Errorf("after replace %v, want the new document in the old one's place", uris)
	}
}

// waitForScan waits until the server's poll of the folder has indexed the
// rename: the listing has the new URI and not the old one.
func waitForScan(t *testing.T, ctx context.Context, url, oldURI, newURI string) {
	t.Helper()
	s, err := bridge.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		l, err := s.ListResources(ctx, nil)
		if err == nil {
			has := map[string]bool{}
			for _, r := range l.Items {
				has[r.URI] = true
			}
			if has[newURI] && !has[oldURI] {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the rename was not indexed: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
