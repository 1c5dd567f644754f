module github.com/mcphost/mcphost

go 1.26.0

require (
	github.com/coder/websocket v1.8.15
	github.com/gabriel-vasile/mimetype v1.4.16
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/segmentio/encoding v0.5.4
	github.com/yuin/goldmark v1.8.7
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
