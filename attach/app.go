package attach

import (
	"bytes"
	"encoding/json"
	"mime"
	"strings"
)

// MCPAppMIMEType is the media type of an MCP App view (the MCP Apps
// extension, io.modelcontextprotocol/ui).
const MCPAppMIMEType = "text/html;profile=mcp-app"

// IsMCPApp reports whether a resource is an MCP App view: interactive UI
// for the host to render in a sandbox, not text for a model. It is one when
// its URI has the ui scheme ("ui://...", any case) or its type is text/html
// with a profile parameter naming mcp-app (parameter name and value in any
// case, quoted or not, among other parameters and profiles). uri may be a
// URI template.
func IsMCPApp(uri, mimeType string) bool {
	if len(uri) >= 5 && strings.EqualFold(uri[:5], "ui://") {
		return true
	}
	if len(mimeType) < len(MCPAppMIMEType) || !strings.Contains(strings.ToLower(mimeType), "mcp-app") {
		return false
	}
	ess, params, err := mime.ParseMediaType(mimeType)
	if err != nil || ess != "text/html" {
		return false
	}
	for _, p := range strings.Fields(params["profile"]) {
		if strings.EqualFold(p, "mcp-app") {
			return true
		}
	}
	return false
}

// UIMeta returns the "ui" member of a _meta object (an MCP App's CSP,
// permissions, domain and prefersBorder on a resource; resourceUri and
// visibility on a tool), or nil when there is none or it is not an object.
func UIMeta(meta json.RawMessage) json.RawMessage {
	if !bytes.Contains(meta, []byte(`"ui"`)) {
		return nil
	}
	var m struct {
		UI json.RawMessage `json:"ui"`
	}
	if json.Unmarshal(meta, &m) != nil || len(m.UI) == 0 || m.UI[0] != '{' {
		return nil
	}
	return m.UI
}

// markApp marks an MCP App part: its _meta.ui is kept apart, and its
// effective type is the full declared one (text/html;profile=mcp-app) when
// the bytes are HTML, so the parameter is not lost.
func markApp(a *Attachment, c *Contents) {
	if !IsMCPApp(c.URI, c.MIMEType) {
		return
	}
	a.MCPApp = true
	a.UI = UIMeta(c.Meta)
	if a.MIMEType == "text/html" && essence(c.MIMEType) == "text/html" {
		a.MIMEType = strings.TrimSpace(c.MIMEType)
	}
}
