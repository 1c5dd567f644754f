//go:build !js

package docserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"image"
	_ "image/gif" // image sizes in descriptions
	_ "image/jpeg"
	_ "image/png"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
)

// A doc is one indexed document. Docs are immutable: a change replaces the
// doc in a new snapshot.
type doc struct {
	team, kind, name string
	path             string // team/kind/name inside the root
	uri              string // docs://team/{team}/{kind}/{name}
	title            string
	description      string
	mimeType         string
	text             bool // served as text (valid UTF-8 of a textual type)
	size             int64
	modTime          time.Time
	sum              [32]byte
	id               fileID // the file read at the scan (zero for an fs.FS without inodes)
	search           string // lowercased searchable text (metadata + text content)
}

// A fileID identifies a file by device and inode. A read checks it against
// the index, so a file replaced since the scan (by a hard link to another
// team's document, say) is not served in the indexed one's place. links is
// the file's link count when read (not part of its identity).
type fileID struct{ dev, ino, links uint64 }

// same reports whether a and b are the same file.
func (a fileID) same(b fileID) bool { return a.dev == b.dev && a.ino == b.ino }

// docURI builds the resource URI of team/kind/name, escaping each segment.
func docURI(team, kind, name string) string {
	return "docs://team/" + url.PathEscape(team) + "/" + url.PathEscape(kind) + "/" + url.PathEscape(name)
}

// parseDocURI is the inverse of docURI. It refuses anything that is not
// exactly docs://team/{team}/{kind}/{name} with three clean segments, so no
// URI can name a path outside the documents root.
func parseDocURI(uri string) (team, kind, name string, ok bool) {
	rest, found := strings.CutPrefix(uri, "docs://team/")
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return "", "", "", false
	}
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil || !cleanSegment(u) {
			return "", "", "", false
		}
		parts[i] = u
	}
	return parts[0], parts[1], parts[2], true
}

// cleanSegment accepts one path element: not empty, not . or .., no slash,
// backslash or NUL, not hidden.
func cleanSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00") &&
		!strings.HasPrefix(s, ".") && fs.ValidPath(s)
}

// A snapshot is the corpus at one scan.
type snapshot struct {
	byURI map[string]*doc
	list  []*doc // sorted by URI
}

// A corpusChange is what one rescan found.
type corpusChange struct {
	added, removed, changed []*doc
}

// A corpus indexes a documents root ({team}/{kind}/{name}) and, when
// watched, rescans it to report changes to its listeners.
type corpus struct {
	fsys     fs.FS
	root     *dirRoot // a folder: files are read through it (no symlink followed)
	log      *slog.Logger
	fixedMod time.Time // modification time for files that have none (embedded)

	scanning sync.Mutex // one rescan at a time (the watcher's, or a read's)

	mu        sync.Mutex
	snap      *snapshot
	listeners map[int]func(corpusChange)
	nextID    int
	skipped   map[string]string // path → reason, to log each skip once
}

// newCorpus scans fsys once. fixedMod stands in for a zero modification
// time (embed.FS has none). With root, fsys is only walked (listed) and
// every file is read through root.
func newCorpus(fsys fs.FS, fixedMod time.Time, log *slog.Logger) (*corpus, error) {
	return newCorpusRoot(fsys, nil, fixedMod, log)
}

func newCorpusRoot(fsys fs.FS, root *dirRoot, fixedMod time.Time, log *slog.Logger) (*corpus, error) {
	c := &corpus{fsys: fsys, root: root, log: log, fixedMod: fixedMod, listeners: map[int]func(corpusChange){}, skipped: map[string]string{}}
	snap, err := c.scan(nil)
	if err != nil {
		return nil, err
	}
	c.snap = snap
	return c, nil
}

// current returns the latest snapshot.
func (c *corpus) current() *snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap
}

// attach registers fn for future changes and returns the snapshot they
// follow, atomically, so no change falls between the two. detach undoes it.
func (c *corpus) attach(fn func(corpusChange)) (snap *snapshot, detach func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextID
	c.nextID++
	c.listeners[id] = fn
	return c.snap, func() {
		c.mu.Lock()
		delete(c.listeners, id)
		c.mu.Unlock()
	}
}

// watch rescans every interval until ctx ends.
func (c *corpus) watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.rescan()
		}
	}
}

