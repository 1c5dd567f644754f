package attach

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/gabriel-vasile/mimetype"
	"github.com/mcphost/mcphost/internal/blob"
)

// Default limits and accept list. The read limit is what one 64 MiB
// WebSocket frame can carry once base64 (4/3) and JSON overhead are paid.
const (
	DefaultMaxPartBytes int64 = 20 << 20
	DefaultMaxReadBytes int64 = 48 << 20
)

// DefaultAcceptImages lists the image types forwarded to a model when
// [Options.AcceptImages] is nil: what the major chat model APIs accept.
var DefaultAcceptImages = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Attachment kinds.
const (
	KindText   = "text"
	KindBinary = "binary"
	KindError  = "error"
)

// Options configures [FromContents]. A nil *Options means defaults; every
// zero field means its default.
type Options struct {
	// AcceptImages lists the sniffed image types that may be forwarded to
	// the model (compared case-insensitively, without parameters). Nil means
	// [DefaultAcceptImages]; an empty non-nil slice forwards no image.
	// image/svg+xml is never forwarded, even when listed.
	AcceptImages []string
	// RemoteImages lets rendered Markdown load http(s) images. When false
	// (the default) they become plain links, so a server's Markdown cannot
	// make the host page send tracking requests.
	RemoteImages bool
	// MaxPartBytes caps one part's decoded size (text bytes, or blob bytes
	// after base64). Defaults to [DefaultMaxPartBytes] (20 MiB).
	MaxPartBytes int64
	// MaxReadBytes caps the decoded size of all parts of one read together.
	// Defaults to [DefaultMaxReadBytes] (48 MiB). A part that would pass
	// it becomes a CodeTooLarge error; later parts that fit are still kept.
	MaxReadBytes int64
	// Markdown renders text/markdown parts. Nil means [DefaultMarkdown], in
	// the calling goroutine. The wasm module sets a function that renders
	// in a Web Worker under a time budget and waits for it (the page's main
	// thread stays free); whatever it returns, the part keeps HTML: an error
	// gives the escaped text in a <pre> with a warning naming the error.
	Markdown MarkdownFunc
}

type options struct {
	accept       map[string]bool
	acceptList   string
	remoteImages bool
	maxPart      int64
	maxRead      int64
	markdown     MarkdownFunc
}

func (o *Options) withDefaults() *options {
	r := &options{maxPart: DefaultMaxPartBytes, maxRead: DefaultMaxReadBytes, markdown: DefaultMarkdown}
	list := DefaultAcceptImages
	if o != nil {
		if o.AcceptImages != nil {
			list = o.AcceptImages
		}
		r.remoteImages = o.RemoteImages
		if o.Markdown != nil {
			r.markdown = o.Markdown
		}
		if o.MaxPartBytes > 0 {
			r.maxPart = o.MaxPartBytes
		}
		if o.MaxReadBytes > 0 {
			r.maxRead = o.MaxReadBytes
		}
	}
	a := acceptFor(list)
	r.accept, r.acceptList = a.set, a.names
	return r
}

// An acceptSet is an AcceptImages list made ready for lookups. Its map is
// never written once built, so reads share it.
type acceptSet struct {
	list  []string // a copy of the list it was built from
	set   map[string]bool
	names string
}

// lastAccept is the set built for the last list seen: a host passes the
// same list on every read, and rebuilding the set (a media-type parse per
// entry) was ~0.1 ms of each re-read of an image under wasm.
var lastAccept atomic.Pointer[acceptSet]

// acceptFor returns the acceptSet for list, reusing the last one when the
// list holds the same entries (compared by value: DefaultAcceptImages is a
// variable, and a caller may change a slice's elements in place).
func acceptFor(list []string) *acceptSet {
	if a := lastAccept.Load(); a != nil && slices.Equal(a.list, list) {
		return a
	}
	a := &acceptSet{list: slices.Clone(list), set: make(map[string]bool, len(list))}
	names := make([]string, 0, len(list))
	for _, m := range list {
		e := essence(m)
		if e != "" && !a.set[e] {
			a.set[e] = true
			names = append(names, e)
		}
	}
	a.names = strings.Join(names, ", ")
	lastAccept.Store(a)
	return a
}

