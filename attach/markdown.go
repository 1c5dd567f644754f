package attach

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/mcphost/mcphost/attach/internal/gfm"
)

// linkRel is set on every rendered link: the page must not be reachable
// from the target (noopener), leak its URL (noreferrer) or vouch for it
// (nofollow).
const linkRel = "noopener noreferrer nofollow"

// baseAttr is the attribute on the ast.Document through which one render
// passes its base URL to the shared node renderer. Attributes of the
// document node are never written out.
var baseAttr = []byte("mcphost-base")

// RenderMarkdown renders GFM Markdown (tables, strikethrough, autolinks,
// task lists) to HTML that is safe to assign to innerHTML in the host page:
//
//   - raw HTML is never passed through (goldmark's default; WithUnsafe is
//     never used): it becomes an HTML comment;
//   - link and image URLs keep only the http, https and mailto schemes, plus
//     data:image/{png,jpeg,gif,webp,avif} on images (never SVG); any other
//     URL is dropped and the link text stays as plain text;
//   - relative URLs resolve against baseURI only when baseURI is an http(s)
//     URL; otherwise they are dropped;
//   - links carry rel="noopener noreferrer nofollow";
//   - remote (http/https) images become plain links unless remoteImages,
//     so rendering never makes a request the user did not click.
//
// A document that nests lists, block quotes, emphasis or brackets more than
// 100 levels deep, or on which goldmark would do superlinear work (runs of
// unclosed link destinations or unmatched emphasis delimiters, thousands of
// reference definitions in one paragraph), is not rendered: the result is
// its escaped text in a <pre>, so such a document neither overflows the
// browser's stack nor stalls the page for long, and never shows as nothing.
//
// The error is only ever a writer error; no input is rejected. It is safe
// for concurrent use.
func RenderMarkdown(src []byte, baseURI string, remoteImages bool) (string, error) {
	html, _, err := renderMarkdown(src, baseURI, remoteImages)
	return html, err
}

// A MarkdownFunc renders one Markdown document (src, a part's text) to
// sanitized HTML, resolving relative URLs against baseURI and loading remote
// images only with remoteImages, as [DefaultMarkdown] does. plain is why the
// document was shown as escaped plain text instead ("" when it was
// rendered); it becomes a warning. An error means no HTML was produced: the
// caller shows the escaped text with the error as a warning.
//
// A MarkdownFunc may block (the wasm module's waits for a Web Worker); it is
// never called with a lock of package host held. It must be safe for
// concurrent use.
type MarkdownFunc func(src, baseURI string, remoteImages bool) (html, plain string, err error)

// DefaultMarkdown is the built-in [MarkdownFunc]: [RenderMarkdown], plus
// the reason the guard gave when the document was shown as plain text. It
// is what the wasm module's render Worker runs.
func DefaultMarkdown(src, baseURI string, remoteImages bool) (html, plain string, err error) {
	html, plain, err = renderMarkdown([]byte(src), baseURI, remoteImages)
	if err != nil {
		return "", "", fmt.Errorf("markdown could not be rendered: %w", err)
	}
	return html, plain, nil
}

// DefaultMarkdownPrefix is [DefaultMarkdown] for the first piece of a
// document cut by [MarkdownCuts] at end: the guard decides on all of src,
// and when it refuses src the result is all of src as escaped text, with
// the reason; otherwise it is the rendering of src[:end] alone. The piece
// needs no verdict of its own: goldmark's work on a prefix ending where
// every block is closed is part of its work on the whole, which the guard
// bounded. An end outside (0, len(src)) renders all of src.
func DefaultMarkdownPrefix(src string, end int, baseURI string, remoteImages bool) (html, plain string, err error) {
	if end <= 0 || end >= len(src) {
		return DefaultMarkdown(src, baseURI, remoteImages)
	}
	b := []byte(src)
	if why := mdGuard(b); why != "" {
		return plainTextHTML(b), why, nil
	}
	b = b[:end:end]
	html, err = renderTree(markdownFor(remoteImages).Parser().Parse(text.NewReader(b)), b, baseURI, remoteImages)
	if err != nil {
		return "", "", fmt.Errorf("markdown could not be rendered: %w", err)
	}
	return html, "", nil
}

