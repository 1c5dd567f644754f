package bridge

import (
	"encoding/json"

	"github.com/mcphost/mcphost/internal/blob"
)

// Wire types for the resource side of MCP 2025-11-25. They keep only what a
// host needs and tolerate unknown keys (go-sdk adds ttlMs and cacheScope even
// at 2025-11-25). They are cross-checked against go-sdk's mcp types in tests.

// Implementation identifies a client or server (clientInfo, serverInfo).
type Implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
}

// An Icon is an untrusted image reference; render only https: and data: sources.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Annotations are hints on resources, templates and content blocks.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// A Resource is one entry of resources/list. URI and Name are required.
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// A ResourceTemplate is one entry of resources/templates/list (RFC 6570).
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceContents is one part of a resources/read result. Text and Blob are
// pointers so that absence is kept apart from the empty string: a part with
// neither or both is passed on as-is for the attach package to judge.
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     *string         `json:"text,omitempty"`
	Blob     *string         `json:"blob,omitempty"` // standard base64, as on the wire
	Meta     json.RawMessage `json:"_meta,omitempty"`
	// Held is the blob's bytes when the browser kept them (internal/blob):
	// Blob is then the token that stood in for the base64 on the wire.
	Held *blob.Ref `json:"-"`
}

// A Tool is one entry of tools/list. Schemas stay raw JSON.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Icons        []Icon          `json:"icons,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// ServerCapabilities is the part of the server's capabilities the client
// gates on; Raw keeps the whole object for the host.
type ServerCapabilities struct {
	Resources *struct {
		Subscribe   bool `json:"subscribe,omitempty"`
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"resources,omitempty"`
	Tools *struct {
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"tools,omitempty"`
	Prompts *struct {
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"prompts,omitempty"`
	Completions *struct{} `json:"completions,omitempty"`
	Logging     *struct{} `json:"logging,omitempty"`
}

// InitializeResult is the server's answer to initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"-"`
	RawCapabilities json.RawMessage    `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// Completion is the result of completion/complete.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}
