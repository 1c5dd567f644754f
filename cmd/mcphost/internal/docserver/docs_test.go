//go:build !js

package docserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/sampledocs"
)

// TestSampleCorpus walks the embedded sample documents through every door
// with the product's client: paged listing, metadata, reads (text, blob, a
// JPEG saved as .png, the >1 MB file), the template, completion, search.
func TestSampleCorpus(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.PageSize = 5
	host, _ := startDocs(t, cfg, "", nil)
	s := mcptest.Dial(t, host, nil)
	ctx := context.Background()

	pages := 0
	list, err := s.ListResources(ctx, func(page []bridge.Resource, _ []error) {
		pages++
		if len(page) > 5 {
			t.Errorf("page of %d resources, want <= 5", len(page))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) < 10 || len(list.Items) > 30 || pages < 3 {
		t.Fatalf("listed %d resources in %d pages; want 10-30 in >= 3 pages", len(list.Items), pages)
	}
	byName := map[string]bridge.Resource{}
	for _, r := range list.Items {
		if !strings.HasPrefix(r.URI, "docs://team/") || r.Name == "" || r.Title == "" || r.MIMEType == "" ||
			r.Size == nil || *r.Size <= 0 || r.Annotations == nil || r.Annotations.LastModified == "" {
			t.Errorf("incomplete descriptor: %+v", r)
		}
		if _, err := time.Parse(time.RFC3339, r.Annotations.LastModified); err != nil {
			t.Errorf("%s: lastModified %q: %v", r.URI, r.Annotations.LastModified, err)
		}
		byName[r.Name] = r
	}
	welcome := byName["welcome.md"]
	if welcome.Title != "Welcome to the Platform team" || !strings.HasPrefix(welcome.Description, "This guide gets a new platform engineer") {
		t.Errorf("welcome.md title/description = %q / %q", welcome.Title, welcome.Description)
	}
	if r := byName["queue-dashboard.png"]; r.MIMEType != "image/jpeg" || !strings.Contains(r.Description, ".png extension") {
		t.Errorf("JPEG saved as .png: mimeType %q, description %q", r.MIMEType, r.Description)
	}
	if r := byName["system-overview.png"]; r.MIMEType != "image/png" || !strings.Contains(r.Description, "800×520") {
		t.Errorf("architecture PNG: %q %q", r.MIMEType, r.Description)
	}
	if r := byName["api-changelog.md"]; *r.Size <= 1<<20 {
		t.Errorf("large Markdown is %d bytes, want > 1 MiB", *r.Size)
	}

	for _, r := range list.Items {
		parts, err := s.ReadResource(ctx, r.URI)
		if err != nil {
			t.Errorf("read %s: %v", r.URI, err)
			continue
		}
		if len(parts) != 1 || parts[0].URI != r.URI || parts[0].MIMEType != r.MIMEType {
			t.Errorf("read %s: parts %+v", r.URI, parts)
			continue
		}
		want, err := sampledocs.FS.ReadFile(strings.TrimPrefix(r.URI, "docs://team/"))
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		switch {
		case parts[0].Text != nil && parts[0].Blob == nil:
			got = []byte(*parts[0].Text)
		case parts[0].Blob != nil && parts[0].Text == nil:
			got, _ = base64.StdEncoding.DecodeString(*parts[0].Blob)
		default:
			t.Errorf("read %s: want exactly one of text and blob", r.URI)
		}
		if string(got) != string(want) {
			t.Errorf("read %s: %d bytes differ from the file's %d", r.URI, len(got), len(want))
		}
		if strings.HasPrefix(r.MIMEType, "image/") != (parts[0].Blob != nil) {
			t.Errorf("read %s (%s): text/blob choice wrong", r.URI, r.MIMEType)
		}
	}

	tmpls, err := s.ListTemplates(ctx, nil)
	if err != nil || len(tmpls.Items) != 1 || tmpls.Items[0].URITemplate != policyTemplate {
		t.Fatalf("templates = %+v, %v", tmpls, err)
	}
	c, err := s.Complete(ctx, policyTemplate, "team", "p", nil)
	if err != nil || !slices.Equal(c.Values, []string{"payments", "platform"}) {
		t.Errorf("complete team p = %+v, %v", c, err)
	}
	c, err = s.Complete(ctx, policyTemplate, "name", "", map[string]string{"team": "payments"})
	if err != nil || !slices.Equal(c.Values, []string{"data-retention.md", "pci-dss-scope.md"}) {
		t.Errorf("complete name in payments = %+v, %v", c, err)
	}
	parts, err := s.ReadResource(ctx, "docs://team/payments/policy/data-retention.md")
	if err != nil || parts[0].Text == nil || !strings.HasPrefix(*parts[0].Text, "# Payments data retention") {
		t.Errorf("read through the template's completed URI: %v", err)
	}

	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Items {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"search_documents"}) {
		t.Errorf("tools = %v; fetch_document is only for -resource-blind clients", names)
	}
	raw, err := s.CallTool(ctx, "search_documents", map[string]any{"query": "refund backlog"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []struct {
			Type, URI, Name string
		}
	}
	json.Unmarshal(raw, &res)
	if len(res.Content) == 0 || res.Content[0].Type != "resource_link" || res.Content[0].URI != "docs://team/payments/runbook/refund-backlog.md" {
		t.Errorf("search refund backlog = %s", raw)
	}
}

// TestResourceBlindClientGetsFetch checks that fetch_document exists only for
// clientInfo.name in -resource-blind and returns the document embedded,
// byte-identical to resources/read.
func TestResourceBlindClientGetsFetch(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.ResourceBlind = []string{"other", "resource-blind-demo"}
	host, _ := startDocs(t, cfg, "", nil)
	s := mcptest.Dial(t, host, &bridge.Options{ClientInfo: bridge.Implementation{Name: "resource-blind-demo", Version: "1"}})
	ctx := context.Background()
	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var fetch *bridge.Tool
	for i := range tools.Items {
		if tools.Items[i].Name == "fetch_document" {
			fetch = &tools.Items[i]
		}
	}
	if fetch == nil {
		t.Fatalf("no fetch_document for a resource-blind client: %+v", tools.Items)
	}
	if !strings.Contains(fetch.Description, "already attached") {
		t.Errorf("fetch_document description must tell the model not to refetch attached documents: %q", fetch.Description)
	}
	uri := "docs://team/support/policy/escalation.md"
	raw, err := s.CallTool(ctx, "fetch_document", map[string]any{"uri": uri})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		IsError bool
		Content []struct {
			Type     string
			Resource bridge.ResourceContents
		}
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Type != "resource" {
		t.Fatalf("fetch_document = %s", raw)
	}
	parts, err := s.ReadResource(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Resource; got.URI != uri || got.Text == nil || *got.Text != *parts[0].Text || got.MIMEType != parts[0].MIMEType {
		t.Errorf("fetch_document %+v differs from resources/read", got)
	}
}

// TestDocsDirWatch serves a folder and checks subscriptions and list
// changes, empty-file skipping, not-found errors and path escapes.
func TestDocsDirWatch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "docs")
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		// As editors save: a new file renamed over the old (a scan never
		// sees it half written; the read after an update meets a new inode).
		tmp := p + ".tmp~"
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
	write("ops/runbook/restart.md", "# Restart\n\nHow to restart.\n")
	write("ops/policy/oncall.md", "# On-call\n\nWho is on call.\n")
	write("ops/policy/empty.md", "")
	write("ops/notes.md", "not in the layout")
	os.WriteFile(filepath.Join(root, "secret.md"), []byte("# Secret\n\noutside the root\n"), 0o644)
	if err := os.Symlink(filepath.Join(root, "secret.md"), filepath.Join(dir, "ops", "policy", "link.md")); err != nil {
		t.Fatal(err)
	}

	host, logs := startDocs(t, testConfig(), dir, nil)
	updated := make(chan string, 16)
	changed := make(chan string, 16)
	s := mcptest.Dial(t, host, &bridge.Options{
		Protocol:          bridge.ProtocolLegacy, // resources/subscribe (listens: TestModernListens)
		OnResourceUpdated: func(uri string) { updated <- uri },
		OnListChanged:     func(l string) { changed <- l },
	})
	ctx := context.Background()
	list, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Items {
		uris = append(uris, r.URI)
	}
	want := []string{"docs://team/ops/policy/oncall.md", "docs://team/ops/runbook/restart.md"}
	if !slices.Equal(uris, want) {
		t.Fatalf("listed %v, want %v (empty file, stray file and escaping symlink skipped)", uris, want)
	}
	if !strings.Contains(logs.String(), "empty file") {
		t.Errorf("the empty file was not logged as skipped")
	}

	for _, uri := range []string{
		"docs://team/ops/policy/missing.md",
		"docs://team/ops/policy/empty.md",
		"docs://team/ops/policy/link.md",
		"docs://team/ops/../../secret.md",
		"docs://team/ops/policy/..%2F..%2F..%2Fsecret.md",
		"docs://team/ops/policy/%2E%2E",
		"docs://team/ops/notes.md",
		"docs://team/ops/policy/oncall.md/",
		"file:///etc/passwd",
	} {
		_, err := s.ReadResource(ctx, uri)
		e, ok := bridge.AsError(err)
		if !ok || !bridge.IsNotFound(err) || e.Code != -32602 || string(e.Data) != `{"uri":`+jsonString(uri)+`}` {
			t.Errorf("read %s: err = %v (data %s); want -32602 not found with data.uri", uri, err, dataOf(err))
		}
	}

	if err := s.Subscribe(ctx, "docs://team/ops/policy/oncall.md"); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctx, "docs://team/ops/policy/missing.md"); !bridge.IsNotFound(err) {
		t.Errorf("subscribe to a missing document: %v, want not found", err)
	}
	write("ops/policy/oncall.md", "# On-call\n\nWho is on call, now with a rota.\n")
	if got := mcptest.WaitFor(t, updated, 5*time.Second, "resources/updated"); got != "docs://team/ops/policy/oncall.md" {
		t.Fatalf("updated %q", got)
	}
	parts, err := s.ReadResource(ctx, "docs://team/ops/policy/oncall.md")
	if err != nil || !strings.Contains(*parts[0].Text, "rota") {
		t.Fatalf("read after update: %v", err)
	}
	drain(changed) // the changed descriptor (size, lastModified) may announce a list change

	write("ops/runbook/new.md", "# New\n\nA new runbook.\n")
	mcptest.WaitFor(t, changed, 5*time.Second, "list_changed after adding a file")
	if _, err := s.ReadResource(ctx, "docs://team/ops/runbook/new.md"); err != nil {
		t.Fatalf("read the added file: %v", err)
	}
	os.Remove(filepath.Join(dir, "ops", "runbook", "new.md"))
	mcptest.WaitFor(t, changed, 5*time.Second, "list_changed after removing a file")
	if _, err := s.ReadResource(ctx, "docs://team/ops/runbook/new.md"); !bridge.IsNotFound(err) {
		t.Fatalf("read the removed file: %v, want not found", err)
	}

	// Deleting a subscribed document tells its subscribers at once.
	drain(updated)
	os.Remove(filepath.Join(dir, "ops", "policy", "oncall.md"))
	if got := mcptest.WaitFor(t, updated, 5*time.Second, "resources/updated after deleting a subscribed file"); got != "docs://team/ops/policy/oncall.md" {
		t.Fatalf("updated %q", got)
	}
}

func drain[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		case <-time.After(200 * time.Millisecond):
			return
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func dataOf(err error) string {
	if e, ok := bridge.AsError(err); ok {
		return string(e.Data)
	}
	return ""
}
