package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall/js"
	"unsafe"

	"github.com/mcphost/mcphost/attach"
	"github.com/mcphost/mcphost/internal/pace"
)

// renderArg is the argument that starts the module in render-only mode
// (web/render-worker.js passes it as argv[1]).
const renderArg = "-render"

// The Go collector in render-only mode runs against a memory limit set per
// job, not at GOGC's pace. A rendering allocates about 33 times its
// document (goldmark's tree: 33 MB for the bench's 1 MB document) and keeps
// nothing after it; with GOGC 100 the collector ran several times per
// rendering, each time marking the tree built so far, and collection and
// allocation were a third of the Worker's time (CDP profile of the Worker).
// With collection off up to renderMemBase + renderMemPerByte bytes per
// source byte (96 MiB for 1 MB) it runs about once per rendering. Measured
// in Node over 12 renderings of that document (CPU time, two runs each):
// GOGC 100 5.7 and 7.4 s, GOGC 200 5.2 and 5.4 s, this 4.6 and 4.3 s, with
// a lower peak resident size than either (258 MB against 417 and 306).
// A tree larger than its limit only makes the collector run more often
// (the runtime caps it at half the CPU); the render budget bounds the time.
// The limit stops at renderMemMax (a 16 MB document's), well inside the
// 4 GiB a wasm32 memory can reach.
// Between jobs the heap is collected (collectAfterJob), so each job starts
// from an empty heap in memory that is already there.
const (
	renderMemBase    = 32 << 20
	renderMemPerByte = 64
	renderMemMax     = 1 << 30
)

// renderMain is main in render-only mode, inside the page's render Worker:
// it registers globalThis.__mcphost_render(src, baseURI, remoteImages, end)
// -> [html, plain, error] and blocks forever. Nothing else of the module
// runs there: no host, no socket. src and html are UTF-8 in Uint8Arrays, so
// the page's main thread only copies bytes (the Worker encodes and
// decodes). end > 0 renders the first piece of a cut document
// ([attach.DefaultMarkdownPrefix]).
//
// A Go panic is returned as error (the instance stays usable); a JavaScript
// exception thrown through the module (a RangeError when the engine's stack
// overflows) propagates to the Worker, which reports it and closes, since
// the instance is unusable after it.
func renderMain() {
	debug.SetGCPercent(-1)
	js.Global().Set("__mcphost_render", js.FuncOf(func(_ js.Value, args []js.Value) any { return renderCall(args) }))
	select {}
}

// renderCall is one job of __mcphost_render (see renderMain).
func renderCall(args []js.Value) (ret any) {
	defer collectAfterJob()
	out := jsArray.New(3)
	defer func() {
		if r := recover(); r != nil {
			out.SetIndex(0, "")
			out.SetIndex(1, "")
			out.SetIndex(2, fmt.Sprintf("markdown could not be rendered (renderer panic: %v)", r))
			ret = out
		}
	}()
	src := bytesArg(args, 0)
	debug.SetMemoryLimit(min(renderMemBase+renderMemPerByte*int64(len(src)), renderMemMax))
	end := 0
	if len(args) > 3 && args[3].Type() == js.TypeNumber {
		end = args[3].Int()
	}
	html, plain, err := attach.DefaultMarkdownPrefix(src, end, strArg(args, 1), len(args) > 2 && args[2].Truthy())
	out.SetIndex(0, bytesValue(html))
	out.SetIndex(1, plain)
	if err != nil {
		out.SetIndex(2, err.Error())
	} else {
		out.SetIndex(2, js.Null())
	}
	return out
}

