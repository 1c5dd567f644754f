//go:build !js

package docserver

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/gendocs/gen"
	"github.com/mcphost/mcphost/cmd/mcphost/internal/sampledocs"
)

func TestParseDocURI(t *testing.T) {
	t.Parallel()
	ok := []struct{ uri, team, kind, name string }{
		{"docs://team/platform/runbook/deploy.md", "platform", "runbook", "deploy.md"},
		{"docs://team/a%20b/k/n%C3%A9.md", "a b", "k", "né.md"},
	}
	for _, c := range ok {
		team, kind, name, good := parseDocURI(c.uri)
		if !good || team != c.team || kind != c.kind || name != c.name {
			t.Errorf("parseDocURI(%q) = %q %q %q %v", c.uri, team, kind, name, good)
		}
		if docURI(team, kind, name) != c.uri {
			t.Errorf("docURI does not round-trip %q", c.uri)
		}
	}
	for _, bad := range []string{
		"", "docs://team/", "docs://team/a/b", "docs://team/a/b/c/d", "docs://team/../b/c",
		"docs://team/a/b/..", "docs://team/a/b/%2E%2E", "docs://team/a/b/..%2Fx", "docs://team/a/b/x%2Fy",
		"docs://team/a/b/.hidden", "docs://team/a/b/%00", "docs://team/a/b/%zz", "file:///etc/passwd",
		"docs://team//b/c", "DOCS://team/a/b/c", "docs://team/a/b/c\\..\\x",
	} {
		if _, _, _, good := parseDocURI(bad); good {
			t.Errorf("parseDocURI(%q) accepted", bad)
		}
	}
}

// FuzzParseDocURI checks that an accepted URI always names three clean
// segments (nothing can escape the root) and round-trips through docURI.
func FuzzParseDocURI(f *testing.F) {
	for _, s := range []string{"docs://team/a/b/c.md", "docs://team/../b/c", "docs://team/a/b/%2e%2e", "docs://team/a%2Fb/c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		team, kind, name, ok := parseDocURI(uri)
		if !ok {
			return
		}
		for _, seg := range []string{team, kind, name} {
			if !cleanSegment(seg) || strings.ContainsAny(seg, "/\\") || seg == ".." {
				t.Fatalf("accepted unclean segment %q from %q", seg, uri)
			}
		}
		if _, _, _, ok := parseDocURI(docURI(team, kind, name)); !ok {
			t.Fatalf("docURI(%q,%q,%q) does not parse", team, kind, name)
		}
	})
}

func TestMarkdownSummary(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, title, desc string }{
		{"heading and paragraph", "# Title\n\nFirst para\ncontinues.\n\nSecond.", "Title", "First para continues."},
		{"closing hashes", "## Title ##\nText", "Title", "Text"},
		{"skips lists and tables", "# T\n\n- item\n\n| a |\n\nReal text.", "T", "Real text."},
		{"skips code fences", "# T\n\n```\ncode\n```\n\nAfter.", "T", "After."},
		{"no heading", "Just text.", "", "Just text."},
		{"hash without space is text", "#hashtag\n\ntext", "", "#hashtag"},
		{"empty", "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			title, desc := markdownSummary([]byte(tc.in))
			if title != tc.title || desc != tc.desc {
				t.Fatalf("got %q / %q, want %q / %q", title, desc, tc.title, tc.desc)
			}
		})
	}
	long := "# T\n\n" + strings.Repeat("word ", 200)
	if _, d := markdownSummary([]byte(long)); len([]rune(d)) != 280 || !strings.HasSuffix(d, "…") {
		t.Errorf("long description not truncated to 280 runes: %d", len([]rune(d)))
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	png := gen.ArchitecturePNG()
	jpg := gen.ScreenshotJPEG(64, 48)
	cases := []struct {
		name, file string
		data       []byte
		mime       string
		text       bool
		title      string
	}{
		{"markdown", "guide.md", []byte("# Guide\n\nHello."), "text/markdown", true, "Guide"},
		{"markdown not utf-8", "bad.md", []byte("# X\xff\xfe"), "text/plain", false, "Bad"},
		{"png", "arch.png", png, "image/png", false, "Arch"},
		{"jpeg as png", "shot.png", jpg, "image/jpeg", false, "Shot"},
		{"plain text sniffed", "notes", []byte("plain words"), "text/plain; charset=utf-8", true, "Notes"},
		{"binary", "blob.bin", []byte{0, 1, 2, 3, 0xff}, "application/octet-stream", false, "Blob"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := describe("t", "k", tc.file, tc.data)
			if tc.name == "markdown not utf-8" { // sniffed: not text, whatever the sniffer says
				if d.text {
					t.Fatalf("invalid UTF-8 served as text")
				}
				return
			}
			if d.mimeType != tc.mime || d.text != tc.text || d.title != tc.title || d.size != int64(len(tc.data)) {
				t.Fatalf("describe = mime %q text %v title %q size %d", d.mimeType, d.text, d.title, d.size)
			}
		})
	}
}

