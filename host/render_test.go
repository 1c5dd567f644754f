//go:build !js

package host_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
)

// hookRenderer is a Markdown hook standing in for the wasm module's render
// Worker: slow, failing or panicking on demand, and counting its calls.
type hookRenderer struct {
	mu     sync.Mutex
	delay  time.Duration
	fail   error // returned instead of rendering
	panics bool
	calls  map[string]int // by source text
	during func()         // called inside the hook (with the host's locks, if any, held)
}

func (r *hookRenderer) render(src, baseURI string, remote bool) (string, string, error) {
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[src]++
	delay, fail, panics, during := r.delay, r.fail, r.panics, r.during
	r.mu.Unlock()
	if during != nil {
		during()
	}
	time.Sleep(delay)
	if panics {
		panic("renderer bug")
	}
	if fail != nil {
		return "", "", fail
	}
	return attach.DefaultMarkdown(src, baseURI, remote)
}

func (r *hookRenderer) callsOf(src string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[src]
}

// within fails the test when f does not return within d: a call that takes
// a lock the hook's caller holds would never return.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Errorf("%s did not return within %v while the Markdown hook ran (a host lock is held)", what, d)
	}
}

// TestMarkdownHookHoldsNoLock: the page's synchronous calls (attachments,
// mention, detach of another URI) answer while a slow hook renders, from
// inside the hook and from elsewhere, for the first read and for re-reads
// after an update; the attach resolves with the rendered part.
func TestMarkdownHookHoldsNoLock(t *testing.T) {
	const u, other = "docs://a/slow.md", "docs://a/other.md"
	d, url := newDocServer(t, map[string]string{u: "# v1", other: "# other"})
	r := &hookRenderer{delay: 200 * time.Millisecond}
	var hp atomic.Pointer[host.Host]
	var insideCalls atomic.Int64
	r.during = func() {
		h := hp.Load()
		if h == nil {
			return
		}
		within(t, time.Second, "Attachments/Mention/AttachedURIs from inside the hook", func() {
			_ = h.Attachments()
			_ = h.Mention("slow", attach.QueryOptions{Limit: 5})
			_ = h.AttachedURIs()
			_ = h.Detach("docs://a/never-attached")
		})
		insideCalls.Add(1)
	}
	h, rec := connect(t, url, &host.Options{Attach: attach.Options{Markdown: r.render}})
	hp.Store(h)

	atts, err := h.Attach(context.Background(), u)
	if err != nil || len(atts) != 1 || !strings.Contains(atts[0].HTML, "<h1>v1</h1>") {
		t.Fatalf("attach: %+v %v", atts, err)
	}
	// An update re-reads and renders again, outside the lock as well, while
	// another goroutine keeps calling the synchronous methods.
	stop := make(chan struct{})
	var polls atomic.Int64
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			within(t, time.Second, "Attachments during a re-render", func() { _ = h.Attachments() })
			polls.Add(1)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	d.set(u, "# v2")
	e := rec.wait(t, host.EventUpdated, u)
	close(stop)
	if !strings.Contains(e.Parts[0].HTML, "<h1>v2</h1>") {
		t.Fatalf("updated parts: %+v", e.Parts)
	}
	if insideCalls.Load() < 2 || polls.Load() < 5 {
		t.Fatalf("inside calls %d, polls %d", insideCalls.Load(), polls.Load())
	}
}