// An Attachment is one part of a read, ready for a host's context window and
// UI. Its JSON form is the Attachment of the JavaScript API (see
// web/mcphost.d.ts); Bytes is not marshalled because the wasm layer copies
// it into a Uint8Array once.
//
// Exactly one of these holds: Kind is [KindError] and Error is set; or Kind
// is [KindText] or [KindBinary] and Error is nil.
type Attachment struct {
	// URI is the part's own uri (a read may return sub-resources).
	URI string `json:"uri"`
	// Part is the index of the part in the read's "contents".
	Part int `json:"part"`
	// Kind is KindText (the part had "text"), KindBinary ("blob") or
	// KindError.
	Kind string `json:"kind"`
	// MIMEType is the effective type: what the bytes are, as far as
	// sniffing and the declaration agree (see the package doc).
	MIMEType string `json:"mimeType"`
	// DeclaredMIMEType is the part's mimeType as sent ("" = none).
	DeclaredMIMEType string `json:"declaredMimeType"`
	// SniffedMIMEType is what mimetype.Detect found in the bytes, without
	// parameters.
	SniffedMIMEType string `json:"sniffedMimeType"`
	// Text is the document for text parts, and for binary parts whose
	// effective type is textual and whose bytes are valid UTF-8.
	Text string `json:"-"`
	// HTML is the sanitized rendering of a Markdown document ("" otherwise),
	// or its escaped text in a <pre> when it nests too deep or would render
	// in superlinear time (a warning says which).
	HTML string `json:"html,omitempty"`
	// Bytes holds a binary part's decoded bytes.
	Bytes []byte `json:"-"`
	// Held is a binary part's bytes when they stayed in the browser
	// (internal/blob); Bytes is nil then. The wasm layer hands the page the
	// same Uint8Array. Whoever drops the attachment releases it.
	Held *blob.Ref `json:"-"`
	// ForwardAsImage says the bytes may go to the model as an image of type
	// MIMEType: the sniffed type is in the accept list and the image's
	// header parses with sane dimensions.
	ForwardAsImage bool `json:"forwardAsImage"`
	// Presentable says the part can go to a model as it is (as text or as
	// an image). Binary parts that are neither are kept but not decoded.
	Presentable bool `json:"presentable"`
	// Warnings explain every disagreement between declaration and bytes and
	// every decision not to forward. Never nil.
	Warnings []string `json:"warnings"`
	// Size is the decoded size in bytes (UTF-8 bytes for text).
	Size int64 `json:"size"`
	// WireSize is the payload's size on the wire: the base64 length for
	// blobs (4·⌈Size/3⌉), the UTF-8 length for text (JSON escapes aside).
	WireSize int64 `json:"wireSize"`
	// Tokens estimates the model tokens of Text: ⌈UTF-8 bytes / 4⌉.
	// Zero for parts without text.
	Tokens int64 `json:"tokens"`
	// State is owned by the freshness engine ("fresh", "stale", "gone",
	// "superseded"); FromContents leaves it empty.
	State string `json:"state,omitempty"`
	// Error describes a failed part (Kind == KindError).
	Error *Error `json:"error,omitempty"`
	// Meta is the part's _meta, unchanged.
	Meta json.RawMessage `json:"_meta,omitempty"`
	// MCPApp says the part is an MCP App view ([IsMCPApp]: a ui:// URI or
	// a text/html;profile=mcp-app type). MIMEType then keeps the declared
	// type with its parameters when the bytes are HTML.
	MCPApp bool `json:"mcpApp"`
	// UI is an MCP App part's _meta.ui (CSP, permissions, domain,
	// prefersBorder), as sent; a host may fill it from the listed
	// descriptor's when the part has none.
	UI json.RawMessage `json:"ui,omitempty"`
	// Withheld, when set, says why the host keeps the part out of the
	// model's context ("too_large", "mcp_app"); FromContents leaves it
	// empty: it is the host's policy.
	Withheld string `json:"withheld,omitempty"`

	hasText bool
}