// rescan scans again and tells the listeners what changed.
func (c *corpus) rescan() {
	c.scanning.Lock()
	defer c.scanning.Unlock()
	old := c.current()
	snap, err := c.scan(old)
	if err != nil {
		c.log.Warn("docs: rescan failed; keeping the previous index", "err", err)
		return
	}
	var ch corpusChange
	for _, d := range snap.list {
		o, ok := old.byURI[d.uri]
		switch {
		case !ok:
			ch.added = append(ch.added, d)
		case o.sum != d.sum:
			// Content changed. A touched file with the same bytes is
			// not a change worth a notification.
			ch.changed = append(ch.changed, d)
		}
	}
	for _, o := range old.list {
		if _, ok := snap.byURI[o.uri]; !ok {
			ch.removed = append(ch.removed, o)
		}
	}
	c.mu.Lock()
	c.snap = snap
	var fns []func(corpusChange)
	if len(ch.added)+len(ch.removed)+len(ch.changed) > 0 {
		for _, fn := range c.listeners {
			fns = append(fns, fn)
		}
	}
	c.mu.Unlock()
	if len(fns) > 0 {
		c.log.Info("docs: documents changed", "added", len(ch.added), "removed", len(ch.removed), "changed", len(ch.changed))
	}
	for _, fn := range fns {
		fn(ch)
	}
}

// readFile reads the document at p: through the folder's root, following no
// symlink, or from the fs.FS. It returns the file's identity when known.
func (c *corpus) readFile(p string) ([]byte, fileID, error) {
	if c.root != nil {
		return c.root.read(p)
	}
	f, err := c.fsys.Open(p)
	if err != nil {
		return nil, fileID{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileID{}, err
	}
	data, err := io.ReadAll(f)
	return data, idOf(fi), err
}

// A mailbox hands one listener its changes in order on a goroutine of its
// own, so a rescan never waits for any connection (see [Server.newServer]).
type mailbox struct {
	fn     func(corpusChange)
	mu     sync.Mutex
	q      []corpusChange
	signal chan struct{} // capacity 1
	stop   chan struct{}
}

func newMailbox(fn func(corpusChange)) *mailbox {
	m := &mailbox{fn: fn, signal: make(chan struct{}, 1), stop: make(chan struct{})}
	go m.run()
	return m
}

// post queues ch; it never blocks.
func (m *mailbox) post(ch corpusChange) {
	m.mu.Lock()
	m.q = append(m.q, ch)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

func (m *mailbox) run() {
	for {
		select {
		case <-m.stop:
			return
		case <-m.signal:
		}
		for {
			m.mu.Lock()
			q := m.q
			m.q = nil
			m.mu.Unlock()
			if len(q) == 0 {
				break
			}
			for _, ch := range q {
				select {
				case <-m.stop:
					return
				default:
				}
				m.fn(ch)
			}
		}
	}
}

// close ends the mailbox's goroutine; changes not yet delivered are dropped.
func (m *mailbox) close() { close(m.stop) }

// skip logs why a path is not served, once per path and reason.
func (c *corpus) skip(p, reason string) {
	c.mu.Lock()
	seen := c.skipped[p] == reason
	c.skipped[p] = reason
	c.mu.Unlock()
	if !seen {
		c.log.Info("docs: skipping file", "path", p, "reason", reason)
	}
}

// scan walks the root. A file whose size and modification time match the
// previous snapshot keeps its doc without being read again.
func (c *corpus) scan(prev *snapshot) (*snapshot, error) {
	snap := &snapshot{byURI: map[string]*doc{}}
	err := fs.WalkDir(c.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			c.skip(p, err.Error())
			return nil
		}
		if p == "." {
			return nil
		}
		depth := strings.Count(p, "/") + 1
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if depth >= 3 {
				c.skip(p, "directory below {team}/{kind}/ (the layout is {team}/{kind}/{name})")
				return fs.SkipDir
			}
			return nil
		}
		if depth != 3 {
			if depth > 1 { // files at the root (such as doc.go) are not documents, silently
				c.skip(p, "not at {team}/{kind}/{name}")
			}
			return nil
		}
		parts := strings.Split(p, "/")
		if !cleanSegment(parts[0]) || !cleanSegment(parts[1]) || !cleanSegment(parts[2]) {
			c.skip(p, "name is not a clean path segment")
			return nil
		}
		if !d.Type().IsRegular() {
			c.skip(p, "not a regular file")
			return nil
		}
		info, err := d.Info()
		if err != nil {
			c.skip(p, err.Error())
			return nil
		}
		uri := docURI(parts[0], parts[1], parts[2])
		mod := info.ModTime()
		if mod.IsZero() {
			mod = c.fixedMod
		}
		if prev != nil {
			if o, ok := prev.byURI[uri]; ok && o.size == info.Size() && o.modTime.Equal(mod) && o.id.same(idOf(info)) {
				snap.byURI[uri] = o
				return nil
			}
		}
		data, id, err := c.readFile(p)
		if err != nil {
			c.skip(p, err.Error()) // includes a symlink on the path
			return nil
		}
		if len(data) == 0 {
			c.skip(p, "empty file (MCP cannot carry an empty text)")
			return nil
		}
		nd := describe(parts[0], parts[1], parts[2], data)
		nd.path, nd.uri, nd.modTime, nd.id = p, uri, mod, id
		snap.byURI[uri] = nd
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scanning documents: %w", err)
	}
	for _, d := range snap.byURI {
		snap.list = append(snap.list, d)
	}
	slices.SortFunc(snap.list, func(a, b *doc) int { return strings.Compare(a.uri, b.uri) })
	return snap, nil
}

