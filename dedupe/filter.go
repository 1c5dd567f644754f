package dedupe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Reasons a block is dropped, as they appear in Dropped.Reason.
const (
	// ReasonDuplicate: an embedded resource whose content the context
	// already holds under the same URI.
	ReasonDuplicate = "duplicate"
	// ReasonLinkToAttached: a resource_link to a URI whose copy the
	// context already holds.
	ReasonLinkToAttached = "link_to_attached"
)

// Dropped names one content block Filter removed.
type Dropped struct {
	Index  int    `json:"index"` // position in the original content array
	URI    string `json:"uri"`   // as written in the block
	Reason string `json:"reason"`
}

// Report says what Filter did to one tool result. The slices are never
// nil, so they encode as JSON arrays.
type Report struct {
	Dropped []Dropped `json:"dropped"`
	// Superseded lists attached part URIs that a newer copy in this result
	// replaced (policy Replace). The host should stop sending them.
	Superseded []string `json:"superseded"`
	// Stale lists attached part URIs flagged Stale because this result
	// carried a different copy (policy KeepNewer).
	Stale []string `json:"stale"`
}

// block is what Filter reads of a content block; everything else in it is
// carried as the original bytes.
type block struct {
	Type     string `json:"type"`
	URI      string `json:"uri"`
	Resource *Part  `json:"resource"`
}

// candidate is a block that refers to a URI.
type candidate struct {
	index int
	uri   string
	k     key
	embed bool
	m     measure // embed only
	raw   int     // length of the block's JSON
}