// MarshalJSON emits the JavaScript API shape: "text" is present exactly when
// the attachment carries text (an empty document has "text": "").
func (a Attachment) MarshalJSON() ([]byte, error) {
	type plain Attachment
	type withText struct {
		plain
		Text *string `json:"text,omitempty"`
	}
	w := withText{plain: plain(a)}
	if w.Warnings == nil {
		w.Warnings = []string{}
	}
	if a.hasText || a.Kind == KindText {
		t := a.Text
		w.Text = &t
	}
	return json.Marshal(w)
}

// HasText reports whether the attachment carries a text document (Text
// may be "" for an empty one).
func (a *Attachment) HasText() bool { return a.hasText || a.Kind == KindText }

// FromContents turns every part of a read into an [Attachment], in order:
// one entry per part, never failing as a whole. A part that cannot become
// an attachment (no or both payloads, bad base64, over a limit, no uri)
// stands in its place with Kind [KindError] and an [*Error] naming its URI
// and index. opts may be nil.
func FromContents(contents []Contents, opts *Options) []Attachment {
	o := opts.withDefaults()
	var st readState
	out := make([]Attachment, len(contents))
	for i, c := range contents {
		out[i] = o.fromPart(i, c, &st)
	}
	return out
}

// readState carries the per-read byte budget across parts.
type readState struct {
	total int64
}

func errorAttachment(i int, uri string, e *Error) Attachment {
	return Attachment{URI: uri, Part: i, Kind: KindError, Error: e, Warnings: []string{}}
}

func (o *options) fromPart(i int, c Contents, st *readState) Attachment {
	fail := func(e *Error) Attachment {
		a := errorAttachment(i, c.URI, e)
		a.DeclaredMIMEType = c.MIMEType
		a.Meta = c.Meta
		return a
	}
	switch {
	case c.Text == nil && c.Blob == nil:
		return fail(newError(CodeNeitherPayload, c.URI, i,
			`part %d (%q) has neither "text" nor "blob"; the likely cause is an empty text document `+
				`from a go-sdk server, which cannot send "text": "" (its ResourceContents.Text is omitempty)`,
			i, c.URI))
	case c.Text != nil && c.Blob != nil:
		return fail(newError(CodeBothPayloads, c.URI, i,
			`part %d (%q) has both "text" and "blob"; a part must carry exactly one`, i, c.URI))
	case c.URI == "":
		return fail(newError(CodeMissingURI, c.URI, i, `part %d has no "uri"`, i))
	}

	if c.Text != nil {
		size := int64(len(*c.Text))
		if e := o.checkSize(i, c.URI, size, st); e != nil {
			return fail(e)
		}
		a := o.textAttachment(i, c, *c.Text)
		a.Size, a.WireSize = size, size
		markApp(&a, &c)
		return a
	}

	if c.Held != nil {
		return o.heldPart(i, c, st)
	}
	blob := *c.Blob
	wire := int64(len(blob))
	// Size from the wire length, before decoding a byte (issue 3 §7).
	if e := o.checkSize(i, c.URI, decodedLen(blob), st); e != nil {
		return fail(e)
	}
	data, e := decodeBlob(i, c.URI, blob)
	if e != nil {
		st.total -= decodedLen(blob) // a failed part holds no budget
		return fail(e)
	}
	a := o.binaryAttachment(i, c, data, nil, nil)
	a.Size, a.WireSize = int64(len(data)), wire
	markApp(&a, &c)
	return a
}

