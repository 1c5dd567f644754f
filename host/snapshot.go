package host

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
)

// The snapshot format: what a page saves with a conversation to reopen its
// documents later (restore.go), with stable digests and optional content.

// Snapshot constants.
const (
	// SnapshotVersion is the version of the snapshot format this host
	// writes and the newest it reads.
	SnapshotVersion = 1
	// DigestAlg names the part digests of a snapshot: SHA-256 of the
	// payload (the text's UTF-8 bytes, a blob's decoded bytes), lowercase
	// hex. Stable across processes and pages, unlike the ledger's.
	DigestAlg = "sha-256"
	// DefaultRestoreTimeout bounds a Restore whose context has no deadline.
	DefaultRestoreTimeout = 30 * time.Second

	maxSnapshotAttachments = 1000
	maxSnapshotParts       = 10000
	maxSnapshotURI         = MaxURIBytes
	restoreConcurrency     = 6
)

// A DigestFunc returns the lowercase hex SHA-256 of data. Natively the
// default is crypto/sha256; the wasm module passes one backed by the
// page's WebCrypto, so crypto/sha256 is not linked into it.
type DigestFunc func(ctx context.Context, data []byte) (string, error)

// A Snapshot is what a host needs to reopen a conversation's documents: a
// plain JSON value (see web/mcphost.d.ts for the JavaScript shape).
type Snapshot struct {
	Version         int                  `json:"version"`
	Server          string               `json:"server"`
	ProtocolVersion string               `json:"protocolVersion"`
	TakenAt         string               `json:"takenAt"`
	DigestAlg       string               `json:"digestAlg"`
	Attachments     []SnapshotAttachment `json:"attachments"`
}

// A SnapshotAttachment is one attached document: its descriptor fields (as
// listed, when it was), its state and its parts.
type SnapshotAttachment struct {
	URI      string         `json:"uri"`
	Name     string         `json:"name,omitempty"`
	Title    string         `json:"title,omitempty"`
	MIMEType string         `json:"mimeType,omitempty"`
	State    string         `json:"state"`
	Parts    []SnapshotPart `json:"parts"`
}

