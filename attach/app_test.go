package attach

import (
	"encoding/json"
	"testing"
)

func TestIsMCPApp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, uri, mime string
		want            bool
	}{
		{"ui scheme", "ui://pdf-viewer/mcp-app.html", "", true},
		{"ui scheme any case", "UI://Viewer", "text/plain", true},
		{"ui template", "ui://charts/{id}", "", true},
		{"profile", "docs://a", "text/html;profile=mcp-app", true},
		{"profile with other params", "docs://a", "text/html; charset=utf-8; profile=mcp-app", true},
		{"case of type, name and value", "docs://a", "Text/HTML; PROFILE=MCP-App", true},
		{"quoted profile", "docs://a", `text/html;profile="mcp-app"`, true},
		{"one of several profiles", "docs://a", `text/html; profile="https://example.com/p mcp-app"`, true},
		{"plain html", "docs://a", "text/html", false},
		{"other profile", "docs://a", "text/html;profile=mcp-apps", false},
		{"profile on another type", "docs://a", "text/plain;profile=mcp-app", false},
		{"mcp-app elsewhere", "docs://mcp-app", "text/html;charset=mcp-app", false},
		{"ui without slashes", "ui:x", "", false},
		{"uix scheme", "uix://a", "", false},
		{"malformed type", "docs://a", "text/html;profile", false},
		{"empty", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsMCPApp(tc.uri, tc.mime); got != tc.want {
				t.Errorf("IsMCPApp(%q, %q) = %v, want %v", tc.uri, tc.mime, got, tc.want)
			}
		})
	}
}

func TestUIMeta(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, meta, want string }{
		{"object", `{"ui":{"csp":{"connectDomains":["https://a"]},"permissions":{"camera":{}}},"x":1}`, `{"csp":{"connectDomains":["https://a"]},"permissions":{"camera":{}}}`},
		{"absent", `{"x":{"ui":1}}`, ""},
		{"not an object", `{"ui":"x"}`, ""},
		{"null", `{"ui":null}`, ""},
		{"malformed meta", `{"ui":`, ""},
		{"no meta", ``, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(UIMeta(json.RawMessage(tc.meta))); got != tc.want {
				t.Errorf("UIMeta(%s) = %s, want %s", tc.meta, got, tc.want)
			}
		})
	}
}

// TestMCPAppParts: an MCP App part is marked, keeps its full declared type
// (the profile parameter survives in mimeType, not only declaredMimeType)
// and its _meta.ui; other parts are untouched.
func TestMCPAppParts(t *testing.T) {
	t.Parallel()
	html := "<!doctype html><html><body><script>app()</script></body></html>"
	b64 := "PCFkb2N0eXBlIGh0bWw+PGh0bWw+PGJvZHk+eDwvYm9keT48L2h0bWw+" // <!doctype html><html><body>x</body></html>
	meta := json.RawMessage(`{"ui":{"csp":{"resourceDomains":["https://cdn.example"]},"permissions":{"clipboardWrite":{}},"prefersBorder":true}}`)
	for _, tc := range []struct {
		name     string
		c        Contents
		app      bool
		mime, ui string
	}{
		{"ui uri and profile", Contents{URI: "ui://v/app.html", MIMEType: "text/html;profile=mcp-app", Text: &html, Meta: meta},
			true, "text/html;profile=mcp-app", string(UIMeta(meta))},
		{"profile among params, any case", Contents{URI: "docs://v", MIMEType: " Text/HTML; charset=utf-8; Profile=MCP-APP ", Text: &html},
			true, "Text/HTML; charset=utf-8; Profile=MCP-APP", ""},
		{"ui uri, plain html", Contents{URI: "ui://v", MIMEType: "text/html", Text: &html, Meta: meta},
			true, "text/html", string(UIMeta(meta))},
		{"ui uri, no type", Contents{URI: "ui://v", Text: &html}, true, "text/plain", ""},
		{"blob app", Contents{URI: "ui://v/b", MIMEType: "text/html;profile=mcp-app", Blob: &b64, Meta: meta},
			true, "text/html;profile=mcp-app", string(UIMeta(meta))},
		{"ordinary html", Contents{URI: "docs://page", MIMEType: "text/html;charset=utf-8", Text: &html, Meta: meta},
			false, "text/html", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := FromContents([]Contents{tc.c}, nil)[0]
			if a.Kind == KindError {
				t.Fatal(a.Error)
			}
			if a.MCPApp != tc.app || a.MIMEType != tc.mime || string(a.UI) != tc.ui {
				t.Errorf("got mcpApp %v mimeType %q ui %s; want %v %q %s", a.MCPApp, a.MIMEType, a.UI, tc.app, tc.mime, tc.ui)
			}
			if a.DeclaredMIMEType != tc.c.MIMEType || string(a.Meta) != string(tc.c.Meta) {
				t.Errorf("declared %q, _meta %s: not kept", a.DeclaredMIMEType, a.Meta)
			}
			if a.Withheld != "" {
				t.Errorf("Withheld %q: the host's decision, not attach's", a.Withheld)
			}
		})
	}
}
