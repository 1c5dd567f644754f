// The benchmark programs: the scripted peer of the side-by-side browser
// bench (make bench) and the size attribution tool (make size). A module of
// its own, so that what only they need stays out of the main module.
module github.com/mcphost/mcphost/bench

go 1.26.0

require (
	github.com/coder/websocket v1.8.15
	github.com/mcphost/mcphost v0.0.0-00010101000000-000000000000
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/mcphost/mcphost => ../
