package main

import (
	"strconv"
	"unicode/utf8"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
)

// The values that cross to JavaScript in bulk (descriptor lists of 10,000+
// entries, picker matches on every keystroke, attachment metadata) are
// written here as JSON text by hand: encoding/json's reflection is several
// times slower under wasm, and one JSON.parse in the page is far cheaper than
// one syscall/js crossing per property. The shapes are those of
// web/mcphost.d.ts; the tests compare them with encoding/json's output.

const hex = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does, so the output is always valid JSON.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// obj writes the members of one JSON object, handling the commas.
//
// Its methods are not inlined (go:noinline): inlined, every member written
// cost ~700 bytes of wasm at each call site (appendAttachmentMeta alone was
// 14 KB), for no measurable speed (appendMatches of 50 matches: ~70 µs
// either way under wasm).
type obj struct {
	b     []byte
	first bool
}

func openObj(b []byte) obj { return obj{b: append(b, '{'), first: true} }

//go:noinline
func (o *obj) key(k string) {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

//go:noinline
func (o *obj) str(k, v string) {
	o.key(k)
	o.b = appendString(o.b, v)
}

// optStr writes k only when v is not empty (omitempty).
//
//go:noinline
func (o *obj) optStr(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

//go:noinline
func (o *obj) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

//go:noinline
func (o *obj) bool(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

// raw writes k with v as it is; v must be one valid JSON value (a
// json.RawMessage decoded from the wire is).
//
//go:noinline
func (o *obj) raw(k string, v []byte) {
	if len(v) == 0 {
		return
	}
	o.key(k)
	o.b = append(o.b, v...)
}

//go:noinline
func (o *obj) strs(k string, v []string, omitEmpty bool) {
	if omitEmpty && len(v) == 0 {
		return
	}
	o.key(k)
	o.b = appendStrings(o.b, v)
}

func (o *obj) close() []byte { return append(o.b, '}') }

func appendStrings(b []byte, v []string) []byte {
	b = append(b, '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func (o *obj) icons(icons []attach.Icon) {
	if len(icons) == 0 {
		return
	}
	o.key("icons")
	o.b = append(o.b, '[')
	for i := range icons {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		ic := &icons[i]
		w := openObj(o.b)
		w.str("src", ic.Src)
		w.optStr("mimeType", ic.MIMEType)
		w.strs("sizes", ic.Sizes, true)
		w.optStr("theme", ic.Theme)
		o.b = w.close()
	}
	o.b = append(o.b, ']')
}

func (o *obj) annotations(a *attach.Annotations) {
	if a == nil {
		return
	}
	o.key("annotations")
	w := openObj(o.b)
	w.strs("audience", a.Audience, true)
	if a.Priority != nil {
		w.key("priority")
		w.b = strconv.AppendFloat(w.b, *a.Priority, 'g', -1, 64)
	}
	w.optStr("lastModified", a.LastModified)
	o.b = w.close()
}

// appendResource writes a resources/list descriptor (Resource in the .d.ts).
func appendResource(b []byte, r *attach.Resource) []byte {
	o := openObj(b)
	o.str("uri", r.URI)
	o.str("name", r.Name)
	o.optStr("title", r.Title)
	o.optStr("description", r.Description)
	o.optStr("mimeType", r.MIMEType)
	if r.Size != nil {
		o.int("size", *r.Size)
	}
	o.icons(r.Icons)
	o.annotations(r.Annotations)
	o.raw("_meta", r.Meta)
	return o.close()
}

// appendTemplate writes a resources/templates/list descriptor.
func appendTemplate(b []byte, t *attach.ResourceTemplate) []byte {
	o := openObj(b)
	o.str("uriTemplate", t.URITemplate)
	o.str("name", t.Name)
	o.optStr("title", t.Title)
	o.optStr("description", t.Description)
	o.optStr("mimeType", t.MIMEType)
	o.icons(t.Icons)
	o.annotations(t.Annotations)
	o.raw("_meta", t.Meta)
	return o.close()
}

func appendRanges(o *obj, k string, rs []attach.Range) {
	if len(rs) == 0 {
		return
	}
	o.key(k)
	o.b = append(o.b, '[')
	for i, r := range rs {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = append(o.b, '[')
		o.b = strconv.AppendInt(o.b, int64(r[0]), 10)
		o.b = append(o.b, ',')
		o.b = strconv.AppendInt(o.b, int64(r[1]), 10)
		o.b = append(o.b, ']')
	}
	o.b = append(o.b, ']')
}

// A hintFunc is host.Host.Hint: a descriptor's token estimate (-1: no
// size) and why it would be withheld from the model.
type hintFunc func(uri, mimeType string, size *int64) (int64, string)

// appendMatches writes picker matches (Match[] in the .d.ts), each with
// the hint's tokens, withheld and mcpApp when hint is not nil.
func appendMatches(b []byte, ms []attach.Match, hint hintFunc) []byte {
	b = append(b, '[')
	for i := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		m := &ms[i]
		o := openObj(b)
		if m.Resource != nil {
			o.key("resource")
			o.b = appendResource(o.b, m.Resource)
		}
		if m.Template != nil {
			o.key("template")
			o.b = appendTemplate(o.b, m.Template)
		}
		o.int("score", int64(m.Score))
		o.key("highlights")
		h := openObj(o.b)
		appendRanges(&h, "name", m.Highlights.Name)
		appendRanges(&h, "title", m.Highlights.Title)
		appendRanges(&h, "uri", m.Highlights.URI)
		appendRanges(&h, "description", m.Highlights.Description)
		o.b = h.close()
		if hint != nil {
			var tokens int64
			var withheld string
			if r := m.Resource; r != nil {
				tokens, withheld = hint(r.URI, r.MIMEType, r.Size)
			} else if t := m.Template; t != nil {
				tokens, withheld = hint(t.URITemplate, t.MIMEType, nil)
			}
			if tokens >= 0 {
				o.int("tokens", tokens)
			}
			o.optStr("withheld", withheld)
			if withheld == host.WithheldMCPApp {
				o.bool("mcpApp", true)
			}
		}
		b = o.close()
	}
	return append(b, ']')
}

// toAttachResource converts a listed descriptor to the picker's type (the
// same wire shape).
func toAttachResource(r *bridge.Resource) attach.Resource {
	out := attach.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
		MIMEType: r.MIMEType, Size: r.Size, Meta: r.Meta, Annotations: (*attach.Annotations)(r.Annotations)}
	for _, i := range r.Icons {
		out.Icons = append(out.Icons, attach.Icon(i))
	}
	return out
}

func toAttachTemplate(t *bridge.ResourceTemplate) attach.ResourceTemplate {
	out := attach.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
		MIMEType: t.MIMEType, Meta: t.Meta, Annotations: (*attach.Annotations)(t.Annotations)}
	for _, i := range t.Icons {
		out.Icons = append(out.Icons, attach.Icon(i))
	}
	return out
}

// resourcesCap is the room appendResources(rs) needs when nothing is
// escaped: the strings' bytes and the keys and punctuation around them.
// resources() sizes its buffer with it (1,000 descriptors are ~330 KB;
// grown from a guess, the buffer was copied and discarded twice over).
func resourcesCap(rs []bridge.Resource) int {
	n := 2
	for i := range rs {
		r := &rs[i]
		n += len(r.URI) + len(r.Name) + len(r.Title) + len(r.Description) + len(r.MIMEType) + len(r.Meta) + 112
		for _, ic := range r.Icons {
			n += len(ic.Src) + len(ic.MIMEType) + len(ic.Theme) + 64
			for _, s := range ic.Sizes {
				n += len(s) + 3
			}
		}
		if a := r.Annotations; a != nil {
			n += len(a.LastModified) + 80
			for _, s := range a.Audience {
				n += len(s) + 3
			}
		}
	}
	return n
}

func appendResources(b []byte, rs []bridge.Resource) []byte {
	b = append(b, '[')
	for i := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		r := toAttachResource(&rs[i])
		b = appendResource(b, &r)
	}
	return append(b, ']')
}

