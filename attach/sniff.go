package attach

import (
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
	"github.com/mcphost/mcphost/internal/blob"
)

const (
	octetStream = "application/octet-stream"
	textPlain   = "text/plain"
	svgType     = "image/svg+xml"
	// sniffLen is mimetype's default read limit; only this prefix is copied
	// for sniffing text parts.
	sniffLen = 3072
)

// essence returns the lowercase "type/subtype" of a media type, without
// parameters, or "" when s is empty or unparsable.
func essence(s string) string {
	if plainEssence(s) {
		// What mime.ParseMediaType returns for it, without its parameter
		// map and lowercasing (~0.07 ms of every image re-read under wasm,
		// where each read asks for the sniffed and the declared type).
		if a, ok := mimeAliases[s]; ok {
			return a
		}
		return s
	}
	return parsedEssence(s)
}

// parsedEssence is essence by mime.ParseMediaType, for any s.
func parsedEssence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	m, _, err := mime.ParseMediaType(s)
	if a, ok := mimeAliases[m]; ok {
		return a
	}
	if err != nil {
		// Keep what precedes any parameters so the declaration is still
		// compared, but only when it looks like type/subtype.
		m = strings.ToLower(strings.TrimSpace(strings.SplitN(s, ";", 2)[0]))
		if strings.Count(m, "/") != 1 || strings.ContainsAny(m, " \t\"") {
			return ""
		}
	}
	return m
}

// plainEssence reports whether s is already an essence as
// mime.ParseMediaType would return it: one "/" between two non-empty runs
// of RFC 2045 token characters, none of them upper-case.
func plainEssence(s string) bool {
	slash := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '/':
			if slash >= 0 {
				return false
			}
			slash = i
		case c <= ' ' || c >= 0x7f || ('A' <= c && c <= 'Z') || strings.IndexByte(`()<>@,;:\"[]?=`, c) >= 0:
			return false
		}
	}
	return slash > 0 && slash < len(s)-1
}

// mimeAliases maps common non-standard spellings to the registered type,
// so "image/jpg" declared on JPEG bytes is not reported as a mismatch.
var mimeAliases = map[string]string{
	"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png",
	"application/x-pdf": "application/pdf",
}

// textualTypes are non-text/* types whose content is text.
var textualTypes = map[string]bool{
	"application/json": true, "application/xml": true, "application/javascript": true,
	"application/ecmascript": true, "application/x-javascript": true, "application/yaml": true,
	"application/x-yaml": true, "application/toml": true, "application/x-sh": true,
	"application/sql": true, "application/graphql": true, "application/x-ndjson": true,
	"application/x-httpd-php": true, "application/x-python": true, "application/csv": true,
}

func isTextual(ess string) bool {
	return strings.HasPrefix(ess, "text/") || textualTypes[ess] ||
		strings.HasSuffix(ess, "+json") || strings.HasSuffix(ess, "+xml") || strings.HasSuffix(ess, "+yaml")
}

func isJSONType(ess string) bool {
	return ess == "application/json" || strings.HasSuffix(ess, "+json")
}

func isMarkdownType(ess string) bool {
	return ess == "text/markdown" || ess == "text/x-markdown"
}

func isImage(ess string) bool { return strings.HasPrefix(ess, "image/") }

// isA reports whether m or one of its ancestors in mimetype's tree is ess
// (aliases included): a docx "is a" zip, JSON "is a" text/plain.
func isA(m *mimetype.MIME, ess string) bool {
	for ; m != nil; m = m.Parent() {
		if m.Is(ess) {
			return true
		}
	}
	return false
}

// generic reports whether a sniff result says nothing specific.
func generic(ess string) bool { return ess == octetStream || ess == textPlain }

// looksJSON reports whether text is a JSON object or array.
func looksJSON(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return json.Valid([]byte(t))
}

// jsonError returns the syntax error of text, or nil when it parses.
func jsonError(text string) error {
	b := []byte(text)
	if json.Valid(b) {
		return nil
	}
	var v struct{}
	err := json.Unmarshal(b, &v) // checks syntax over the whole input first
	if err == nil {
		err = fmt.Errorf("invalid JSON")
	}
	return err
}

func (o *options) textAttachment(i int, c Contents, text string) Attachment {
	a := Attachment{
		URI: c.URI, Part: i, Kind: KindText, DeclaredMIMEType: c.MIMEType,
		Text: text, hasText: true, Presentable: true, Meta: c.Meta, Warnings: []string{},
	}
	head := text
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	a.SniffedMIMEType = essence(mimetype.Detect([]byte(head)).String())
	decl := essence(c.MIMEType)
	switch {
	case c.MIMEType == "":
		a.MIMEType = textPlain
		a.warn("declared: none; the part carries text, so it is treated as text/plain (never guessed from the URI)")
	case decl == "":
		a.MIMEType = textPlain
		a.warn("declared mimeType %q is not a valid media type; treated as text/plain", c.MIMEType)
	case isTextual(decl):
		a.MIMEType = decl
	default:
		a.MIMEType = textPlain
		if isImage(decl) {
			a.warn("declared %s but the part carries text; treated as text/plain and not forwarded as an image", decl)
		} else {
			a.warn("declared %s but the part carries text; treated as text/plain", decl)
		}
	}
	if !utf8.ValidString(text) {
		a.warn("text is not valid UTF-8")
	}
	o.finishText(&a)
	return a
}