// collectAfterJob collects the Worker's heap once the job's answer is on
// its way: from a task of its own (a zero timer), so that render-worker.js
// has posted the HTML before the collection runs. Nothing a job allocated
// outlives it, so this collection marks next to nothing, and the next job
// allocates in memory that is already there. Without it the heap grew to
// the memory limit over the Worker's first jobs (about three 1 MB
// documents): every job of that phase first touched new linear memory
// (wasm.GrowMemory and a page fault per page), and the job that reached the
// limit was collected in the middle, marking its half-built tree. In
// Chromium 156 on the bench machine (bench/dist probe, 7 reads of the
// bench's 1 MB document alternating with the JS stack, twice each way) the
// second to fourth reads' pieces took 85–145 ms instead of 162–217, later
// ones 68–132 against 89–122 (docs/bench-history.md, "Markdown, stop 36"); and a
// Worker's linear memory stays about one job's heap instead of the limit.
func collectAfterJob() {
	collector.once.Do(func() {
		collector.fn = js.FuncOf(func(js.Value, []js.Value) any {
			runtime.GC()
			return nil
		})
	})
	js.Global().Call("setTimeout", collector.fn, 0)
}

// collector is the timer's callback, made once: a js.Func per job would be
// one more function the page keeps until it is released.
var collector struct {
	once sync.Once
	fn   js.Func
}

// workerMarkdown is the Markdown hook of a host in the page: it hands the
// document to render, the function mcphost.js passes in the connect
// options, and parks the calling goroutine (a read worker of the host, which
// holds no lock of it) until the answer comes; the page's event loop runs
// meanwhile. A document [attach.MarkdownCuts] cuts into render.workers
// pieces goes as that many jobs at once, one per Worker (see renderPieces).
//
// render(src, baseURI, remoteImages, budgetMs, done, end) always answers
// asynchronously, exactly once, with done(status, a, b); src goes as UTF-8
// bytes (a Uint8Array the page transfers to the Worker):
//   - "ok": a is the HTML (UTF-8 bytes), b why it is plain text ("" when
//     rendered);
//   - "error": a says why there is no HTML (budget passed, Worker crashed);
//     the part shows its escaped text with that warning;
//   - "inline": no Worker can run here (none in this environment, or the
//     page's CSP forbids it): render in this instance, under the guard.
func workerMarkdown(render js.Value, budgetMs float64) attach.MarkdownFunc {
	return func(src, baseURI string, remoteImages bool) (string, string, error) {
		workers := 1
		if v := render.Get("workers"); v.Type() == js.TypeNumber {
			workers = v.Int()
		}
		if cuts := attach.MarkdownCuts(src, workers); len(cuts) > 0 {
			if html, plain, ok, err := renderPieces(render, src, cuts, baseURI, remoteImages, budgetMs); ok {
				return html, plain, err
			}
		}
		r := <-renderJob(render, src, 0, baseURI, remoteImages, budgetMs)
		switch r.status {
		case "ok":
			return joinBytes(r.html()), r.b, nil
		case "error":
			return "", "", errors.New(r.a)
		default:
			return attach.DefaultMarkdown(src, baseURI, remoteImages)
		}
	}
}

// A renderAnswer is what render answered one job with (see workerMarkdown);
// status "inline" also stands for a job that could not be handed over. The
// HTML of an "ok" answer stays in its Uint8Array (bytes) until the answers
// are joined: copied into Go once, into the joined string.
type renderAnswer struct {
	status, a, b string
	bytes        js.Value
}

// html is an "ok" answer's HTML as a Uint8Array (render-worker.js posts
// one; a string from elsewhere is copied into one).
func (r renderAnswer) html() js.Value {
	if r.bytes.Type() == js.TypeObject {
		return r.bytes
	}
	return bytesValue(r.a)
}

