//go:build !js

// Command peer is the scripted MCP WebSocket peer of the side-by-side browser
// benchmark (make bench). It serves, on one loopback origin:
//
//	/mcp?n=N&page=P   MCP over WebSocket (subprotocol "mcp") with N generated
//	                  resource descriptors listed P per page, and three
//	                  readable resources: bench://image.png (~1.8 MB PNG),
//	                  bench://doc.md (~1 MB Markdown; bench://doc.md?read=TAG
//	                  is the same with a line naming TAG in front) and
//	                  bench://blob-10m (10 MB of bytes)
//	/bench/...        the bench page and its built JS stack (bench/dist)
//	/web/...          mcphost.js, mcphost.wasm, wasm_exec.js as built
//
// With -compress, the scripts, pages and the module are served as
// cmd/mcphost serves them: brotli from a precompressed copy when the
// browser accepts it (web/mcphost.wasm.<sha256[:24]>.br, as make wasm
// leaves it, or FILE.br), else gzip. bench/run.mjs starts a second peer
// so for its emulated-network startup trials, where transfer size counts.
//
// Both stacks in the page talk to the same peer, which answers from
// pre-encoded bytes so it is never what is being measured. Every response
// carries Cache-Control: no-store (startup includes the download) and the
// cross-origin isolation headers (so performance.now() has 5 µs resolution
// instead of 100 µs).
//
// Usage, from bench/ (a module of its own): go run ./peer [-addr 127.0.0.1:0] -root ..
// It prints "bench peer: http://127.0.0.1:PORT/" once it listens.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcphost/mcphost/bridge"
)

// The URIs the bench reads.
const (
	imageURI = "bench://image.png"
	docURI   = "bench://doc.md"
	blobURI  = "bench://blob-10m"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	root := flag.String("root", ".", "repository root (serves ROOT/bench and ROOT/web)")
	doc := flag.String("doc", "cmd/mcphost/internal/sampledocs/payments/reference/api-changelog.md", "Markdown source, cut to ~1 MB at a line end (relative to -root)")
	compress := flag.Bool("compress", false, "serve .js, .mjs, .html and .wasm files brotli (precompressed copy) or gzip, as cmd/mcphost does")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("bench peer: -addr %q must be a loopback address", *addr)
	}
	p, err := newPeer(filepath.Join(*root, *doc))
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if *compress {
		p.encoded = &encodedFiles{m: map[string]*encodedFile{}}
	}
	srv := &http.Server{Handler: p.handler(*root)}
	fmt.Printf("bench peer: http://%s/ (image %d bytes, doc %d bytes, blob %d bytes)\n",
		ln.Addr(), p.sizes[imageURI], p.sizes[docURI], p.sizes[blobURI])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

type peer struct {
	// results holds each readable resource's pre-encoded `result` object.
	results map[string][]byte
	sizes   map[string]int // payload bytes (decoded blob / text)

	mu    sync.Mutex
	lists map[[2]int][][]byte // (n, page) -> pre-encoded list results

	encoded *encodedFiles // non-nil with -compress
}

func newPeer(docPath string) (*peer, error) {
	p := &peer{results: map[string][]byte{}, sizes: map[string]int{}, lists: map[[2]int][][]byte{}}
	img := benchPNG()
	p.addBlob(imageURI, "image/png", img)
	blob := make([]byte, 10<<20)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range blob {
		blob[i] = byte(r.Uint32())
	}
	p.addBlob(blobURI, "application/octet-stream", blob)
	src, err := os.ReadFile(docPath)
	if err != nil {
		return nil, fmt.Errorf("bench peer: Markdown source: %w", err)
	}
	if len(src) > 1<<20 {
		cut := bytes.LastIndexByte(src[:1<<20], '\n')
		src = src[:cut+1]
	}
	text := string(src)
	p.results[docURI] = mustJSON(map[string]any{"contents": []map[string]any{{"uri": docURI, "mimeType": "text/markdown", "text": text}}})
	p.sizes[docURI] = len(src)
	return p, nil
}

