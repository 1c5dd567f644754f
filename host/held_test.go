//go:build !js

package host_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcphost/mcphost/bridge"

	"github.com/mcphost/mcphost/internal/blob"
)

// testPNG is a valid 1×1 PNG header followed by an IDAT of n bytes (the
// header check reads chunk headers only).
func testPNG(n int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, 1)
	binary.BigEndian.PutUint32(ihdr[4:], 1)
	ihdr[8], ihdr[9] = 8, 6
	chunk("IHDR", ihdr)
	idat := make([]byte, n)
	for i := range idat {
		idat[i] = byte(i * 7)
	}
	chunk("IDAT", idat)
	chunk("IEND", nil)
	return b.Bytes()
}

// heldPeer is a scripted 2025-11-25 server standing in for the browser's
// socket: each read of mem://img answers with a token for bytes it holds
// (internal/blob.Hold + Offer), as socket.js does for a large blob.
type heldPeer struct {
	mu    sync.Mutex
	data  []byte
	refs  []*blob.Ref
	reads int
}

func newHeldPeer(t *testing.T, data []byte) (*heldPeer, string) {
	p := &heldPeer{data: data}
	srv := httptest.NewServer(bridge.Endpoint(nil, func(ctx context.Context, c *bridge.Conn) {
		for {
			raw, err := c.ReadRaw(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					URI string `json:"uri"`
				} `json:"params"`
			}
			json.Unmarshal(raw, &m)
			if m.ID == nil {
				continue
			}
			var out string
			switch m.Method {
			case "initialize":
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{},"tools":{}},"serverInfo":{"name":"held","version":"1"}}}`, m.ID)
			case "resources/list":
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resources":[{"uri":"mem://img","name":"img","mimeType":"image/png"}]}}`, m.ID)
			case "resources/templates/list":
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resourceTemplates":[]}}`, m.ID)
			case "resources/read":
				p.mu.Lock()
				p.reads++
				ref := blob.Hold(append([]byte(nil), p.data...))
				token := fmt.Sprintf("%stest-%d", blob.TokenPrefix, p.reads)
				blob.Offer(token, ref)
				p.refs = append(p.refs, ref)
				p.mu.Unlock()
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"contents":[{"uri":"mem://img","mimeType":"image/png","blob":%q}]}}`, m.ID, token)
			default:
				out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
			}
			if c.WriteRaw(ctx, []byte(out)) != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return p, "ws" + strings.TrimPrefix(srv.URL, "http")
}

func (p *heldPeer) ref(i int) *blob.Ref {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refs[i]
}

// TestHeldBlobLifetime: a part whose bytes stayed in the page is an image
// attachment without Go bytes; its bytes are released when a re-read
// replaces it and when it is detached, never before; the ledger takes an
// embedded copy of the same bytes as base64 for a duplicate.
func TestHeldBlobLifetime(t *testing.T) {
	img := testPNG(200 << 10)
	p, url := newHeldPeer(t, img)
	h, _ := connect(t, url, nil)
	ctx := context.Background()
	atts, err := h.Attach(ctx, "mem://img")
	if err != nil {
		t.Fatal(err)
	}
	a := atts[0]
	if a.Held == nil || a.Bytes != nil || !a.ForwardAsImage || a.MIMEType != "image/png" || a.Size != int64(len(img)) {
		t.Fatalf("held part: held=%v bytes=%d image=%v type=%q size=%d warnings=%v", a.Held != nil, len(a.Bytes), a.ForwardAsImage, a.MIMEType, a.Size, a.Warnings)
	}
	if a.WireSize != int64(base64.StdEncoding.EncodedLen(len(img))) {
		t.Errorf("wire size %d, want the base64 length %d", a.WireSize, base64.StdEncoding.EncodedLen(len(img)))
	}
	if got, _ := a.BinaryBytes(); !bytes.Equal(got, img) {
		t.Fatal("BinaryBytes differs from the held bytes")
	}
	if blob.Offered() != 0 {
		t.Errorf("%d offers left unclaimed", blob.Offered())
	}

	// An embedded copy of the same bytes, as base64 from the wire, is a duplicate.
	tr := fmt.Sprintf(`{"content":[{"type":"resource","resource":{"uri":"mem://img","mimeType":"image/png","blob":%q}}]}`, base64.StdEncoding.EncodeToString(img))
	res, err := h.FilterToolResult(json.RawMessage(tr))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dropped) != 1 {
		t.Errorf("the embedded copy of the held bytes was not dropped: %s", res.Result)
	}
	other := fmt.Sprintf(`{"content":[{"type":"resource","resource":{"uri":"mem://img","mimeType":"image/png","blob":%q}}]}`, base64.StdEncoding.EncodeToString(testPNG(10)))
	if res, _ := h.FilterToolResult(json.RawMessage(other)); len(res.Dropped) != 0 {
		t.Errorf("different bytes were dropped as a duplicate: %+v", res.Dropped)
	}

	if _, err := h.Attach(ctx, "mem://img"); err != nil {
		t.Fatal(err)
	}
	// Another read may have started meanwhile (the watch, a refresh): the
	// current part's bytes are held, every earlier read's are released.
	cur := h.Attached("mem://img")[0].Held
	if cur == nil || cur.Released() {
		t.Fatal("the current part's bytes were released")
	}
	p.mu.Lock()
	refs := append([]*blob.Ref(nil), p.refs...)
	p.mu.Unlock()
	for i, r := range refs {
		if r == cur {
			break
		}
		if !r.Released() {
			t.Errorf("read %d's bytes were not released when a later read replaced them", i+1)
		}
	}
	h.Detach("mem://img")
	eventually(t, "every read's bytes released after detach", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, r := range p.refs {
			if !r.Released() {
				return false
			}
		}
		return true
	})
}
