package host

import (
	"sync"

	"github.com/mcphost/mcphost/attach"
)

// Bounds of a host's render cache: entries and bytes (source plus HTML). The
// strings are those of the attachments, so while a document is attached its
// entry costs nothing more.
const (
	renderCacheEntries = 256
	renderCacheBytes   = 64 << 20
)

// A renderCache remembers the last rendering of each part URI, so a re-read
// that returns the same text (a refresh, an update that changed another
// part, a server re-sending a document on every resources/updated) is not
// rendered again. In the page a rendering costs render-Worker time, and a
// document past its time budget would otherwise restart the Worker on every
// re-read. Errors are remembered too: the same text gets the same result.
//
// It has its own lock, never held while rendering, and never h.mu.
type renderCache struct {
	render attach.MarkdownFunc

	mu    sync.Mutex
	m     map[string]*rendered // by base URI (the part's URI)
	order []string             // insertion order of m's keys, oldest first
	bytes int
}

type rendered struct {
	src         string
	remote      bool
	html, plain string
	err         error
}

func (r *rendered) size() int { return len(r.src) + len(r.html) }

// cachedMarkdown wraps f (nil: attach.DefaultMarkdown) with a render cache.
func cachedMarkdown(f attach.MarkdownFunc) attach.MarkdownFunc {
	if f == nil {
		f = attach.DefaultMarkdown
	}
	c := &renderCache{render: f, m: map[string]*rendered{}}
	return c.markdown
}

func (c *renderCache) markdown(src, baseURI string, remoteImages bool) (string, string, error) {
	c.mu.Lock()
	if r := c.m[baseURI]; r != nil && r.remote == remoteImages && r.src == src {
		c.mu.Unlock()
		return r.html, r.plain, r.err
	}
	c.mu.Unlock()

	html, plain, err := c.render(src, baseURI, remoteImages)

	c.mu.Lock()
	defer c.mu.Unlock()
	r := &rendered{src: src, remote: remoteImages, html: html, plain: plain, err: err}
	if old := c.m[baseURI]; old != nil {
		c.bytes -= old.size()
	} else {
		c.order = append(c.order, baseURI)
	}
	c.m[baseURI] = r
	c.bytes += r.size()
	for len(c.order) > 1 && (len(c.order) > renderCacheEntries || c.bytes > renderCacheBytes) {
		k := c.order[0]
		c.order = c.order[1:]
		c.bytes -= c.m[k].size()
		delete(c.m, k)
	}
	return html, plain, err
}