// TestCorpusRescan checks change detection without a server: a touched but
// unchanged file is no change; an edit, an addition and a removal are.
func TestCorpusRescan(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"a/runbook/x.md": {Data: []byte("# X\n\nx"), ModTime: time.Unix(1, 0)},
		"a/runbook/y.md": {Data: []byte("# Y\n\ny"), ModTime: time.Unix(1, 0)},
		"docs.go":        {Data: []byte("package docs")},
	}
	c, err := newCorpus(fsys, time.Time{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var got []corpusChange
	_, detach := c.attach(func(ch corpusChange) { got = append(got, ch) })
	defer detach()
	fsys["a/runbook/x.md"] = &fstest.MapFile{Data: []byte("# X\n\nx"), ModTime: time.Unix(2, 0)} // touched
	c.rescan()
	if len(got) != 0 {
		t.Fatalf("touch reported as a change: %+v", got)
	}
	fsys["a/runbook/x.md"] = &fstest.MapFile{Data: []byte("# X\n\nx2"), ModTime: time.Unix(3, 0)}
	fsys["a/policy/z.md"] = &fstest.MapFile{Data: []byte("# Z"), ModTime: time.Unix(3, 0)}
	delete(fsys, "a/runbook/y.md")
	c.rescan()
	if len(got) != 1 || len(got[0].changed) != 1 || len(got[0].added) != 1 || len(got[0].removed) != 1 {
		t.Fatalf("changes = %+v", got)
	}
	if got[0].changed[0].uri != "docs://team/a/runbook/x.md" || got[0].added[0].uri != "docs://team/a/policy/z.md" || got[0].removed[0].uri != "docs://team/a/runbook/y.md" {
		t.Fatalf("wrong documents in %+v", got[0])
	}
}

// TestGeneratedDocsAreCurrent regenerates the generated sample documents and
// compares them with the committed files (run
// `go run ./cmd/mcphost/internal/gendocs` after changing the generator).
func TestGeneratedDocsAreCurrent(t *testing.T) {
	t.Parallel()
	for path, want := range map[string][]byte{
		gen.ChangelogPath:    gen.Changelog(),
		gen.ArchitecturePath: gen.ArchitecturePNG(),
		gen.ScreenshotPath:   gen.ScreenshotJPEG(960, 600),
		gen.DisguisedPath:    gen.ScreenshotJPEG(640, 400),
	} {
		got, err := sampledocs.FS.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output: run go run ./cmd/mcphost/internal/gendocs", path)
		}
	}
	if n := len(gen.Changelog()); n <= 1<<20 {
		t.Errorf("changelog is %d bytes, want > 1 MiB", n)
	}
	hostile, err := sampledocs.FS.ReadFile(gen.HostilePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"<script>", "onerror=", "javascript:", "<iframe"} {
		if !bytes.Contains(hostile, []byte(v)) {
			t.Errorf("hostile export lacks %q", v)
		}
	}
}