// A SnapshotPart is one part: its digest and, with content, its payload
// (Text, or Blob as standard base64) and _meta.
type SnapshotPart struct {
	URI      string          `json:"uri"`
	Kind     string          `json:"kind"`               // attach.KindText, KindBinary or KindError
	MIMEType string          `json:"mimeType,omitempty"` // as declared by the server
	Digest   string          `json:"digest,omitempty"`   // "" for error parts
	Text     *string         `json:"text,omitempty"`
	Blob     *string         `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// SnapshotOptions configures [Host.Snapshot]. A nil pointer means defaults.
type SnapshotOptions struct {
	// IncludeContent puts each part's payload in the snapshot, so a
	// document that is gone or unreachable at restore keeps its copy.
	IncludeContent bool
}

// invalidSnapshot is the error naming a snapshot's bad field (data.field).
// Messages are concatenated, not formatted: this code is in the wasm module.
func invalidSnapshot(field, msg string) error {
	return &bridge.Error{Kind: bridge.KindInvalid, Message: field + ": " + msg, Data: []byte(`{"field":` + strconv.Quote(field) + `}`)}
}

// ParseSnapshot decodes and checks a snapshot. A malformed one is an error
// of kind invalid naming the field (data.field: "snapshot.attachments[2].uri").
func ParseSnapshot(b []byte) (*Snapshot, error) {
	var w struct {
		Snapshot
		Version     *int                  `json:"version"`
		Attachments *[]SnapshotAttachment `json:"attachments"`
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, invalidSnapshot("snapshot", "not a JSON object")
	}
	if err := json.Unmarshal(b, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, invalidSnapshot("snapshot."+te.Field, te.Value+" where "+te.Type.String()+" is expected")
		}
		return nil, invalidSnapshot("snapshot", err.Error())
	}
	s := w.Snapshot
	if w.Version == nil {
		return nil, invalidSnapshot("snapshot.version", "missing")
	}
	if w.Attachments == nil {
		return nil, invalidSnapshot("snapshot.attachments", "missing")
	}
	s.Version, s.Attachments = *w.Version, *w.Attachments
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// check validates everything but the server.
func (s *Snapshot) check() error {
	switch {
	case s.Version > SnapshotVersion:
		return invalidSnapshot("snapshot.version", strconv.Itoa(s.Version)+" is newer than this host reads (1)")
	case s.Version < 1:
		return invalidSnapshot("snapshot.version", strconv.Itoa(s.Version)+" is not a snapshot version")
	case s.DigestAlg != DigestAlg:
		return invalidSnapshot("snapshot.digestAlg", strconv.Quote(s.DigestAlg)+`, want "sha-256"`)
	case len(s.Attachments) > maxSnapshotAttachments:
		return invalidSnapshot("snapshot.attachments", "more than 1000 attachments")
	}
	seen := make(map[string]bool, len(s.Attachments))
	parts := 0
	for i := range s.Attachments {
		a := &s.Attachments[i]
		f := "snapshot.attachments[" + strconv.Itoa(i) + "]"
		switch {
		case a.URI == "":
			return invalidSnapshot(f+".uri", "missing")
		case len(a.URI) > maxSnapshotURI:
			return invalidSnapshot(f+".uri", "longer than 8 KiB")
		case seen[a.URI]:
			return invalidSnapshot(f+".uri", strconv.Quote(a.URI)+" appears twice")
		}
		seen[a.URI] = true
		switch a.State {
		case StateFresh, StateStale, StateGone, StateSuperseded:
		default:
			return invalidSnapshot(f+".state", strconv.Quote(a.State)+" is not fresh, stale, gone or superseded")
		}
		if parts += len(a.Parts); parts > maxSnapshotParts {
			return invalidSnapshot(f+".parts", "more than 10000 parts in the snapshot")
		}
		withContent := 0
		for j := range a.Parts {
			p := &a.Parts[j]
			pf := f + ".parts[" + strconv.Itoa(j) + "]"
			switch p.Kind {
			case attach.KindText, attach.KindBinary:
				if !isHexDigest(p.Digest) {
					return invalidSnapshot(pf+".digest", "not a lowercase hex SHA-256")
				}
			case attach.KindError:
			default:
				return invalidSnapshot(pf+".kind", strconv.Quote(p.Kind)+" is not text, binary or error")
			}
			switch {
			case p.Text != nil && p.Kind != attach.KindText:
				return invalidSnapshot(pf+".text", "present in a "+p.Kind+" part")
			case p.Blob != nil && p.Kind != attach.KindBinary:
				return invalidSnapshot(pf+".blob", "present in a "+p.Kind+" part")
			case p.Blob != nil:
				if _, err := base64.StdEncoding.Strict().DecodeString(*p.Blob); err != nil {
					return invalidSnapshot(pf+".blob", "not standard base64: "+err.Error())
				}
			}
			if len(p.Meta) > 0 && !json.Valid(p.Meta) {
				return invalidSnapshot(pf+"._meta", "not JSON")
			}
			if p.Text != nil || p.Blob != nil {
				withContent++
			}
		}
		if n := payloadParts(a); withContent != 0 && withContent != n {
			return invalidSnapshot(f+".parts", "some parts carry content and others not: all or none must")
		}
	}
	return nil
}

// validate checks s for a restore on server.
func (s *Snapshot) validate(server string) error {
	if s == nil {
		return invalidSnapshot("snapshot", "missing")
	}
	if s.Server != server {
		return invalidSnapshot("snapshot.server", "taken on "+strconv.Quote(s.Server)+", this host is connected to "+strconv.Quote(server))
	}
	return s.check()
}

func payloadParts(a *SnapshotAttachment) int {
	n := 0
	for i := range a.Parts {
		if a.Parts[i].Kind != attach.KindError {
			n++
		}
	}
	return n
}

// hasCopy reports whether a carries the content of its parts.
func hasCopy(a *SnapshotAttachment) bool {
	for i := range a.Parts {
		if a.Parts[i].Text != nil || a.Parts[i].Blob != nil {
			return true
		}
	}
	return false
}

func isHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// digest is the Options.Digest of the host, or the platform default.
func (h *Host) digest(ctx context.Context, data []byte) (string, error) {
	d := h.o.Digest
	if d == nil {
		d = defaultDigest
	}
	if d == nil {
		return "", &bridge.Error{Kind: bridge.KindUnsupported, Message: "no digest function (Options.Digest) on this platform"}
	}
	return d(ctx, data)
}

// partDigest returns the digest of an attachment's payload ("" for error
// parts).
func (h *Host) partDigest(ctx context.Context, a *attach.Attachment) (string, error) {
	switch a.Kind {
	case attach.KindText:
		return h.digest(ctx, []byte(a.Text))
	case attach.KindBinary:
		b, err := a.BinaryBytes()
		if err != nil {
			return "", err
		}
		return h.digest(ctx, b)
	}
	return "", nil
}

// Snapshot returns the attached documents (pending ones are not attached
// yet) in context order with the digests of their parts, and with
// IncludeContent their payloads. It reads nothing from the server.
func (h *Host) Snapshot(ctx context.Context, opts *SnapshotOptions) (*Snapshot, error) {
	var o SnapshotOptions
	if opts != nil {
		o = *opts
	}
	type doc struct {
		uri   string
		parts []attach.Attachment
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errClosed()
	}
	proto := h.proto
	if h.sess != nil {
		proto = h.sess.InitializeResult().ProtocolVersion
	}
	var docs []doc
	for _, u := range h.order {
		if e := h.atts[u]; e.phase == phaseAttached {
			docs = append(docs, doc{u, cloneAtts(e.parts)})
		}
	}
	h.mu.Unlock()
	s := &Snapshot{Version: SnapshotVersion, Server: h.url, ProtocolVersion: proto, DigestAlg: DigestAlg,
		TakenAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Attachments: make([]SnapshotAttachment, 0, len(docs))}
	for _, d := range docs {
		sa := SnapshotAttachment{URI: d.uri, State: docState(d.parts), Parts: make([]SnapshotPart, len(d.parts))}
		if r := h.descriptorOf(d.uri); len(r) > 0 {
			sa.Name, sa.Title, sa.MIMEType = r[0].Name, r[0].Title, r[0].MIMEType
		} else if len(d.parts) > 0 {
			sa.MIMEType = d.parts[0].DeclaredMIMEType
		}
		for i := range d.parts {
			a := &d.parts[i]
			p := SnapshotPart{URI: a.URI, Kind: a.Kind, MIMEType: a.DeclaredMIMEType}
			dg, err := h.partDigest(ctx, a)
			if err != nil {
				return nil, err
			}
			p.Digest = dg
			if o.IncludeContent {
				switch a.Kind {
				case attach.KindText:
					t := a.Text
					p.Text = &t
				case attach.KindBinary:
					raw, err := a.BinaryBytes()
					if err != nil {
						return nil, err
					}
					b := base64.StdEncoding.EncodeToString(raw)
					p.Blob = &b
				}
				p.Meta = a.Meta
			}
			sa.Parts[i] = p
		}
		s.Attachments = append(s.Attachments, sa)
	}
	return s, nil
}

// docState is the state a document's parts add up to: gone, stale or
// superseded when any part is, else fresh.
func docState(parts []attach.Attachment) string {
	rank := map[string]int{StateFresh: 0, StateSuperseded: 1, StateStale: 2, StateGone: 3}
	st := StateFresh
	for i := range parts {
		if s := parts[i].State; s != "" && rank[s] > rank[st] {
			st = s
		}
	}
	return st
}