// textTypes are the extensions served as text by name, when the bytes are
// valid UTF-8; everything else is sniffed.
var textTypes = map[string]string{
	".md":       "text/markdown",
	".markdown": "text/markdown",
	".txt":      "text/plain",
	".csv":      "text/csv",
	".json":     "application/json",
}

// describe builds the metadata of one document from its bytes.
func describe(team, kind, name string, data []byte) *doc {
	d := &doc{team: team, kind: kind, name: name, size: int64(len(data)), sum: sha256.Sum256(data)}
	ext := strings.ToLower(path.Ext(name))
	if mt, ok := textTypes[ext]; ok && utf8.Valid(data) {
		d.mimeType, d.text = mt, true
	} else {
		m := mimetype.Detect(data)
		d.mimeType = m.String()
		d.text = (strings.HasPrefix(d.mimeType, "text/") || m.Is("application/json")) && utf8.Valid(data)
	}
	switch {
	case d.mimeType == "text/markdown":
		d.title, d.description = markdownSummary(data)
	case strings.HasPrefix(d.mimeType, "image/"):
		d.description = imageSummary(data, d.mimeType, ext)
	case !d.text:
		d.description = fmt.Sprintf("%s file, %d bytes", d.mimeType, len(data))
	}
	if d.title == "" {
		d.title = humanize(name)
	}
	var sb strings.Builder
	sb.WriteString(strings.ToLower(name + "\n" + d.title + "\n" + d.description + "\n" + team + " " + kind + "\n"))
	if d.text {
		sb.WriteString(strings.ToLower(string(data)))
	}
	d.search = sb.String()
	return d
}

// markdownSummary returns the first heading and the first paragraph.
func markdownSummary(data []byte) (title, desc string) {
	var para []string
	inFence := false
	for line := range strings.SplitSeq(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		heading, htext := atxHeading(t)
		if title == "" && heading {
			title = htext
			continue
		}
		if desc != "" {
			break
		}
		switch {
		case t == "":
			if len(para) > 0 {
				desc = strings.Join(para, " ")
				para = nil
			}
		case heading, strings.HasPrefix(t, "|"), strings.HasPrefix(t, "<"),
			strings.HasPrefix(t, "!["), strings.HasPrefix(t, ">"), strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "):
			if len(para) > 0 {
				desc = strings.Join(para, " ")
				para = nil
			}
		default:
			para = append(para, t)
		}
		if title != "" && desc != "" {
			break
		}
	}
	if desc == "" && len(para) > 0 {
		desc = strings.Join(para, " ")
	}
	return title, truncateRunes(strings.Join(strings.Fields(desc), " "), 280)
}

// atxHeading reports whether t is an ATX heading and returns its text.
func atxHeading(t string) (bool, string) {
	h := strings.TrimLeft(t, "#")
	n := len(t) - len(h)
	if n == 0 || n > 6 || (h != "" && h[0] != ' ' && h[0] != '\t') {
		return false, ""
	}
	return true, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
}

func imageSummary(data []byte, mimeType, ext string) string {
	kind := strings.ToUpper(strings.TrimPrefix(mimeType, "image/"))
	s := kind + " image"
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		s += fmt.Sprintf(", %d×%d pixels", cfg.Width, cfg.Height)
	}
	if want := map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif"}[ext]; want != "" && want != mimeType {
		s += fmt.Sprintf(" (saved with a %s extension)", ext)
	}
	return s
}

// humanize turns "deploy-rollback.md" into "Deploy rollback".
func humanize(name string) string {
	base := strings.TrimSuffix(name, path.Ext(name))
	base = strings.Join(strings.FieldsFunc(base, func(r rune) bool { return r == '-' || r == '_' || r == ' ' }), " ")
	if base == "" {
		return name
	}
	r, n := utf8.DecodeRuneInString(base)
	return strings.ToUpper(string(r)) + base[n:]
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