// heldPart is fromPart for a blob whose bytes stayed in the browser: the
// size is known, the base64 was checked there (strict, canonical), and Go
// copies only what the decision needs: the first bytes for sniffing, and
// for an image as much as its header check reads. A part that sniffs or is
// declared as text needs every byte (UTF-8 validity, the text itself): it
// is copied into Go and goes the ordinary way.
func (o *options) heldPart(i int, c Contents, st *readState) Attachment {
	ref := c.Held
	size := ref.Size()
	if e := o.checkSize(i, c.URI, size, st); e != nil {
		ref.Release()
		a := errorAttachment(i, c.URI, e)
		a.DeclaredMIMEType, a.Meta = c.MIMEType, c.Meta
		return a
	}
	head, err := ref.Prefix(sniffBytes)
	var sm *mimetype.MIME
	if err == nil {
		sm = mimetype.Detect(head)
		if isA(sm, textPlain) || isTextual(essence(sm.String())) || isTextual(essence(c.MIMEType)) {
			// Decided again over every byte (binaryAttachment sniffs them).
			head, err = ref.Bytes()
			ref.Release()
			ref, sm = nil, nil
		}
	}
	if err != nil {
		st.total -= size
		e := newError(CodeBadBase64, c.URI, i, "part %d (%q): the blob's bytes are gone (%v)", i, c.URI, err)
		a := errorAttachment(i, c.URI, e)
		a.DeclaredMIMEType, a.Meta = c.MIMEType, c.Meta
		return a
	}
	a := o.binaryAttachment(i, c, head, ref, sm)
	a.Size, a.WireSize = size, EncodedLen(size)
	markApp(&a, &c)
	return a
}

// sniffBytes is what mimetype.Detect reads of its input (its default read
// limit): the first bytes decide the type, the same as over every byte.
const sniffBytes = 4096

// checkSize applies the per-part and per-read limits and charges the part
// to the read when it fits.
func (o *options) checkSize(i int, uri string, size int64, st *readState) *Error {
	if size > o.maxPart {
		return newError(CodeTooLarge, uri, i,
			"part %d (%q) is %d bytes, over the %d-byte per-part limit; "+
				"have the server return a resource_link for content this large", i, uri, size, o.maxPart)
	}
	if st.total+size > o.maxRead {
		return newError(CodeTooLarge, uri, i,
			"part %d (%q) is %d bytes and would bring the read to %d bytes, over the %d-byte per-read limit; "+
				"have the server return a resource_link for content this large", i, uri, size, st.total+size, o.maxRead)
	}
	st.total += size
	return nil
}

// BinaryBytes returns a binary part's bytes: Bytes, or a copy of the held
// ones (which fails once they were released: the part left the context).
func (a *Attachment) BinaryBytes() ([]byte, error) {
	if a.Held != nil {
		return a.Held.Bytes()
	}
	return a.Bytes, nil
}

// EncodedLen is the base64 wire length of n decoded bytes: 4·⌈n/3⌉.
func EncodedLen(n int64) int64 { return (n + 2) / 3 * 4 }

// decodedLen is the number of bytes a padded base64 string of this length
// decodes to, computed without decoding. Malformed lengths are rounded up
// so limits still apply; decoding reports the malformation.
func decodedLen(b64 string) int64 {
	n := int64(len(b64))
	d := (n + 3) / 4 * 3
	if n%4 == 0 && n > 0 {
		if b64[n-1] == '=' {
			d--
			if b64[n-2] == '=' {
				d--
			}
		}
	}
	return d
}

// decodeBlob decodes strict, padded, standard base64. Go's decoder skips
// CR and LF; the wire format (RFC 4648, JSON Schema "byte") has none, so
// they are rejected here with their offset.
//
// CR and LF are found after decoding, not before: a padded blob without them
// is exactly EncodedLen(decoded) bytes long, so only a longer one is scanned
// (under wasm a scan of 2.4 MB with strings.IndexAny costs ~5 ms per read).
func decodeBlob(i int, uri, blob string) ([]byte, *Error) {
	data, err := base64.StdEncoding.Strict().DecodeString(blob)
	if err != nil || int64(len(blob)) != EncodedLen(int64(len(data))) {
		if k := strings.IndexAny(blob, "\r\n"); k >= 0 {
			return nil, badBase64(i, uri, int64(k))
		}
	}
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, badBase64(i, uri, int64(ce))
		}
		return nil, badBase64(i, uri, 0)
	}
	return data, nil
}

func badBase64(i int, uri string, off int64) *Error {
	e := newError(CodeBadBase64, uri, i,
		`part %d (%q): "blob" is not valid padded standard base64 at byte offset %d`, i, uri, off)
	e.Offset = off
	return e
}

// estimateTokens is the seeds' rule: ⌈UTF-8 bytes / 4⌉.
func estimateTokens(n int) int64 { return (int64(n) + 3) / 4 }
