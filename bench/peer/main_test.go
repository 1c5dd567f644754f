//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func testPeer(t *testing.T) *peer {
	t.Helper()
	doc := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(doc, []byte("# Title\n\nA \"quoted\" line.\n\n- item\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := newPeer(doc)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type readResult struct {
	Contents []struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"contents"`
}

func TestDocVariant(t *testing.T) {
	p := testPeer(t)
	var base readResult
	if err := json.Unmarshal(p.results[docURI], &base); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		uri string
		ok  bool
	}{
		{docURI + "?read=abc-1", true},
		{docURI + "?read=7", true},
		{docURI + "?read=", false},
		{docURI + `?read=a"b`, false},
		{docURI + "?read=A", false},
		{docURI + "?other=1", false},
		{"bench://image.png?read=1", false},
	} {
		res, ok := p.docVariant(tc.uri)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.uri, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		var got readResult
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatalf("%s: not JSON: %v", tc.uri, err)
		}
		tag := strings.TrimPrefix(tc.uri, docURI+"?read=")
		if len(got.Contents) != 1 || got.Contents[0].URI != tc.uri || got.Contents[0].MIMEType != "text/markdown" ||
			got.Contents[0].Text != "Read "+tag+".\n\n"+base.Contents[0].Text {
			t.Errorf("%s: got %+v", tc.uri, got)
		}
	}
}

// TestImageVariant: bench://image.png?v=TAG is a valid PNG of the same size
// whose bytes differ from the plain image's and from another tag's, carrying
// TAG in a tEXt chunk; anything else is not a variant.
func TestImageVariant(t *testing.T) {
	p := testPeer(t)
	decode := func(res []byte) ([]byte, string) {
		t.Helper()
		var got struct {
			Contents []struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Blob     string `json:"blob"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(res, &got); err != nil || len(got.Contents) != 1 || got.Contents[0].MIMEType != "image/png" {
			t.Fatalf("not a read result of one PNG: %v %.200s", err, res)
		}
		b, err := base64.StdEncoding.DecodeString(got.Contents[0].Blob)
		if err != nil {
			t.Fatal(err)
		}
		return b, got.Contents[0].URI
	}
	plain, _ := decode(p.results[imageURI])
	want, err := png.Decode(bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{string(plain): true}
	for _, tag := range []string{"1", "r1-i14", "abcdefghijklmnop", "x-y"} {
		res, ok := p.imageVariant(imageURI + "?v=" + tag)
		if !ok {
			t.Fatalf("%s: not a variant", tag)
		}
		b, uri := decode(res)
		if uri != imageURI+"?v="+tag {
			t.Errorf("%s: uri %q", tag, uri)
		}
		img, err := png.Decode(bytes.NewReader(b)) // checks every chunk's CRC
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		if img.Bounds() != want.Bounds() || !bytes.Contains(b[:80], []byte("tEXtmcphost-bench\x00"+tag)) {
			t.Errorf("%s: bounds %v, head %q", tag, img.Bounds(), b[:80])
		}
		if seen[string(b)] {
			t.Errorf("%s: bytes equal to another read's", tag)
		}
		seen[string(b)] = true
	}
	for _, uri := range []string{imageURI + "?v=", imageURI + "?v=UPPER", imageURI + "?v=" + strings.Repeat("a", 17), imageURI + "?x=1", docURI + "?v=1"} {
		if _, ok := p.imageVariant(uri); ok {
			t.Errorf("%s: taken as a variant", uri)
		}
	}
}

// TestBackToBackAnswers: two requests sent at once get both answers intact
// (WriteRaw queues the frame, so an answer must not share its buffer with
// the next one).
func TestBackToBackAnswers(t *testing.T) {
	p := testPeer(t)
	srv := httptest.NewServer(p.handler(t.TempDir()))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/mcp?n=250&page=100", &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 20)
	reqs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{"cursor":"100"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"bench://doc.md?read=x"}}`,
	}
	for _, r := range reqs {
		if err := c.Write(ctx, websocket.MessageText, []byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	for want := 1; want <= len(reqs); want++ {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(data, &env); err != nil || env.ID != want || len(env.Result) == 0 {
			t.Fatalf("answer %d: id %d, err %v: %.120s", want, env.ID, err, data)
		}
		switch want {
		case 1, 3:
			var page struct {
				Resources  []json.RawMessage `json:"resources"`
				NextCursor string            `json:"nextCursor"`
			}
			if err := json.Unmarshal(env.Result, &page); err != nil || len(page.Resources) != 100 {
				t.Fatalf("answer %d: %d resources, err %v", want, len(page.Resources), err)
			}
		case 2:
			if string(env.Result) != `{"resourceTemplates":[]}` {
				t.Fatalf("answer 2: %s", env.Result)
			}
		}
	}
}

// TestCompressed: with -compress the module comes as its brotli copy (the
// one make wasm leaves, named by the content's hash) when br is accepted,
// a script without a copy comes gzipped, and what is not asked compressed,
// or is not a script, page or module, is the file as it is.
func TestCompressed(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"web", "bench"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	module := bytes.Repeat([]byte("\x00asm module bytes "), 1000)
	sum := sha256.Sum256(module)
	brCopy := []byte("not really brotli, but the copy's bytes")
	script := bytes.Repeat([]byte("export const x = 1;\n"), 500)
	files := map[string][]byte{
		"web/m.wasm": module, "web/m.wasm." + hex.EncodeToString(sum[:])[:24] + ".br": brCopy,
		"bench/a.js": script, "bench/a.txt": []byte("plain"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := testPeer(t)
	p.encoded = &encodedFiles{m: map[string]*encodedFile{}}
	srv := httptest.NewServer(p.handler(root))
	defer srv.Close()
	get := func(path, ae string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", ae) // set: the client does not decode
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	for _, c := range []struct {
		path, ae, coding, ctype string
		want                    []byte
	}{
		{"/web/m.wasm", "gzip, deflate, br, zstd", "br", "application/wasm", brCopy},
		{"/web/m.wasm", "gzip", "gzip", "application/wasm", module},
		{"/bench/a.js", "gzip, deflate, br, zstd", "gzip", "text/javascript; charset=utf-8", script},
		{"/web/m.wasm", "identity", "", "application/wasm", module},
		{"/bench/a.txt", "gzip, br", "", "", []byte("plain")},
	} {
		resp, body := get(c.path, c.ae)
		if got := resp.Header.Get("Content-Encoding"); got != c.coding {
			t.Errorf("%s (%s): Content-Encoding %q, want %q", c.path, c.ae, got, c.coding)
			continue
		}
		if c.ctype != "" && resp.Header.Get("Content-Type") != c.ctype {
			t.Errorf("%s: Content-Type %q", c.path, resp.Header.Get("Content-Type"))
		}
		if resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", c.path, resp.Header.Get("Cache-Control"))
		}
		if c.coding == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
		}
		if !bytes.Equal(body, c.want) {
			t.Errorf("%s (%s): %d bytes, not the %d expected", c.path, c.ae, len(body), len(c.want))
		}
	}
}