// TestMarkdownHookFailureIsPlainText: a hook that fails (the Worker passed
// its budget or crashed) or panics leaves the part as its escaped text in a
// <pre> with a warning naming the failure; attach still resolves, the part
// is still for the model, and the next document renders.
func TestMarkdownHookFailureIsPlainText(t *testing.T) {
	const bad, good = "docs://a/bad.md", "docs://a/good.md"
	_, url := newDocServer(t, map[string]string{bad: "# <b>x</b> & y", good: "# fine"})
	r := &hookRenderer{fail: errors.New("Markdown rendering passed its 50 ms budget (renderBudgetMs)")}
	h, _ := connect(t, url, &host.Options{Attach: attach.Options{Markdown: r.render}})

	check := func(want string) {
		t.Helper()
		atts, err := h.Attach(context.Background(), bad)
		if err != nil || len(atts) != 1 {
			t.Fatalf("attach: %+v %v", atts, err)
		}
		a := atts[0]
		if a.HTML != "<pre># &lt;b&gt;x&lt;/b&gt; &amp; y</pre>\n" || !host.ForModel(&a) || a.Text != "# <b>x</b> & y" {
			t.Fatalf("fallback part: html %q text %q state %q", a.HTML, a.Text, a.State)
		}
		if !strings.Contains(strings.Join(a.Warnings, "\n"), want+"; shown as escaped plain text, not rendered") {
			t.Fatalf("warnings %q, want one with %q", a.Warnings, want)
		}
		h.Detach(bad)
	}
	check("passed its 50 ms budget (renderBudgetMs)")

	r.mu.Lock()
	r.fail, r.panics = nil, true
	r.mu.Unlock()
	// Detached, then attached again with the same text: the cache of the
	// failed rendering belongs to the host and still answers. A new text
	// would reach the panicking hook: use a new host for that.
	h2, _ := connect(t, url, &host.Options{Attach: attach.Options{Markdown: r.render}})
	h = h2
	check("markdown could not be rendered (renderer panic: renderer bug)")

	r.mu.Lock()
	r.panics = false
	r.mu.Unlock()
	atts, err := h.Attach(context.Background(), good)
	if err != nil || atts[0].HTML != "<h1>fine</h1>\n" {
		t.Fatalf("the next document: %+v %v", atts, err)
	}
}

// TestMarkdownRenderCache: the same text is rendered once per part URI,
// however often it is re-read (refresh, an update that changed nothing);
// a new text is rendered again, and so is the same text under another URI.
func TestMarkdownRenderCache(t *testing.T) {
	const u, w = "docs://a/one.md", "docs://a/two.md"
	d, url := newDocServer(t, map[string]string{u: "# same", w: "# same"})
	r := &hookRenderer{}
	h, rec := connect(t, url, &host.Options{Attach: attach.Options{Markdown: r.render}})
	if _, err := h.Attach(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := h.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := d.readsOf(u); n != 4 {
		t.Fatalf("%d reads, want 4", n)
	}
	if n := r.callsOf("# same"); n != 1 {
		t.Fatalf("rendered %d times, want once", n)
	}
	if _, err := h.Attach(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	if n := r.callsOf("# same"); n != 2 {
		t.Fatalf("another URI: rendered %d times in all, want 2", n)
	}
	d.set(u, "# changed")
	if e := rec.wait(t, host.EventUpdated, u); e.Parts[0].HTML != "<h1>changed</h1>\n" {
		t.Fatalf("updated: %+v", e.Parts)
	}
	if n := r.callsOf("# changed"); n != 1 {
		t.Fatalf("new text rendered %d times", n)
	}
}

// TestMarkdownHookPastTheCallTimeout: the call deadline is the server's. A
// read answered in time whose parts take longer to make (a Markdown render
// bounded by its own budget) resolves with them, never with a timeout that
// would lose the copy; a cancelled attach still rejects at once.
func TestMarkdownHookPastTheCallTimeout(t *testing.T) {
	const u, w = "docs://a/big.md", "docs://a/other.md"
	_, url := newDocServer(t, map[string]string{u: "# big", w: "# other"})
	// The call timeout leaves an in-process read room under -race on a
	// loaded machine; the render takes well past it.
	const timeout, render = 500 * time.Millisecond, 1200 * time.Millisecond
	r := &hookRenderer{delay: render}
	h, _ := connect(t, url, &host.Options{Timeout: timeout, Attach: attach.Options{Markdown: r.render}})
	start := time.Now()
	atts, err := h.Attach(context.Background(), u)
	if err != nil || len(atts) != 1 || atts[0].HTML != "<h1>big</h1>\n" {
		t.Fatalf("attach past the call timeout while rendering: %+v %v", atts, err)
	}
	if d := time.Since(start); d < render {
		t.Fatalf("resolved after %v, before the render ended", d)
	}
	if got := h.AttachedURIs(); len(got) != 1 || got[0] != u {
		t.Fatalf("attached: %v", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel) // while rendering, before the call deadline
	start = time.Now()
	if _, err := h.Attach(ctx, w); err == nil || time.Since(start) > render-200*time.Millisecond {
		t.Fatalf("cancelled attach: %v after %v", err, time.Since(start))
	} else if be, ok := bridge.AsError(err); !ok || be.Kind != bridge.KindCancelled {
		t.Fatalf("cancelled attach: kind %v", err)
	}
	time.Sleep(render) // the render ends; the entry was removed
	if got := h.AttachedURIs(); len(got) != 1 {
		t.Fatalf("attached after the cancelled attach: %v", got)
	}
}