func appendTemplates(b []byte, ts []bridge.ResourceTemplate) []byte {
	b = append(b, '[')
	for i := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		t := toAttachTemplate(&ts[i])
		b = appendTemplate(b, &t)
	}
	return append(b, ']')
}

// appendAttachmentMeta writes an attachment without its payload (text, html
// and bytes cross separately, without JSON). Error parts carry "error" as a
// plain object that mcphost.js turns into an MCPError.
func appendAttachmentMeta(b []byte, a *attach.Attachment, forModel bool) []byte {
	o := openObj(b)
	o.str("uri", a.URI)
	o.int("part", int64(a.Part))
	o.str("kind", a.Kind)
	o.str("mimeType", a.MIMEType)
	o.str("declaredMimeType", a.DeclaredMIMEType)
	o.str("sniffedMimeType", a.SniffedMIMEType)
	o.bool("forwardAsImage", a.ForwardAsImage)
	o.bool("presentable", a.Presentable)
	o.bool("forModel", forModel)
	o.strs("warnings", a.Warnings, false)
	o.int("size", a.Size)
	o.int("wireSize", a.WireSize)
	o.int("tokens", a.Tokens)
	state := a.State
	if state == "" {
		state = "fresh"
	}
	o.str("state", state)
	if a.Error != nil {
		o.key("error")
		o.b = appendAttachError(o.b, a.Error)
	}
	o.raw("_meta", a.Meta)
	o.bool("mcpApp", a.MCPApp)
	o.optStr("withheld", a.Withheld)
	o.raw("ui", a.UI)
	return o.close()
}

func appendAttachError(b []byte, e *attach.Error) []byte {
	o := openObj(b)
	o.str("message", e.Message)
	o.str("kind", e.Kind)
	o.str("code", e.Code)
	o.optStr("uri", e.URI)
	o.int("index", int64(e.Index))
	if e.Offset >= 0 {
		// data is a JSON text, as for server errors.
		o.str("data", `{"offset":`+strconv.FormatInt(e.Offset, 10)+`}`)
	}
	return o.close()
}

// appendInfo writes what info() returns, the handshake's outcome, with the
// values json.Marshal(bridge.InitializeResult) writes (the page parses it;
// TestAppendInfo compares the parsed values). By hand because the page
// asks for it as the host comes up: json.Marshal's reflection was the first
// and only use of encoding/json's encoder at startup (its functions are
// compiled by V8 at their first call). An absent capabilities object is {}.
func appendInfo(b []byte, ir *bridge.InitializeResult) []byte {
	o := openObj(b)
	o.str("protocolVersion", ir.ProtocolVersion)
	if len(ir.RawCapabilities) == 0 {
		o.raw("capabilities", []byte("{}"))
	} else {
		o.raw("capabilities", ir.RawCapabilities)
	}
	o.key("serverInfo")
	si := &ir.ServerInfo
	w := openObj(o.b)
	w.str("name", si.Name)
	w.str("version", si.Version)
	w.optStr("title", si.Title)
	w.optStr("description", si.Description)
	if len(si.Icons) > 0 {
		icons := make([]attach.Icon, len(si.Icons))
		for i, ic := range si.Icons {
			icons[i] = attach.Icon(ic)
		}
		w.icons(icons)
	}
	w.optStr("websiteUrl", si.WebsiteURL)
	o.b = w.close()
	o.optStr("instructions", ir.Instructions)
	return o.close()
}
