//go:build !js

package main

import (
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// contentSecurityPolicy lets the page run its own scripts and the Go wasm
// module ('wasm-unsafe-eval' allows WebAssembly compilation, not eval), talk
// to its own origin (the /mcp WebSocket included), and nothing else: no
// inline or remote script (inline styles are allowed for the page's own markup), no plugins, no framing, no <base> rewriting. Images
// may be data: and blob: URLs, which is how attachments are previewed.
const contentSecurityPolicy = "default-src 'self'; " +
	"script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; " +
	"connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// webHandler serves the demo page's assets with security headers. Go source
// files (web.go, embedded alongside) are not served.
func webHandler(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cache-Control", "no-cache")
		p := r.URL.Path
		if strings.HasSuffix(p, ".go") || strings.Contains(p, "/.") {
			http.NotFound(w, r)
			return
		}
		switch path.Ext(p) {
		case ".wasm":
			h.Set("Content-Type", "application/wasm")
		case ".js", ".mjs":
			h.Set("Content-Type", "text/javascript; charset=utf-8")
		}
		files.ServeHTTP(w, r)
	})
}
