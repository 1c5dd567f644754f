//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
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
//
// The wasm module (7.6 MB raw) and the JS files go out gzip-compressed to
// clients that accept it (the module shrinks to ~1.9 MB): compressed once,
// on first request, and kept. The module goes out as brotli (~1.4 MB, 27%
// less than gzip) to clients that accept br, when `make wasm` left its
// brotli copy beside it (see [brotliName]): Go has no brotli encoder, and
// brotli's best level takes ~10 s, too long for a first request.
//
// They carry a strong ETag (of their bytes, and of the encoding) with
// Cache-Control: no-cache: the browser keeps them and revalidates each load
// (304 when unchanged, since the names are not versioned). A module served
// from the HTTP cache lets Chromium reuse the code it compiled from it
// (its wasm code cache), so a second visit skips most of the compile;
// without a validator every load was a full download and compile.
//
// A folder is served only as its index.html: one without (web/test/,
// web/mention/) is 404, never a listing of its files.
func webHandler(fsys fs.FS) *staticHandler {
	return &staticHandler{fsys: fsys, files: http.FileServerFS(fsys), gz: newGzipCache(fsys)}
}

// A staticHandler is [webHandler]'s answer.
type staticHandler struct {
	fsys  fs.FS
	files http.Handler
	gz    *gzipCache
}

func (s *staticHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	if strings.HasSuffix(p, "/") {
		// The file server would list a folder without index.html.
		if _, err := fs.Stat(s.fsys, path.Join(".", p, "index.html")); err != nil {
			http.NotFound(w, r)
			return
		}
	}
	switch path.Ext(p) {
	case ".wasm":
		h.Set("Content-Type", "application/wasm")
	case ".js", ".mjs":
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	}
	if e := s.gz.entry(strings.TrimPrefix(p, "/")); e != nil {
		h.Set("Vary", "Accept-Encoding")
		if e.ok && e.br != nil && accepts(r, "br") {
			serveEncoded(w, r, "br", e.brTag, e.br)
			return
		}
		if e.ok && accepts(r, "gzip") {
			serveEncoded(w, r, "gzip", e.gzTag, e.data)
			return
		}
		if e.ok {
			h.Set("ETag", e.tag) // the file server answers If-None-Match with it
		}
	}
	s.files.ServeHTTP(w, r)
}

// serveEncoded answers with data, the file in the given content coding,
// whose ETag is tag (304 when If-None-Match lists it).
func serveEncoded(w http.ResponseWriter, r *http.Request, coding, tag string, data []byte) {
	h := w.Header()
	h.Set("Content-Encoding", coding)
	h.Set("ETag", tag)
	if etagMatch(r.Header.Get("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(data)))
	if r.Method != http.MethodGet {
		return
	}
	// In pieces, as the file server writes: the write deadline moves with
	// each (withDeadline), so a slow link that keeps reading gets it all.
	for len(data) > 0 {
		n := min(len(data), 32<<10)
		if _, err := w.Write(data[:n]); err != nil {
			return
		}
		data = data[n:]
	}
}

// accepts reports whether Accept-Encoding lists coding with a non-zero q.
func accepts(r *http.Request, coding string) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), coding) {
			continue
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			q, err := strconv.ParseFloat(v, 64)
			return err == nil && q > 0
		}
		return true
	}
	return false
}

// gzipCache holds gzip-compressed copies of embedded files. The embedded
// FS never changes, so an entry is computed once. Its entries are made at
// start, one per compressible file of the FS, and a name of no file has
// none: requests for missing names (each made an entry before) cannot
// grow it.
type gzipCache struct {
	fsys fs.FS
	m    map[string]*gzipEntry // read-only after newGzipCache
}

// compressible reports whether a file named name goes out compressed.
func compressible(name string) bool {
	ext := path.Ext(name)
	return ext == ".wasm" || ext == ".js" || ext == ".mjs"
}

func newGzipCache(fsys fs.FS) *gzipCache {
	c := &gzipCache{fsys: fsys, m: map[string]*gzipEntry{}}
	fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && compressible(name) {
			c.m[name] = &gzipEntry{}
		}
		return nil
	})
	return c
}

type gzipEntry struct {
	once  sync.Once
	data  []byte
	ok    bool
	tag   string // the ETag of the file's bytes
	gzTag string // and of its gzip encoding
	br    []byte // the file's brotli encoding, when one was built for these bytes
	brTag string
}

// brotliName is where `make wasm` puts a file's brotli encoding: beside it,
// named by the first 12 bytes of the SHA-256 of the bytes it encodes, in
// hex (the ETag's digits). A copy left from an earlier build has another
// name and is never served for the new bytes.
func brotliName(name string, sum [sha256.Size]byte) string {
	return name + "." + hex.EncodeToString(sum[:12]) + ".br"
}

// etagMatch reports whether an If-None-Match header lists tag (or is "*").
// Weak comparison, as RFC 9110 asks for If-None-Match.
func etagMatch(header, tag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// entry returns name's compressed copy and ETags, computed once; nil for a
// name that is not a compressible file of the FS.
func (c *gzipCache) entry(name string) *gzipEntry {
	e := c.m[name]
	if e == nil {
		return nil
	}
	e.once.Do(func() {
		raw, err := fs.ReadFile(c.fsys, name)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(raw)
		if zw.Close() == nil {
			sum := sha256.Sum256(raw)
			tag := hex.EncodeToString(sum[:12])
			e.data, e.ok = buf.Bytes(), true
			e.tag, e.gzTag = `"`+tag+`"`, `"`+tag+`-gzip"`
			if br, err := fs.ReadFile(c.fsys, brotliName(name, sum)); err == nil && len(br) > 0 {
				e.br, e.brTag = br, `"`+tag+`-br"`
			}
		}
	})
	return e
}