// renderMarkdown is [RenderMarkdown] that also says why a document was
// shown as plain text ("" when it was rendered).
func renderMarkdown(src []byte, baseURI string, remoteImages bool) (out, plain string, err error) {
	if why := mdGuard(src); why != "" {
		return plainTextHTML(src), why, nil
	}
	md := markdownFor(remoteImages)
	doc := md.Parser().Parse(text.NewReader(src))
	out, err = renderTree(doc, src, baseURI, remoteImages)
	return out, "", err
}

// renderTree renders a parsed document under the URL policy. It is what
// goldmark's renderer does, with the tree walked in a loop instead of by
// recursion: under js/wasm a recursion as deep as the tree runs on the
// engine's stack, and a tree deeper than the guard's estimates (a shape it
// does not model) must not overflow it.
func renderTree(doc ast.Node, src []byte, baseURI string, remoteImages bool) (string, error) {
	if u, err := url.Parse(baseURI); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		doc.SetAttribute(baseAttr, u)
	}
	w := &htmlWriter{b: make([]byte, 0, len(src)+len(src)*3/4+4096)}
	funcs := renderFuncsFor(remoteImages)
	for n, entering := doc, true; ; {
		status := ast.WalkContinue
		if k := int(n.Kind()); k < len(funcs) && funcs[k] != nil {
			var err error
			if status, err = funcs[k](w, src, n, entering); err != nil {
				return "", err
			}
		}
		switch {
		case status == ast.WalkStop:
		case entering && status != ast.WalkSkipChildren && n.FirstChild() != nil:
			n = n.FirstChild()
			continue
		case entering:
			entering = false // leave n next
			continue
		case n != doc && n.NextSibling() != nil:
			n, entering = n.NextSibling(), true
			continue
		case n != doc:
			n = n.Parent() // leave the parent next
			continue
		}
		break
	}
	return unsafe.String(unsafe.SliceData(w.b), len(w.b)), nil
}

// htmlWriter is the util.BufWriter renderTree renders into: one slice the
// HTML is appended to and then handed out as the string, sized for HTML
// up to 1.75 times as long as its Markdown (the bench's 1 MB changelog
// makes 1.51 times its size; capacity to spare costs its zeroing, a
// regrowth a copy of all that was written). A bufio.Writer over a bytes.Buffer wrote every byte
// twice, and Buffer.String copied the whole once more: 1 MB of Markdown
// made 5.4 MB of allocations beside the tree for its 1.6 MB of HTML.
type htmlWriter struct{ b []byte }