// Filter removes from the raw JSON of a tools/call result the content
// blocks that would put a second copy of an attached document into the
// context, and returns the rewritten result with a report.
//
// Only "content" is rewritten; every other member (structuredContent,
// isError, _meta, unknown keys) and every kept block keep their original
// bytes. A result with "isError": true, or from which nothing is dropped,
// is returned as given. If every block would be dropped, a single text block
// naming the attached URIs replaces them, so the model never receives an
// empty result. Blocks Filter cannot interpret (malformed, unknown type,
// an embedded resource without exactly one payload) are kept.
//
// Filter also counts the result in the figures. The error reports a result
// that is not a JSON object with a "content" array; the result is then
// returned unchanged.
func (l *Ledger) Filter(server string, result json.RawMessage) (json.RawMessage, Report, error) {
	rep := Report{Dropped: []Dropped{}, Superseded: []string{}, Stale: []string{}}
	top, err := scanResult(result)
	if err != nil {
		return result, rep, err
	}
	if top.isError {
		l.mu.Lock()
		l.c.toolResults++
		l.mu.Unlock()
		return result, rep, nil
	}
	if result[top.start] != '[' {
		return result, rep, errors.New("dedupe: tool result: content is not an array")
	}
	blocks := splitArray(result[top.start:top.end])
	cands := l.candidates(server, blocks)

	drop := make([]bool, len(blocks))
	var referred []string // attached URIs named by dropped blocks, first mention order
	l.mu.Lock()
	l.c.toolResults++
	if len(l.docs) > 0 {
		l.c.withAttachment++
	}
	carrying := false
	for _, c := range cands {
		p, many := l.resolve(c.k)
		if p == nil && many == nil {
			continue
		}
		carrying = true
		switch {
		case !c.embed:
			inCtx := p != nil && p.anyInContext()
			for _, q := range many {
				inCtx = inCtx || q.anyInContext()
			}
			if !inCtx {
				continue
			}
			l.c.linksDropped++
			l.c.bytesSaved += int64(c.raw)
			l.c.tokensSaved += estimateTokens(int64(c.raw))
			rep.Dropped = append(rep.Dropped, Dropped{c.index, c.uri, ReasonLinkToAttached})
		case p == nil:
			// The URI names a document with several parts, none under
			// this URI: there is no copy to compare with.
			continue
		case p.inContext(c.m.sum):
			l.c.duplicatesDropped++
			l.c.bytesSaved += c.m.size
			l.c.tokensSaved += c.m.tokens
			rep.Dropped = append(rep.Dropped, Dropped{c.index, c.uri, ReasonDuplicate})
		case p.held:
			// Attached but not sent to the model: this copy is its only
			// one. Keep it, record that the context now holds it, and
			// supersede nothing.
			p.delivered, p.hasDelivered = c.m.sum, true
			continue
		default:
			// A different copy: keep it, and record that the context now
			// holds it.
			p.delivered, p.hasDelivered = c.m.sum, true
			if l.opts.OnNewer == KeepNewer {
				if p.state == Fresh {
					p.state, p.reason = Stale, "a tool result delivered a different copy"
					rep.Stale = append(rep.Stale, p.uri)
				}
			} else if p.state != Superseded {
				p.state, p.reason = Superseded, ""
				l.c.superseded++
				rep.Superseded = append(rep.Superseded, p.uri)
			}
			continue
		}
		drop[c.index] = true
		u := p.uriOr(many)
		if !contains(referred, u) {
			referred = append(referred, u)
		}
	}
	if carrying {
		l.c.carrying++
	}
	l.mu.Unlock()

	if len(rep.Dropped) == 0 {
		return result, rep, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(result))
	buf.Write(result[:top.start])
	buf.WriteByte('[')
	n := 0
	for i, raw := range blocks {
		if drop[i] {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(raw)
		n++
	}
	if n == 0 {
		note, _ := json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", "Omitted: already in the context as attached resources: " + strings.Join(referred, ", ")})
		buf.Write(note)
	}
	buf.WriteByte(']')
	buf.Write(result[top.end:])
	return buf.Bytes(), rep, nil
}

// candidates decodes (and hashes, outside the lock) the blocks that may
// refer to a resource: links and embedded resources with one payload.
func (l *Ledger) candidates(server string, blocks []json.RawMessage) []candidate {
	cands := make([]candidate, 0, len(blocks))
	for i, raw := range blocks {
		// Only blocks that may be resources or links are decoded.
		if raw[0] != '{' || !bytes.Contains(raw, []byte("resource")) && !bytes.Contains(raw, []byte(`\\u`)) {
			continue
		}
		var b block
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		switch b.Type {
		case "resource_link":
			if b.URI != "" {
				cands = append(cands, candidate{index: i, uri: b.URI, k: l.key(server, b.URI), raw: len(raw)})
			}
		case "resource":
			if b.Resource == nil || b.Resource.URI == "" {
				continue
			}
			m, err := measurePart(b.Resource)
			if err != nil {
				continue
			}
			cands = append(cands, candidate{index: i, uri: b.Resource.URI, k: l.key(server, b.Resource.URI), embed: true, m: m, raw: len(raw)})
		}
	}
	return cands
}

// Confirmations returns the attached documents (by document URI, each once,
// in block order) whose copy a host should confirm with a fresh read before
// it filters result: those a resource_link names, and those an embedded
// resource carries a different copy of. An embedded copy equal to the
// attachment needs no read. It changes nothing and counts nothing; a result
// Filter could not interpret gives none.
func (l *Ledger) Confirmations(server string, result json.RawMessage) []string {
	top, err := scanResult(result)
	if err != nil || top.isError || result[top.start] != '[' {
		return nil
	}
	cands := l.candidates(server, splitArray(result[top.start:top.end]))
	var out []string
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cands {
		p, many := l.resolve(c.k)
		var doc string
		switch {
		case p != nil && p.held:
			continue // kept whatever the copy: nothing to confirm
		case p != nil && (!c.embed || !p.inContext(c.m.sum)):
			doc = p.doc.uri
		case p == nil && many != nil && !c.embed:
			doc = many[0].doc.uri
		default:
			continue
		}
		if !contains(out, doc) {
			out = append(out, doc)
		}
	}
	return out
}

// resolve finds what a block's URI refers to: the part with that URI, or a
// document with that URI. A single-part document stands for its part; for
// a multi-part document without a part under the URI, all its parts are
// returned in many.
func (l *Ledger) resolve(k key) (p *part, many []*part) {
	if p := l.lookupPart(k); p != nil {
		return p, nil
	}
	d := l.docs[k]
	switch {
	case d == nil || len(d.parts) == 0:
		return nil, nil
	case len(d.parts) == 1:
		return d.parts[0], nil
	}
	return nil, d.parts
}

// uriOr names what a dropped block referred to: the part, or the document
// of many.
func (p *part) uriOr(many []*part) string {
	if p != nil {
		return p.uri
	}
	return many[0].doc.uri
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// resultShape locates "content" in a tool result.
type resultShape struct {
	start, end int // byte range of the content value
	isError    bool
}

// scanResult walks the top-level members of a tool result without
// decoding or copying their values.
func scanResult(r []byte) (resultShape, error) {
	var s resultShape
	if !json.Valid(r) {
		var v json.RawMessage
		err := json.Unmarshal(r, &v)
		if len(bytes.TrimSpace(r)) == 0 {
			err = errors.New("empty input")
		}
		return s, fmt.Errorf("dedupe: tool result is not a JSON object: %w", err)
	}
	i := skipWS(r, 0)
	if r[i] != '{' {
		return s, errors.New("dedupe: tool result is not a JSON object")
	}
	found := false
	for i = skipWS(r, i+1); r[i] != '}'; i = skipWS(r, i+1) {
		// r is valid JSON: a string key, ':', a value, then ',' or '}'.
		kend := skipString(r, i)
		name := string(r[i+1 : kend-1])
		if bytes.IndexByte(r[i:kend], '\\') >= 0 {
			json.Unmarshal(r[i:kend], &name)
		}
		vstart := skipWS(r, skipWS(r, kend)+1)
		vend := skipValue(r, vstart)
		switch name {
		case "content":
			if found {
				return s, errors.New(`dedupe: tool result: "content" appears twice`)
			}
			found = true
			s.start, s.end = vstart, vend
		case "isError":
			s.isError = string(r[vstart:vend]) == "true"
		}
		if i = skipWS(r, vend); r[i] == '}' {
			break
		}
	}
	if !found {
		return s, errors.New(`dedupe: tool result has no "content"`)
	}
	return s, nil
}

// splitArray returns the elements of the valid JSON array a as subslices.
func splitArray(a []byte) []json.RawMessage {
	i := skipWS(a, 1)
	if a[i] == ']' {
		return nil
	}
	var out []json.RawMessage
	for {
		end := skipValue(a, i)
		out = append(out, a[i:end:end])
		if i = skipWS(a, end); a[i] == ']' {
			return out
		}
		i = skipWS(a, i+1) // past ','
	}
}

// The skip functions assume valid JSON (checked by json.Valid first).

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