// renderJob hands one job to render; the channel delivers its answer.
func renderJob(render js.Value, src string, end int, baseURI string, remoteImages bool, budgetMs float64) <-chan renderAnswer {
	ch := make(chan renderAnswer, 1)
	var done js.Func
	done = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done.Release()
		pace.Resumed() // the Worker's message is a task of the page's own
		r := renderAnswer{status: strArg(args, 0), b: strArg(args, 2)}
		if r.status == "ok" && len(args) > 1 && args[1].Type() == js.TypeObject && args[1].InstanceOf(jsUint8Array) {
			r.bytes = args[1]
		} else {
			r.a = bytesArg(args, 1)
		}
		ch <- r
		return nil
	})
	if err := invoke(render, bytesValue(src), baseURI, remoteImages, budgetMs, done, end); err != nil {
		done.Release()
		ch <- renderAnswer{status: "inline"}
	}
	return ch
}

// renderPieces renders src cut at cuts, one job per piece, all at once: the
// first piece goes with all of src, so that the guard decides on the whole
// document (attach.DefaultMarkdownPrefix), the others alone. ok is false
// when the whole document must go as one job instead: a later piece was
// refused by the guard on its own, which the whole document was not.
func renderPieces(render js.Value, src string, cuts []int, baseURI string, remoteImages bool, budgetMs float64) (html, plain string, ok bool, err error) {
	chans := make([]<-chan renderAnswer, 0, len(cuts)+1)
	chans = append(chans, renderJob(render, src, cuts[0], baseURI, remoteImages, budgetMs))
	for i, c := range cuts {
		next := len(src)
		if i+1 < len(cuts) {
			next = cuts[i+1]
		}
		chans = append(chans, renderJob(render, src[c:next], 0, baseURI, remoteImages, budgetMs))
	}
	answers := make([]renderAnswer, len(chans))
	for i, ch := range chans {
		answers[i] = <-ch // every job answers, so none is left waiting
	}
	if first := answers[0]; first.status == "ok" && first.b != "" {
		return joinBytes(first.html()), first.b, true, nil // the guard refused the document
	}
	for _, r := range answers {
		if r.status == "error" {
			return "", "", true, errors.New(r.a)
		}
	}
	for _, r := range answers {
		if r.status != "ok" {
			html, plain, err = attach.DefaultMarkdown(src, baseURI, remoteImages)
			return html, plain, true, err
		}
	}
	pieces := make([]js.Value, len(answers))
	for i, r := range answers {
		if r.b != "" {
			return "", "", false, nil
		}
		pieces[i] = r.html()
	}
	return joinBytes(pieces...), "", true, nil
}

// joinBytes copies the Uint8Arrays' bytes into one new string (undefined
// values count as empty): one allocation and one copy of each byte, where
// copying each answer into Go as it came and joining the copies made two
// (the bench's 1 MB document: 1.6 MB of HTML, 5–10 ms of the main thread
// in the join alone).
func joinBytes(pieces ...js.Value) string {
	n := 0
	for _, p := range pieces {
		if p.Type() == js.TypeObject {
			n += p.Length()
		}
	}
	if n == 0 {
		return ""
	}
	b := make([]byte, n)
	off := 0
	for _, p := range pieces {
		if p.Type() == js.TypeObject {
			off += js.CopyBytesToGo(b[off:], p)
		}
	}
	return unsafe.String(unsafe.SliceData(b), off)
}

// bytesValue copies s into a new Uint8Array (a copy of bytes, where a
// string crossing would be encoded by the engine).
func bytesValue(s string) js.Value {
	u := jsUint8Array.New(len(s))
	if len(s) > 0 {
		js.CopyBytesToJS(u, unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	return u
}

// bytesArg reads args[i] as UTF-8 bytes from a Uint8Array, or as a string.
func bytesArg(args []js.Value, i int) string {
	if i >= len(args) {
		return ""
	}
	v := args[i]
	if v.Type() != js.TypeObject || !v.InstanceOf(jsUint8Array) {
		return strArg(args, i)
	}
	b := make([]byte, v.Length())
	js.CopyBytesToGo(b, v)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// invoke calls f, turning a JavaScript exception into an error.
func invoke(f js.Value, args ...any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f.Invoke(args...)
	return nil
}