func (w *htmlWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func (w *htmlWriter) WriteString(s string) (int, error) {
	w.b = append(w.b, s...)
	return len(s), nil
}

func (w *htmlWriter) WriteByte(c byte) error {
	w.b = append(w.b, c)
	return nil
}

func (w *htmlWriter) WriteRune(r rune) (int, error) {
	n := len(w.b)
	w.b = utf8.AppendRune(w.b, r)
	return len(w.b) - n, nil
}

// Available, Buffered and Flush make it a util.BufWriter: nothing is held
// back, so there is nothing to flush.
func (w *htmlWriter) Available() int { return cap(w.b) - len(w.b) }
func (w *htmlWriter) Buffered() int  { return 0 }
func (w *htmlWriter) Flush() error   { return nil }

// funcTable collects node renderer functions by kind, as goldmark's
// renderer does when it is set up.
type funcTable []renderer.NodeRendererFunc

func (t *funcTable) Register(k ast.NodeKind, f renderer.NodeRendererFunc) {
	for int(k) >= len(*t) {
		*t = append(*t, nil)
	}
	(*t)[k] = f
}

var (
	funcsOnce   [2]sync.Once
	funcsByMode [2]funcTable
)

// renderFuncsFor returns the functions goldmark.New with GFM and
// linkRenderer registers, for one remoteImages mode: the HTML renderer
// (priority 1000) first, then GFM's (500), then linkRenderer (100), each
// overriding the kinds it registers, as goldmark orders them.
func renderFuncsFor(remoteImages bool) funcTable {
	k := 0
	if remoteImages {
		k = 1
	}
	funcsOnce[k].Do(func() {
		for _, nr := range []renderer.NodeRenderer{
			html.NewRenderer(),
			gfm.NewTableHTMLRenderer(),
			gfm.NewStrikethroughHTMLRenderer(),
			gfm.NewTaskCheckBoxHTMLRenderer(),
			&linkRenderer{remoteImages: remoteImages},
		} {
			nr.RegisterFuncs(&funcsByMode[k])
		}
	})
	return funcsByMode[k]
}

// plainTextHTML is the fallback rendering: the escaped source in a <pre>.
func plainTextHTML(src []byte) string {
	return "<pre>" + string(util.EscapeHTML(src)) + "</pre>\n"
}

var (
	mdOnce   [2]sync.Once
	mdByMode [2]goldmark.Markdown
)

// markdownFor returns the shared converter for one remoteImages mode.
// goldmark parsers and renderers are safe for concurrent use once built.
func markdownFor(remoteImages bool) goldmark.Markdown {
	k := 0
	if remoteImages {
		k = 1
	}
	mdOnce[k].Do(func() {
		mdByMode[k] = goldmark.New(
			goldmark.WithExtensions(gfm.GFM),
			goldmark.WithRendererOptions(renderer.WithNodeRenderers(
				// Priority below the HTML renderer's 1000 wins the kinds.
				util.Prioritized(&linkRenderer{remoteImages: remoteImages}, 100),
			)),
		)
	})
	return mdByMode[k]
}

// linkRenderer renders links, autolinks and images under the URL policy.
type linkRenderer struct {
	remoteImages bool
}

func (r *linkRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindLink, r.renderLink)
	reg.Register(ast.KindAutoLink, r.renderAutoLink)
	reg.Register(ast.KindImage, r.renderImage)
}

func baseOf(n ast.Node) *url.URL {
	for n.Parent() != nil {
		n = n.Parent()
	}
	if v, ok := n.AttributeString(string(baseAttr)); ok {
		if u, ok := v.(*url.URL); ok {
			return u
		}
	}
	return nil
}

func insideLink(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindLink {
			return true
		}
	}
	return false
}

func writeAnchorOpen(w util.BufWriter, href string, title []byte) {
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(util.EscapeHTML([]byte(href)))
	_, _ = w.WriteString(`" rel="` + linkRel + `"`)
	if len(title) > 0 {
		_, _ = w.WriteString(` title="`)
		html.DefaultWriter.Write(w, title)
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
}

func (r *linkRenderer) renderLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	href, ok := safeURL(n.Destination, true, baseOf(n), false)
	if !ok {
		return ast.WalkContinue, nil // the text stays, the URL goes
	}
	if entering {
		writeAnchorOpen(w, href, n.Title)
	} else {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkContinue, nil
}

func (r *linkRenderer) renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	raw := n.URL(source)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(raw), []byte("mailto:")) {
		raw = append([]byte("mailto:"), raw...)
	}
	label := util.EscapeHTML(n.Label(source))
	// Autolink text is literal: no entity or backslash processing.
	href, ok := safeURL(raw, false, nil, false)
	if !ok || insideLink(n) {
		_, _ = w.Write(label)
		return ast.WalkContinue, nil
	}
	writeAnchorOpen(w, href, nil)
	_, _ = w.Write(label)
	_, _ = w.WriteString("</a>")
	return ast.WalkContinue, nil
}

