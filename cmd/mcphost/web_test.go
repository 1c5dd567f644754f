//go:build !js

package main

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// The gzip cache holds an entry per compressible file served, and no more:
// GETs of missing .js, .mjs and .wasm names (each of which used to add an
// entry: 20,000 of 16 KB names took the process to 533 MB) are 404 and
// leave it as it was; the files themselves are still served compressed.
func TestStaticCacheBoundedByFiles(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"index.html":      {Data: []byte("<!doctype html>")},
		"mcphost.js":      {Data: []byte(strings.Repeat("export const x = 1\n", 100))},
		"mcphost.wasm":    {Data: []byte("\x00asm\x01\x00\x00\x00")},
		"mention/list.js": {Data: []byte("export {}\n")},
		"demo.css":        {Data: []byte("body{}")},
	}
	h := webHandler(fsys)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	get := func(p string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	long := strings.Repeat("x", 4<<10)
	for i := range 3000 {
		p := "/missing-" + strconv.Itoa(i) + []string{".js", ".mjs", ".wasm"}[i%3]
		if i%100 == 0 {
			p = "/" + long + strconv.Itoa(i) + ".js"
		}
		if resp, _ := get(p); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %.40s: %d, want 404", p, resp.StatusCode)
		}
	}
	if got := len(h.gz.m); got != 3 {
		t.Errorf("the gzip cache has %d entries after 3,000 missing names, want 3 (the compressible files)", got)
	}
	for _, p := range []string{"/mcphost.js", "/mention/list.js", "/mcphost.wasm"} {
		resp, body := get(p)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s: %d, Content-Encoding %q", p, resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := io.ReadAll(zr); err != nil || string(plain) != string(fsys[p[1:]].Data) {
			t.Errorf("GET %s: body differs (%v)", p, err)
		}
	}
}

// A folder is served as its index.html or not at all: GET /test/ used to
// list the test page's files and /mention/ the picker's modules. The files
// themselves are still served (e2e loads /test/api.html from mcphost).
func TestNoDirectoryListings(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.noWeb = false
	host, _ := startServer(t, cfg)
	for p, want := range map[string]int{
		"/": 200, "/test/": 404, "/test": 404, "/mention/": 404, "/mention": 404, "/test/api.html": 200,
		"/mention/list.js": 200, "/mcphost.js": 200, "/test/?C=M;O=D": 404, "/nope/": 404,
	} {
		resp, err := http.Get("http://" + host + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", p, resp.StatusCode, want)
		}
		if want == 404 && (strings.Contains(string(body), "<a href") || strings.Contains(string(body), ".js")) {
			t.Errorf("GET %s lists files: %.200s", p, body)
		}
	}

	// A folder with an index.html is served as it.
	srv := httptest.NewServer(webHandler(fstest.MapFS{
		"docs/index.html": {Data: []byte("docs index")},
		"docs/a.js":       {Data: []byte("export {}")},
	}))
	t.Cleanup(srv.Close)
	for p, want := range map[string]string{"/docs/": "docs index", "/": "404 page not found\n"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != want {
			t.Errorf("GET %s: %d %q, want %q", p, resp.StatusCode, body, want)
		}
	}
}
