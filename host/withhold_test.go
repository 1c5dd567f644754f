//go:build !js

package host_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// png1x1 is a valid 1×1 PNG: 70 bytes, so ⌈70/4⌉ = 18 tokens.
const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// addContents serves one resource whose read returns c (its uri is set).
func addContents(d *docServer, r *mcp.Resource, c mcp.ResourceContents) {
	c.URI = r.URI
	d.AddResource(r, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		cc := c
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{&cc}}, nil
	})
}

func pngBytes(t *testing.T) []byte {
	b, err := base64.StdEncoding.DecodeString(png1x1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSizeRule: a part over MaxModelTokens (estimated as ⌈bytes/4⌉, images
// included) and an MCP App view are attached withheld: forModel false, with
// a warning naming why and host.include; a part at the bound is not.
func TestSizeRule(t *testing.T) {
	d, url := newDocServer(t, map[string]string{
		"docs://40":     strings.Repeat("x", 40), // 10 tokens
		"docs://41":     strings.Repeat("x", 41), // 11 tokens
		"docs://400000": strings.Repeat("y", 400_000),
		"docs://400001": strings.Repeat("y", 400_001),
	})
	addContents(d, &mcp.Resource{URI: "docs://img.png", Name: "img", MIMEType: "image/png"},
		mcp.ResourceContents{MIMEType: "image/png", Blob: pngBytes(t)})
	addContents(d, &mcp.Resource{URI: "ui://viewer/app.html", Name: "viewer", MIMEType: "text/html;profile=mcp-app",
		Meta: mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"https://listed.example"}}}}},
		mcp.ResourceContents{MIMEType: "text/html;profile=mcp-app", Text: "<!doctype html><p>app</p>",
			Meta: mcp.Meta{"ui": map[string]any{"permissions": map[string]any{"camera": map[string]any{}}}}})
	addContents(d, &mcp.Resource{URI: "ui://viewer/bare.html", Name: "bare", MIMEType: "text/html;profile=mcp-app",
		Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": true}}},
		mcp.ResourceContents{MIMEType: "Text/HTML; charset=utf-8; Profile=MCP-App", Text: "<!doctype html><p>app</p>"})
	for _, tc := range []struct {
		name     string
		max      int64
		uri      string
		withheld string
		warn     string // a substring of the warning; "" when none is expected
		ui       string
	}{
		{"text at the bound", 10, "docs://40", "", "", ""},
		{"text just over", 10, "docs://41", host.WithheldTooLarge, `about 11 tokens (estimated as bytes / 4), over maxModelTokens (10); attached but not sent to the model: host.include("docs://41") sends it anyway`, ""},
		{"image at the bound", 18, "docs://img.png", "", "", ""},
		{"image just over", 17, "docs://img.png", host.WithheldTooLarge, "about 18 tokens", ""},
		{"default bound, at it", 0, "docs://400000", "", "", ""},
		{"default bound, just over", 0, "docs://400001", host.WithheldTooLarge, "over maxModelTokens (100000)", ""},
		{"no bound", -1, "docs://400001", "", "", ""},
		{"MCP App view", -1, "ui://viewer/app.html", host.WithheldMCPApp,
			`an MCP App view (text/html;profile=mcp-app): interactive UI for the host to render in a sandbox, not text for the model; attached but not sent to the model: host.include("ui://viewer/app.html")`,
			`{"permissions":{"camera":{}}}`},
		{"MCP App view, _meta.ui from the listing", 0, "ui://viewer/bare.html", host.WithheldMCPApp,
			"(Text/HTML; charset=utf-8; Profile=MCP-App)", `{"prefersBorder":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := connect(t, url, &host.Options{MaxModelTokens: tc.max})
			if _, _, err := h.Resources(context.Background()); err != nil {
				t.Fatal(err)
			}
			parts, err := h.Attach(context.Background(), tc.uri)
			if err != nil {
				t.Fatal(err)
			}
			p := parts[0]
			if p.Withheld != tc.withheld || host.ForModel(&p) != (tc.withheld == "") {
				t.Fatalf("withheld %q forModel %v, want %q", p.Withheld, host.ForModel(&p), tc.withheld)
			}
			warned := strings.Join(p.Warnings, "\n")
			if tc.warn != "" && !strings.Contains(warned, tc.warn) || tc.warn == "" && strings.Contains(warned, "model") {
				t.Errorf("warnings %q, want one containing %q", p.Warnings, tc.warn)
			}
			if string(p.UI) != tc.ui || p.MCPApp != (tc.withheld == host.WithheldMCPApp) {
				t.Errorf("ui %s mcpApp %v, want %s", p.UI, p.MCPApp, tc.ui)
			}
			if tc.uri == "docs://img.png" && !p.ForwardAsImage {
				t.Errorf("the image is not forwardAsImage: %q", p.Warnings)
			}
			if got := h.Attachments()[0]; got.Withheld != p.Withheld {
				t.Errorf("Attachments() says withheld %q", got.Withheld)
			}
		})
	}
}

// TestInclude: Include flips a withheld document to forModel, the flip
// survives updates and re-reads, the filter then counts it as in the
// context, and Detach ends it. A URI not attached is refused.
func TestInclude(t *testing.T) {
	const u = "docs://big.md"
	big := strings.Repeat("z", 41)
	d, url := newDocServer(t, map[string]string{u: big})
	mcp.AddTool(d.Server, &mcp.Tool{Name: "fetch"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		d.mu.Lock()
		text := d.docs[u]
		d.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: u, MIMEType: "text/markdown", Text: text}},
			&mcp.TextContent{Text: "fetched"},
		}}, nil, nil
	})
	h, rec := connect(t, url, &host.Options{MaxModelTokens: 10})
	ctx := context.Background()

	_, err := h.Include(ctx, "docs://nope.md")
	if be, ok := bridge.AsError(err); !ok || be.Kind != bridge.KindInvalid || !strings.Contains(err.Error(), `"docs://nope.md"`) {
		t.Fatalf("Include of a URI not attached: %v", err)
	}

	parts, err := h.Attach(ctx, u)
	if err != nil || parts[0].Withheld != host.WithheldTooLarge {
		t.Fatalf("attach: %v %+v", err, parts)
	}
	// Withheld: a tool result embedding the same copy is not a duplicate.
	tr, err := h.CallTool(ctx, "fetch", struct{}{})
	if err != nil || len(tr.Dropped) != 0 || !strings.Contains(string(tr.Result), big) {
		t.Fatalf("tool result with a withheld document: %+v %v", tr, err)
	}
	if p := h.Attached(u)[0]; p.State != host.StateFresh {
		t.Fatalf("state %s after the tool result", p.State)
	}

	parts, err = h.Include(ctx, u)
	if err != nil || parts[0].Withheld != "" || !host.ForModel(&parts[0]) {
		t.Fatalf("include: %v %+v", err, parts)
	}
	if w := strings.Join(parts[0].Warnings, "\n"); !strings.Contains(w, "over maxModelTokens (10); sent to the model anyway (host.include)") || strings.Contains(w, "not sent") {
		t.Fatalf("warnings after include: %q", parts[0].Warnings)
	}
	if p := h.Attached(u)[0]; !host.ForModel(&p) {
		t.Fatal("Attached() still withheld")
	}

	// An update keeps it included.
	d.set(u, strings.Repeat("w", 50))
	e := rec.wait(t, host.EventUpdated, u)
	if e.Parts[0].Withheld != "" || !host.ForModel(&e.Parts[0]) {
		t.Fatalf("updated parts withheld again: %+v", e.Parts[0].Warnings)
	}
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if p := h.Attached(u)[0]; !host.ForModel(&p) {
		t.Fatal("withheld again after a refresh")
	}
	// Now in the context: the tool result's copy is a duplicate.
	tr, err = h.CallTool(ctx, "fetch", struct{}{})
	if err != nil || len(tr.Dropped) != 1 || tr.Dropped[0].Reason != "duplicate" {
		t.Fatalf("tool result with an included document: %+v %v", tr, err)
	}

	// Detach ends it: attached again, it is withheld again.
	h.Detach(u)
	parts, err = h.Attach(ctx, u)
	if err != nil || parts[0].Withheld != host.WithheldTooLarge {
		t.Fatalf("re-attach after detach: %v %+v", err, parts)
	}
	// Include is idempotent and harmless on parts that were never withheld.
	if _, err := h.Include(ctx, u); err != nil {
		t.Fatal(err)
	}
	if parts, err = h.Include(ctx, u); err != nil || !host.ForModel(&parts[0]) {
		t.Fatalf("second include: %v", err)
	}
}

func TestHint(t *testing.T) {
	d, url := newDocServer(t, map[string]string{})
	_ = d
	h, _ := connect(t, url, &host.Options{MaxModelTokens: 10})
	size := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name, uri, mime string
		size            *int64
		tokens          int64
		withheld        string
	}{
		{"no size", "docs://a", "text/plain", nil, -1, ""},
		{"at the bound", "docs://a", "text/plain", size(40), 10, ""},
		{"over", "docs://a", "text/plain", size(41), 11, host.WithheldTooLarge},
		{"image over", "docs://a.png", "image/png", size(70), 18, host.WithheldTooLarge},
		{"ui uri", "ui://v", "", size(4), 1, host.WithheldMCPApp},
		{"app type, large", "docs://v", "text/html; profile=mcp-app", size(4_300_000), 1_075_000, host.WithheldMCPApp},
		{"ui template", "ui://charts/{id}", "", nil, -1, host.WithheldMCPApp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tokens, withheld := h.Hint(tc.uri, tc.mime, tc.size)
			if tokens != tc.tokens || withheld != tc.withheld {
				t.Errorf("Hint = %d, %q; want %d, %q", tokens, withheld, tc.tokens, tc.withheld)
			}
		})
	}
}

func TestToolUI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, meta, ui string
		visible        bool
	}{
		{"no meta", ``, "", true},
		{"no ui", `{"x":1}`, "", true},
		{"app only", `{"ui":{"resourceUri":"ui://v","visibility":["app"]}}`, `{"resourceUri":"ui://v","visibility":["app"]}`, false},
		{"model and app", `{"ui":{"resourceUri":"ui://v","visibility":["model","app"]}}`, `{"resourceUri":"ui://v","visibility":["model","app"]}`, true},
		{"model only", `{"ui":{"visibility":["model"]}}`, `{"visibility":["model"]}`, true},
		{"empty visibility", `{"ui":{"visibility":[]}}`, `{"visibility":[]}`, false},
		{"default visibility", `{"ui":{"resourceUri":"ui://v"}}`, `{"resourceUri":"ui://v"}`, true},
		{"malformed visibility", `{"ui":{"visibility":"app"}}`, `{"visibility":"app"}`, true},
		{"deprecated flat resourceUri", `{"ui/resourceUri":"ui://old"}`, `{"resourceUri":"ui://old"}`, true},
		{"ui wins over the flat key", `{"ui":{"visibility":["app"]},"ui/resourceUri":"ui://old"}`, `{"visibility":["app"]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ui, visible := host.ToolUI(json.RawMessage(tc.meta))
			if string(ui) != tc.ui || visible != tc.visible {
				t.Errorf("ToolUI(%s) = %s, %v; want %s, %v", tc.meta, ui, visible, tc.ui, tc.visible)
			}
		})
	}
}
