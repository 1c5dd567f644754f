// Package web holds the demo page's static assets: the HTML, the ES modules
// (mcphost.js and the render Worker it starts, render-worker.js, which must
// be served next to it), the wasm module (mcphost.wasm) and Go's
// wasm_exec.js, which `make wasm` builds into this directory before the
// mcphost binary is built, so the binary embeds whatever is here at build
// time.
package web

import "embed"

// FS is every file of this directory except names starting with "." or "_"
// (embed's rule). It also holds this source file; servers should not serve
// *.go files.
//
//go:embed *
var FS embed.FS
