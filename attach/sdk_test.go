package attach

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests catch drift between this package's wire-shaped types and
// go-sdk's (the reference implementation): whatever go-sdk marshals must
// decode here with the same meaning, and back.

func TestSDKResourceContentsRoundTrip(t *testing.T) {
	png := readFixture(t, "image.png")
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: "mem://t", MIMEType: "text/markdown", Text: "# hi", Meta: mcp.Meta{"k": "v"}},
		{URI: "mem://b", MIMEType: "image/png", Blob: png},
		{URI: "mem://empty", MIMEType: "text/plain", Text: ""}, // omitempty: neither payload on the wire
	}}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := DecodeContents(raw)
	if err != nil {
		t.Fatalf("DecodeContents(%s): %v", raw, err)
	}
	if len(cs) != 3 || cs[0].Text == nil || *cs[0].Text != "# hi" || cs[0].Blob != nil || cs[0].MIMEType != "text/markdown" {
		t.Fatalf("text part = %v", cs[0])
	}
	if !bytes.Equal(cs[0].Meta, []byte(`{"k":"v"}`)) {
		t.Errorf("_meta = %s", cs[0].Meta)
	}
	if cs[2].Text != nil || cs[2].Blob != nil {
		t.Errorf("go-sdk empty text arrived as %v; the neither-payload rule assumes it has no payload", cs[2])
	}
	atts := FromContents(cs, nil)
	if !bytes.Equal(atts[1].Bytes, png) || !atts[1].ForwardAsImage {
		t.Errorf("blob part: %d bytes, forward %v", len(atts[1].Bytes), atts[1].ForwardAsImage)
	}
	if atts[2].Kind != KindError || atts[2].Error.Code != CodeNeitherPayload {
		t.Errorf("empty go-sdk text: %+v", atts[2])
	}
	// And back: our Contents marshal into go-sdk's type.
	for i, c := range cs[:2] {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back mcp.ResourceContents
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("part %d: go-sdk cannot read %s: %v", i, b, err)
		}
		if back.URI != res.Contents[i].URI || back.Text != res.Contents[i].Text || !bytes.Equal(back.Blob, res.Contents[i].Blob) {
			t.Errorf("part %d did not round-trip: %+v", i, back)
		}
	}
}

func TestSDKResourceRoundTrip(t *testing.T) {
	in := &mcp.Resource{
		URI: "docs://a.md", Name: "a", Title: "A doc", Description: "d", MIMEType: "text/markdown", Size: 1234,
		Icons:       []mcp.Icon{{Source: "https://x.example/i.png", MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "dark"}},
		Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.7, LastModified: "2025-01-12T15:00:58Z"},
		Meta:        mcp.Meta{"x": 1.0},
	}
	raw, _ := json.Marshal(in)
	var r Resource
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.URI != in.URI || r.Name != in.Name || r.Title != in.Title || r.Description != in.Description ||
		r.MIMEType != in.MIMEType || r.Size == nil || *r.Size != 1234 {
		t.Errorf("resource = %+v", r)
	}
	if len(r.Icons) != 1 || r.Icons[0].Src != "https://x.example/i.png" || r.Icons[0].Theme != "dark" || r.Icons[0].Sizes[0] != "48x48" {
		t.Errorf("icons = %+v", r.Icons)
	}
	if a := r.Annotations; a == nil || a.Priority == nil || *a.Priority != 0.7 || a.Audience[0] != "user" || a.LastModified != in.Annotations.LastModified {
		t.Errorf("annotations = %+v", a)
	}
	back, _ := json.Marshal(r)
	var out mcp.Resource
	if err := json.Unmarshal(back, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&out, in) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, *in)
	}

	tin := &mcp.ResourceTemplate{URITemplate: "docs://team/{team}", Name: "t", Title: "T", MIMEType: "text/markdown",
		Annotations: &mcp.Annotations{Priority: 0.2}}
	raw, _ = json.Marshal(tin)
	var tr ResourceTemplate
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.URITemplate != tin.URITemplate || tr.Name != "t" || tr.Title != "T" || *tr.Annotations.Priority != 0.2 {
		t.Errorf("template = %+v", tr)
	}
	// go-sdk's omitempty drops priority 0: it must arrive as absent, not 0.
	raw, _ = json.Marshal(&mcp.Resource{URI: "u", Name: "n", Annotations: &mcp.Annotations{Priority: 0}})
	var z Resource
	_ = json.Unmarshal(raw, &z)
	if z.Annotations == nil || z.Annotations.Priority != nil {
		t.Errorf("priority 0 from go-sdk: %+v", z.Annotations)
	}
}
