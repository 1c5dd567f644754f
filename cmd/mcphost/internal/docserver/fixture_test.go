//go:build !js

package docserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/mcptest"
)

var updateFixtures = flag.Bool("update", false, "rewrite the fixtures generated from the sample documents")

// sampleListFixture is the input of the picker's ranking table (attach
// TestQuerySampleDocs): what this server lists by default, in listing
// order. attach cannot import this package, so it reads this file.
const sampleListFixture = "../../../../attach/testdata/sampledocs-list.json"

// TestSampleListFixture keeps attach/testdata/sampledocs-list.json equal to
// the sample documents' resources/list and resources/templates/list, as the
// product's client receives them; -update rewrites it.
func TestSampleListFixture(t *testing.T) {
	t.Parallel()
	host, _ := startDocs(t, testConfig(), "", nil)
	s := mcptest.Dial(t, host, nil)
	ctx := context.Background()
	res, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmpls, err := s.ListTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	type descriptor struct { // what the picker index reads (no size, no lastModified: it changes)
		URI         string `json:"uri,omitempty"`
		URITemplate string `json:"uriTemplate,omitempty"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mimeType,omitempty"`
	}
	var list struct {
		Resources []descriptor `json:"resources"`
		Templates []descriptor `json:"templates"`
	}
	for _, r := range res.Items {
		list.Resources = append(list.Resources, descriptor{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	for _, r := range tmpls.Items {
		list.Templates = append(list.Templates, descriptor{URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	want, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *updateFixtures {
		if err := os.WriteFile(sampleListFixture, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, err := os.ReadFile(sampleListFixture); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is stale (%v); regenerate it: go test ./cmd/mcphost/internal/docserver -run TestSampleListFixture -update", sampleListFixture, err)
	}
}