// finishText adds the type-specific checks, Markdown rendering and the
// token estimate to an attachment that carries text.
func (o *options) finishText(a *Attachment) {
	switch {
	case isMarkdownType(a.MIMEType):
		if looksJSON(a.Text) {
			a.warn("declared %s but the text is JSON", a.MIMEType)
		}
		html, plain, err := o.renderMarkdown(a.Text, a.URI)
		switch {
		case err != nil:
			a.HTML = plainTextHTML([]byte(a.Text))
			a.warn("%v; shown as escaped plain text, not rendered", err)
		case plain != "":
			a.HTML = html
			a.warn("%s; shown as escaped plain text, not rendered", plain)
		default:
			a.HTML = html
		}
	case isJSONType(a.MIMEType):
		if err := jsonError(a.Text); err != nil {
			a.warn("declared %s but the text does not parse as JSON: %v", a.MIMEType, err)
		}
	case a.MIMEType == svgType && a.Kind == KindText:
		a.warn("SVG is never forwarded to the model as an image (an SVG document can carry script)")
	}
	a.Tokens = estimateTokens(len(a.Text))
}

// renderMarkdown runs the configured renderer; a panic in it (a renderer
// bug) is an error, so the part still shows as text and the runtime goes on.
func (o *options) renderMarkdown(src, baseURI string) (html, plain string, err error) {
	defer func() {
		if r := recover(); r != nil {
			html, plain, err = "", "", fmt.Errorf("markdown could not be rendered (renderer panic: %v)", r)
		}
	}()
	return o.markdown(src, baseURI, o.remoteImages)
}

// binaryAttachment decides a binary part from data, every byte of it, or,
// when held is not nil, the first sniffBytes of the held bytes (heldPart:
// then neither the sniffed nor the declared type is text, and the image
// header check reads the held bytes). sm is what mimetype.Detect found in
// data when the caller already asked it (heldPart), else nil.
func (o *options) binaryAttachment(i int, c Contents, data []byte, held *blob.Ref, sm *mimetype.MIME) Attachment {
	a := Attachment{
		URI: c.URI, Part: i, Kind: KindBinary, DeclaredMIMEType: c.MIMEType,
		Bytes: data, Meta: c.Meta, Warnings: []string{},
	}
	if held != nil {
		a.Bytes, a.Held = nil, held
	}
	if sm == nil {
		sm = mimetype.Detect(data)
	}
	sniffed := essence(sm.String())
	a.SniffedMIMEType = sniffed
	decl := essence(c.MIMEType)
	textual := isA(sm, textPlain) && utf8.Valid(data)

	switch {
	case c.MIMEType == "":
		a.MIMEType = sniffed
		a.warn("declared: none; the bytes are %s (never guessed from the URI)", sniffed)
	case decl == "":
		a.MIMEType = sniffed
		a.warn("declared mimeType %q is not a valid media type; the bytes are %s", c.MIMEType, sniffed)
	case isImage(decl) && !isImage(sniffed):
		a.MIMEType = sniffed
		a.warn("declared %s, but the bytes are %s, not an image; not forwarded as an image", decl, sniffed)
	case sniffed == octetStream:
		// The sniffer knows nothing specific: trust the declaration, except
		// that bytes declared as text must be text.
		a.MIMEType = decl
		if isTextual(decl) && !utf8.Valid(data) {
			a.MIMEType = octetStream
			a.warn("declared %s, but the bytes are not text", decl)
		}
	case isTextual(decl) && textual:
		// Both are text: the declaration is more precise (Markdown, CSV, ...).
		a.MIMEType = decl
	case isA(sm, decl):
		a.MIMEType = sniffed // same type, or a more specific one (docx is a zip)
	case mimetype.Lookup(decl) != nil && isA(mimetype.Lookup(decl), sniffed) && !generic(sniffed):
		a.MIMEType = decl // the declaration is more specific than the sniff
	default:
		a.MIMEType = sniffed
		a.warn("declared %s, but the bytes are %s", decl, sniffed)
	}

	switch {
	case sniffed == svgType || a.MIMEType == svgType:
		a.warn("SVG is never forwarded to the model as an image (an SVG document can carry script)")
	case o.accept[sniffed]:
		var err error
		if held != nil {
			err = checkHeldImage(sniffed, held, data)
		} else {
			err = checkImage(sniffed, data)
		}
		if err != nil {
			// Treated as bytes of no known type, like any binary part a
			// model cannot take: kept, not presentable, not an image.
			a.MIMEType = octetStream
			a.warn("not a valid %s: %v; not forwarded as an image", sniffed, err)
			break
		}
		a.ForwardAsImage, a.Presentable = true, true
		a.MIMEType = sniffed
	case isImage(sniffed):
		a.warn("%s is not an accepted image type (%s); not forwarded as an image", sniffed, o.acceptList)
	}

	if !a.ForwardAsImage && isTextual(a.MIMEType) && utf8.Valid(data) {
		a.Text, a.hasText, a.Presentable = string(data), true, true
		o.finishText(&a)
	}
	if !a.Presentable {
		a.warn("%s cannot be presented to a model; the bytes are kept as they are", a.MIMEType)
	}
	return a
}

func (a *Attachment) warn(format string, args ...any) {
	a.Warnings = append(a.Warnings, fmt.Sprintf(format, args...))
}