// docVariant answers bench://doc.md?read=TAG: the same document with the
// line "Read TAG." in front, under that URI. The bench reads a new variant
// every time, so that a stack remembering a rendering (mcphost's render
// cache keeps the last one per URI and text) renders every read. The variant
// is spliced into the pre-encoded result (a 1 MB copy, no JSON encoding).
func (p *peer) docVariant(uri string) ([]byte, bool) {
	tag, ok := strings.CutPrefix(uri, docURI+"?read=")
	if !ok || len(tag) == 0 || len(tag) > 64 || strings.Trim(tag, "0123456789abcdefghijklmnopqrstuvwxyz-") != "" {
		return nil, false
	}
	base := p.results[docURI]
	// json.Marshal sorts keys: {"contents":[{"mimeType":…,"text":"…","uri":"bench://doc.md"}]}
	i := bytes.Index(base, []byte(`"text":"`))
	j := bytes.LastIndex(base, []byte(`,"uri":`))
	if i < 0 || j < i {
		return nil, false
	}
	i += len(`"text":"`)
	out := make([]byte, 0, len(base)+2*len(tag)+32)
	out = append(out, base[:i]...)
	out = append(out, "Read "+tag+`.\n\n`...)
	out = append(out, base[i:j]...)
	out = append(out, `,"uri":"`+uri+`"}]}`...)
	return out, true
}

// imageVariant answers bench://image.png?v=TAG (TAG: 1 to 16 of [0-9a-z-]):
// the same PNG with a tEXt chunk naming TAG after its IHDR, so its bytes
// differ from every other variant's and from the plain image's (the bench's
// "new bytes every read" figure: nothing of a previous read can be reused).
// The chunk's length is a multiple of 3 and it goes in at byte 33 (also
// one), so the variant's base64 is the plain image's with the chunk's
// base64 spliced in at character 44: a 2.4 MB copy, no encoding.
func (p *peer) imageVariant(uri string) ([]byte, bool) {
	tag, ok := strings.CutPrefix(uri, imageURI+"?v=")
	if !ok || len(tag) == 0 || len(tag) > 16 || strings.Trim(tag, "0123456789abcdefghijklmnopqrstuvwxyz-") != "" {
		return nil, false
	}
	text := []byte("mcphost-bench\x00" + tag)
	for (12+len(text))%3 != 0 {
		text = append(text, '.')
	}
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(text)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, text...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	const at, atChars = 33, 44 // after the signature (8) and IHDR (25)
	base := p.results[imageURI]
	i := bytes.Index(base, []byte(`"blob":"`))
	j := bytes.LastIndex(base, []byte(`","mimeType":`))
	if i < 0 || j < i {
		return nil, false
	}
	i += len(`"blob":"`)
	enc := base64.StdEncoding.EncodeToString(chunk)
	out := make([]byte, 0, len(base)+len(enc)+len(tag)+16)
	out = append(out, base[:i+atChars]...)
	out = append(out, enc...)
	out = append(out, base[i+atChars:j]...)
	out = append(out, `","mimeType":"image/png","uri":"`+uri+`"}]}`...)
	return out, true
}

func (p *peer) addBlob(uri, mime string, data []byte) {
	p.results[uri] = mustJSON(map[string]any{"contents": []map[string]any{{"uri": uri, "mimeType": mime, "blob": base64.StdEncoding.EncodeToString(data)}}})
	p.sizes[uri] = len(data)
}

