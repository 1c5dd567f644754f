package attach

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const xssDir = "../testdata/xss"

// xssCorpus returns the corpus vectors by file name.
func xssCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(xssDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		if filepath.Base(f) == "README.md" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// TestXSSCorpus renders every vector with and without an http base and
// with remote images on and off; each output must satisfy checkSafeHTML.
func TestXSSCorpus(t *testing.T) {
	corpus := xssCorpus(t)
	if len(corpus) < 100 {
		t.Fatalf("corpus has %d vectors, want at least 100", len(corpus))
	}
	names := make([]string, 0, len(corpus))
	for n := range corpus {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		src := corpus[name]
		if !strings.Contains(string(src), "__xss") && !strings.Contains(string(src), "base64,") {
			t.Errorf("%s: vector does not call window.__xss()", name)
		}
		for _, base := range []string{"", "https://docs.example/a/b.md", "file:///x.md"} {
			for _, remote := range []bool{false, true} {
				out, err := RenderMarkdown(src, base, remote)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := checkSafeHTML(out); err != nil {
					t.Errorf("%s (base %q, remoteImages %v): %v\noutput: %s", name, base, remote, err, out)
				}
			}
		}
	}
}

// TestCheckerCatchesUnsafeHTML proves the property is not vacuous: raw
// vectors, inserted without the renderer, fail it.
func TestCheckerCatchesUnsafeHTML(t *testing.T) {
	bad := []string{
		`<img src=x onerror="window.__xss()">`,
		`<script>window.__xss()</script>`,
		`<a href="javascript:window.__xss()" rel="noopener noreferrer nofollow">x</a>`,
		`<a href="jav&#x09;ascript:window.__xss()" rel="noopener noreferrer nofollow">x</a>`,
		`<a href=" JAVASCRIPT:window.__xss()" rel="noopener noreferrer nofollow">x</a>`,
		`<img src="data:image/svg+xml;base64,AAAA">`,
		`<a href="https://ok.example/">no rel</a>`,
		`<a href="data:image/png;base64,AAAA" rel="noopener noreferrer nofollow">x</a>`,
		`<math><mtext><table><mglyph><style><img src=x onerror=window.__xss()>`,
		`<svg><a href="https://x.example/">x</a></svg>`,
		`<iframe src="https://x.example/"></iframe>`,
		`<div style="background:url(javascript:window.__xss())">x</div>`,
	}
	for _, s := range bad {
		if err := checkSafeHTML(s); err == nil {
			t.Errorf("checkSafeHTML(%q) = nil, want an error", s)
		}
	}
	good := []string{
		`<p><a href="https://x.example/?a=1&amp;b=2" rel="noopener noreferrer nofollow">x</a></p>`,
		`<img src="data:image/png;base64,AAAA" alt="x">`,
		`<a href="mailto:a@b.example" rel="noopener noreferrer nofollow">m</a><!-- raw HTML omitted -->`,
		`<table><thead><tr><th style="text-align:left">a</th></tr></thead></table>`,
	}
	for _, s := range good {
		if err := checkSafeHTML(s); err != nil {
			t.Errorf("checkSafeHTML(%q) = %v, want nil", s, err)
		}
	}
}