func (r *linkRenderer) renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	var alt bytes.Buffer
	plainText(&alt, source, n)
	altHTML := util.EscapeHTML(alt.Bytes())
	src, ok := safeURL(n.Destination, true, baseOf(n), true)
	switch {
	case !ok:
		_, _ = w.Write(altHTML)
	case isRemote(src) && !r.remoteImages:
		// A link the user may click instead of a request made for them.
		if insideLink(n) {
			_, _ = w.Write(altHTML)
			break
		}
		writeAnchorOpen(w, src, n.Title)
		if alt.Len() == 0 {
			_, _ = w.Write(util.EscapeHTML([]byte(src)))
		} else {
			_, _ = w.Write(altHTML)
		}
		_, _ = w.WriteString("</a>")
	default:
		_, _ = w.WriteString(`<img src="`)
		_, _ = w.Write(util.EscapeHTML([]byte(src)))
		_, _ = w.WriteString(`" alt="`)
		_, _ = w.Write(altHTML)
		_ = w.WriteByte('"')
		if len(n.Title) > 0 {
			_, _ = w.WriteString(` title="`)
			html.DefaultWriter.Write(w, n.Title)
			_ = w.WriteByte('"')
		}
		if isRemote(src) {
			_, _ = w.WriteString(` referrerpolicy="no-referrer" loading="lazy"`)
		}
		_ = w.WriteByte('>')
	}
	return ast.WalkSkipChildren, nil
}

// plainText collects the text of an image description (its alt text),
// walking the description's tree in a loop (see renderTree).
func plainText(buf *bytes.Buffer, source []byte, n ast.Node) {
	for c := n.FirstChild(); c != nil; {
		switch t := c.(type) {
		case *ast.Text:
			buf.Write(t.Segment.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				buf.WriteByte(' ')
			}
		case *ast.String:
			buf.Write(t.Value)
		case *ast.AutoLink:
			buf.Write(t.Label(source))
		default:
			if f := c.FirstChild(); f != nil {
				c = f
				continue
			}
		}
		for c != n && c.NextSibling() == nil {
			c = c.Parent()
		}
		if c == n {
			return
		}
		c = c.NextSibling()
	}
}

func isRemote(u string) bool {
	l := strings.ToLower(u)
	return strings.HasPrefix(l, "http:") || strings.HasPrefix(l, "https:")
}

// safeImageData lists the data: image types allowed on img src. SVG is
// excluded: it is a document that can carry script.
var safeImageData = []string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"}