// benchPNG draws a deterministic ~1.8 MB PNG: smooth gradients (which
// compress) over noise (which does not), like a screenshot with photos.
func benchPNG() []byte {
	const w, h = 1280, 840
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x + y) % 256), 255}
			if (x/64+y/64)%3 != 0 { // two thirds of the tiles are photo-like noise
				n := r.Uint32()
				c.R ^= uint8(n) & 0x3f
				c.G ^= uint8(n>>8) & 0x3f
				c.B ^= uint8(n>>16) & 0x3f
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Descriptor vocabulary: varied enough that queries hit different amounts.
var (
	teams = []string{"payments", "platform", "support", "identity", "growth", "data", "security", "mobile", "infra", "legal", "finance", "sales"}
	kinds = []string{"runbook", "policy", "onboarding", "design", "postmortem", "reference", "howto", "adr", "faq", "meeting"}
	words = []string{"deploy", "rollback", "incident", "kubernetes", "database", "migration", "latency", "budget",
		"quarterly", "review", "access", "token", "refund", "invoice", "webhook", "retry", "cache", "search",
		"index", "alerting", "oncall", "escalation", "vendor", "contract", "privacy", "retention", "backup",
		"restore", "capacity", "planning", "release", "checklist", "api", "gateway", "ledger", "payout",
		"fraud", "scoring", "experiment", "dashboard", "metrics", "tracing", "logging", "queue", "worker",
		"scheduler", "billing", "tax", "compliance", "audit", "über", "café", "naïve", "résumé", "straße", "señal"}
)

// descriptors returns the pre-encoded list pages for n descriptors, page per
// page, generated deterministically (the same for both stacks and every run).
func (p *peer) descriptors(n, page int) [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := [2]int{n, page}
	if pages, ok := p.lists[key]; ok {
		return pages
	}
	r := rand.New(rand.NewPCG(42, uint64(n)))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	type res struct {
		URI         string `json:"uri"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mimeType,omitempty"`
		Size        int    `json:"size,omitempty"`
	}
	all := make([]res, n)
	for i := range all {
		team, kind := pick(teams), pick(kinds)
		nw := 1 + r.IntN(3)
		slug := make([]string, nw)
		for j := range slug {
			slug[j] = pick(words)
		}
		title := make([]string, nw)
		for j, w := range slug {
			title[j] = strings.ToUpper(w[:1]) + w[1:]
		}
		desc := make([]string, 6+r.IntN(10))
		for j := range desc {
			desc[j] = pick(words)
		}
		name := strings.Join(slug, "-") + "-" + strconv.Itoa(i) + ".md"
		all[i] = res{
			URI:         "docs://team/" + team + "/" + kind + "/" + name,
			Name:        name,
			Title:       strings.Join(title, " ") + " (" + kind + ")",
			Description: "The " + team + " team's " + kind + " on " + strings.Join(desc, " ") + ".",
			MIMEType:    "text/markdown",
			Size:        500 + r.IntN(50000),
		}
	}
	var pages [][]byte
	for off := 0; off < n || off == 0; off += page {
		end := min(off+page, n)
		m := map[string]any{"resources": all[off:end]}
		if end < n {
			m["nextCursor"] = strconv.Itoa(end)
		}
		pages = append(pages, mustJSON(m))
		if n == 0 {
			break
		}
	}
	p.lists[key] = pages
	return pages
}

func (p *peer) handler(root string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if n < 0 || n > 1_000_000 {
			http.Error(w, "n out of range", http.StatusBadRequest)
			return
		}
		if page <= 0 {
			page = 100
		}
		pages := p.descriptors(n, page)
		bridge.Endpoint(&bridge.EndpointOptions{ReadLimit: 64 << 20}, func(ctx context.Context, c *bridge.Conn) {
			p.serve(c, pages, page)
		}).ServeHTTP(w, r)
	})
	mux.Handle("/bench/", http.StripPrefix("/bench/", http.FileServer(http.Dir(filepath.Join(root, "bench")))))
	mux.Handle("/web/", http.StripPrefix("/web/", http.FileServer(http.Dir(filepath.Join(root, "web")))))
	mux.Handle("/e2e/node_modules/", http.StripPrefix("/e2e/node_modules/", http.FileServer(http.Dir(filepath.Join(root, "e2e", "node_modules")))))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, "/bench/index.html", http.StatusFound)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			h.Set("Content-Type", "application/wasm")
		}
		if strings.HasSuffix(r.URL.Path, ".go") {
			http.NotFound(w, r)
			return
		}
		if p.encoded != nil && p.encoded.serve(w, r, root) {
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// encodedFiles serves static files compressed (-compress): what a
// deployment sends, so that an emulated network's throughput applies to
// the bytes a user would download.
type encodedFiles struct {
	mu sync.Mutex
	m  map[string]*encodedFile // by file path
}

type encodedFile struct {
	modTime     time.Time
	size        int64
	coding      string // "br" or "gzip"
	data        []byte
	contentType string
}

// serve answers GET and HEAD of a .js, .mjs, .html or .wasm file under
// /bench/ or /web/ when the request accepts br or gzip; it returns false
// for anything else (the file server answers).
func (e *encodedFiles) serve(w http.ResponseWriter, r *http.Request, root string) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
		".html": "text/html; charset=utf-8", ".wasm": "application/wasm"}
	ct, ok := types[filepath.Ext(r.URL.Path)]
	rel := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if !ok || !(strings.HasPrefix(rel, "bench/") || strings.HasPrefix(rel, "web/")) {
		return false
	}
	ae := r.Header.Get("Accept-Encoding")
	br, gz := acceptsCoding(ae, "br"), acceptsCoding(ae, "gzip")
	if !br && !gz {
		return false
	}
	f, err := e.file(filepath.Join(root, filepath.FromSlash(rel)), br, ct)
	if err != nil {
		return false // missing or unreadable: the file server says so
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Content-Encoding", f.coding)
	h.Set("Vary", "Accept-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(f.data)))
	if r.Method == http.MethodGet {
		w.Write(f.data)
	}
	return true
}

// file returns name's encoding: the brotli copy beside it when br is
// accepted and there is one, else gzip (computed once per version).
func (e *encodedFiles) file(name string, br bool, ct string) (*encodedFile, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	key := name + "\x00" + strconv.FormatBool(br)
	if f := e.m[key]; f != nil && f.modTime.Equal(st.ModTime()) && f.size == st.Size() {
		return f, nil
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	f := &encodedFile{modTime: st.ModTime(), size: st.Size(), contentType: ct}
	if br {
		sum := sha256.Sum256(raw)
		for _, c := range []string{name + "." + hex.EncodeToString(sum[:])[:24] + ".br", name + ".br"} {
			if data, err := os.ReadFile(c); err == nil && len(data) > 0 {
				f.coding, f.data = "br", data
				break
			}
		}
	}
	if f.data == nil {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(raw)
		zw.Close()
		f.coding, f.data = "gzip", b.Bytes()
	}
	e.m[key] = f
	return f, nil
}

// acceptsCoding reports whether an Accept-Encoding value lists coding (q
// values are not looked at: the bench's browser sends none).
func acceptsCoding(ae, coding string) bool {
	for _, part := range strings.Split(ae, ",") {
		if name, _, _ := strings.Cut(part, ";"); strings.EqualFold(strings.TrimSpace(name), coding) {
			return true
		}
	}
	return false
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// traceRequests (BENCH_PEER_TRACE=1) logs every request's method, id and
// params (cut to 200 bytes) to stderr: for finding out what a stack asks.
var traceRequests = os.Getenv("BENCH_PEER_TRACE") == "1"

var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// serve answers one connection's requests in order, from pre-encoded bytes.
func (p *peer) serve(c *bridge.Conn, pages [][]byte, pageSize int) {
	ctx := context.Background()
	reply := func(id json.RawMessage, result []byte) error {
		// A frame of its own every time: on the server side WriteRaw queues
		// the slice for the connection's writer and returns before it is
		// sent, so a reused buffer would be overwritten by the next answer
		// (the first list page was lost behind templates/list that way).
		buf := make([]byte, 0, len(id)+len(result)+32)
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = append(buf, id...)
		buf = append(buf, `,"result":`...)
		buf = append(buf, result...)
		buf = append(buf, '}')
		return c.WriteRaw(ctx, buf)
	}
	fail := func(id json.RawMessage, code int, msg string, data any) error {
		e := map[string]any{"code": code, "message": msg}
		if data != nil {
			e["data"] = data
		}
		return c.WriteRaw(ctx, mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "error": e}))
	}
	for {
		data, err := c.ReadRaw(ctx)
		if err != nil {
			return
		}
		var req request
		if err := json.Unmarshal(data, &req); err != nil || req.Method == "" {
			continue // responses and garbage: the bench sends neither
		}
		if traceRequests {
			log.Printf("bench peer: %s %s %.200s", req.Method, req.ID, req.Params)
		}
		if len(req.ID) == 0 {
			continue // notifications
		}
		var params struct {
			ProtocolVersion string `json:"protocolVersion"`
			Cursor          string `json:"cursor"`
			URI             string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params, &params)
		switch req.Method {
		case "initialize":
			v := supportedVersions[0]
			for _, s := range supportedVersions {
				if s == params.ProtocolVersion {
					v = s
				}
			}
			err = reply(req.ID, mustJSON(map[string]any{
				"protocolVersion": v,
				"capabilities":    map[string]any{"resources": map[string]any{}},
				"serverInfo":      map[string]any{"name": "mcphost-bench-peer", "version": "1.0.0"},
			}))
		case "ping", "resources/subscribe", "resources/unsubscribe":
			err = reply(req.ID, []byte(`{}`))
		case "resources/list":
			i := 0
			if params.Cursor != "" {
				off, cerr := strconv.Atoi(params.Cursor)
				if cerr != nil || off <= 0 || len(pages) == 0 {
					err = fail(req.ID, -32602, "invalid cursor "+strconv.Quote(params.Cursor), nil)
					break
				}
				i = off / pageSize
			}
			if i >= len(pages) {
				err = fail(req.ID, -32602, "invalid cursor "+strconv.Quote(params.Cursor), nil)
				break
			}
			err = reply(req.ID, pages[i])
		case "resources/templates/list":
			err = reply(req.ID, []byte(`{"resourceTemplates":[]}`))
		case "resources/read":
			res, ok := p.results[params.URI]
			if !ok {
				res, ok = p.docVariant(params.URI)
			}
			if !ok {
				res, ok = p.imageVariant(params.URI)
			}
			if !ok {
				err = fail(req.ID, -32602, "Resource not found", map[string]string{"uri": params.URI})
				break
			}
			err = reply(req.ID, res)
		default:
			err = fail(req.ID, -32601, "Method not found: "+req.Method, nil)
		}
		if err != nil {
			return
		}
	}
}
