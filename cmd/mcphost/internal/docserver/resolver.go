//go:build !js

package docserver

import (
	"errors"
	"io/fs"
	"log/slog"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errNoDocument is the one answer for a document that does not exist, that
// the principal may not read, or whose URI is not a clean docs:// URI. The
// doors turn it into go-sdk's not-found error, so a denied read is
// byte-identical to a missing one.
var errNoDocument = errors.New("no such document")

// A resolver is the single place where a document URI becomes bytes: URI
// parsing, the authorization check and the storage access. The resource
// handler and the fetch_document tool both call readDocument.
type resolver struct {
	corpus *corpus
	log    *slog.Logger
}

// readDocument returns the contents of uri for p, or errNoDocument. Only the
// canonical spelling of an indexed document's URI is accepted; for a folder
// the file is opened following no symlink on its path (openat2
// RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH) and must be the file indexed (device
// and inode), so no URI reaches outside the documents root or into another
// team's folder through a link swapped in since the scan.
func (r *resolver) readDocument(uri string, p *Principal) (*mcp.ResourceContents, error) {
	team, kind, name, ok := parseDocURI(uri)
	if !ok || p == nil || !p.mayRead(team) || docURI(team, kind, name) != uri {
		return nil, errNoDocument
	}
	d := r.corpus.current().byURI[uri]
	if d == nil {
		return nil, errNoDocument
	}
	data, id, err := r.corpus.readFile(d.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.log.Warn("docs: read refused", "uri", uri, "err", err)
		}
		return nil, errNoDocument
	}
	if !id.same(d.id) {
		// Replaced since the scan. An editor's atomic save (a new file
		// renamed over the old) does that: with one link, the file is no
		// other document, so the folder is scanned now and the read goes on
		// if the index then holds this very file. A file with more links may
		// be another team's document linked in: refused until a scan
		// indexes it (see the package doc).
		if id.links == 1 {
			r.corpus.rescan()
			d = r.corpus.current().byURI[uri]
		}
		if d == nil || !id.same(d.id) {
			r.log.Warn("docs: read refused: the file is not the one indexed (replaced since the last scan; the next scan indexes it anew)",
				"uri", uri)
			return nil, errNoDocument
		}
	}
	if len(data) == 0 { // emptied since the last scan; the next scan drops it
		return nil, errNoDocument
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: d.mimeType}
	if d.text && utf8.Valid(data) {
		c.Text = string(data)
	} else {
		if d.text { // no longer valid text since the last scan
			c.MIMEType = "application/octet-stream"
		}
		c.Blob = data
	}
	return c, nil
}