// safeURL applies the URL policy to a Markdown destination (raw source
// bytes; with resolveRefs, entities and backslash escapes are decoded first,
// as for link destinations but not autolinks) and returns
// the URL to write, or false when the URL must be dropped.
func safeURL(dest []byte, resolveRefs bool, base *url.URL, image bool) (string, bool) {
	// Decode entities and escapes exactly as goldmark's renderer would,
	// percent-encoding what is not URL-safe (controls, spaces, non-ASCII).
	s := string(util.URLEscape(dest, resolveRefs))
	if s == "" {
		return "", false
	}
	if image && hasPrefixFold(s, "data:") {
		rest := s[len("data:"):]
		for _, t := range safeImageData {
			if hasPrefixFold(rest, t) && len(rest) > len(t) && (rest[len(t)] == ';' || rest[len(t)] == ',') {
				return s, true
			}
		}
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", false
		}
		return u.String(), true
	case "mailto":
		if image {
			return "", false
		}
		return u.String(), true
	case "":
		if base == nil {
			return "", false
		}
		r := base.ResolveReference(u)
		if (r.Scheme != "http" && r.Scheme != "https") || r.Host == "" {
			return "", false
		}
		return r.String(), true
	default:
		return "", false
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// minSplitPiece is the smallest piece [MarkdownCuts] cuts: below it the
// second render Worker's message round trip and start are not worth the
// time saved.
const minSplitPiece = 64 << 10

// MarkdownCuts returns up to n-1 offsets, in increasing order, at which src
// may be cut into pieces that render on their own (each parsed as a
// document of its own) to HTML which, concatenated, is byte for byte
// src's rendering: the page splits a large document this way to render it
// in two Workers at once. Nil means src is not cut (shorter than two pieces
// of 64 KiB, or no offset is proven safe).
//
// A cut is only ever made at the start of an ATX heading at the margin
// ('#' in the line's first column) that follows a blank line outside every
// top-level fenced code block: there goldmark has closed every block
// (lists and quotes end at an unindented line after a blank one, a
// paragraph at the blank line), and nothing after it changes what came
// before. What this scan does not model ends the search for cuts, never
// makes one: a line that may open an HTML block outside a container (one
// may run over blank lines), an indented fence (it may or may not be in a
// list item), a closing fence after a tab. A document that may define a link
// reference ("]:" anywhere; a definition applies to the whole document) or
// has line endings or spaces other than '\n', ' ' and '\t' ('\r', '\v',
// '\f') is never cut. FuzzMarkdownCuts holds the concatenated rendering of
// the pieces to the whole document's.
func MarkdownCuts(src string, n int) []int {
	return markdownCuts(src, n, minSplitPiece)
}

// markdownCuts is [MarkdownCuts] with pieces of at least minPiece bytes.
func markdownCuts(src string, n, minPiece int) []int {
	minPiece = max(minPiece, 1)
	if n < 2 || len(src) < 2*minPiece || strings.Contains(src, "]:") || hasCRVTFF(src) {
		return nil
	}
	n = min(n, len(src)/minPiece)
	var cuts []int
	last := 0                     // the last cut (0: none yet)
	next := len(src) / n          // the next cut is at or after this offset
	fence, fenceLen := byte(0), 0 // the open top-level fence
	prevBlank := false
	for ls := 0; ls < len(src) && len(cuts) < n-1; {
		le := strings.IndexByte(src[ls:], '\n')
		if le < 0 {
			le = len(src)
		} else {
			le += ls
		}
		line := src[ls:le]
		blank := strings.Trim(line, " \t") == ""
		switch {
		case fence != 0:
			closes, unsure := closesTopFence(line, fence, fenceLen)
			if unsure {
				return cuts
			}
			if closes {
				fence = 0
			}
			blank = false
		case blank:
		default:
			if k, c := fenceRun([]byte(line)); k > 0 {
				if line[0] != c {
					return cuts // an indented fence: it may be inside a list item
				}
				fence, fenceLen = c, k
				blank = false
				break
			}
			// A line whose text starts with '<' after nothing but
			// indentation may open an HTML block, and an indented fence
			// may be inside a list item or not: cuts stop at both. Behind
			// a container marker they are inside that container, which is
			// closed by the time a cut can follow (an unindented line after
			// a blank one, which no HTML block or fence continues lazily).
			if i := len(line) - len(strings.TrimLeft(line, " \t")); line[i] == '<' ||
				(i > 0 && (strings.HasPrefix(line[i:], "```") || strings.HasPrefix(line[i:], "~~~"))) {
				return cuts
			}
			if prevBlank && ls >= next && ls-last >= minPiece && len(src)-ls >= minPiece && isATXHeading([]byte(line)) {
				cuts = append(cuts, ls)
				last = ls
				if len(cuts) < n-1 {
					next = ls + (len(src)-ls)/(n-len(cuts))
				}
			}
		}
		prevBlank = blank
		ls = le + 1
	}
	return cuts
}

// closesTopFence reports whether line closes the top-level fence of n
// characters c, as goldmark decides it (fewer than four columns of
// indentation, then n or more of c, then only spaces and tabs); unsure when
// tabs in its indentation would make the answer depend on tab stops.
func closesTopFence(line string, c byte, n int) (closes, unsure bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		if line[i] == '\t' {
			return false, strings.IndexByte(line, c) >= 0
		}
		i++
	}
	if i > 3 {
		return false, false
	}
	j := i
	for j < len(line) && line[j] == c {
		j++
	}
	return j-i >= n && strings.Trim(line[j:], " \t") == "", false
}

// hasCRVTFF reports whether s holds a CR, VT or FF: three IndexByte scans
// (assembly, also under wasm) cost 0.7 ms for 1 MB there, ContainsAny 3.2.
func hasCRVTFF(s string) bool {
	return strings.IndexByte(s, '\r') >= 0 || strings.IndexByte(s, '\v') >= 0 || strings.IndexByte(s, '\f') >= 0
}
