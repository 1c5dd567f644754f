package main

import (
	"errors"
	"fmt"
	"syscall/js"
	"unsafe"

	"github.com/mcphost/mcphost/attach"
)

// renderArg is the argument that starts the module in render-only mode
// (web/render-worker.js passes it as argv[1]).
const renderArg = "-render"

// renderMain is main in render-only mode, inside the page's render Worker:
// it registers globalThis.__mcphost_render(src, baseURI, remoteImages) ->
// [html, plain, error] and blocks forever. Nothing else of the module runs
// there: no host, no socket. src and html are UTF-8 in Uint8Arrays, so the
// page's main thread only copies bytes (the Worker encodes and decodes).
//
// A Go panic is returned as error (the instance stays usable); a JavaScript
// exception thrown through the module (a RangeError when the engine's stack
// overflows) propagates to the Worker, which reports it and closes, since
// the instance is unusable after it.
func renderMain() {
	f := js.FuncOf(func(_ js.Value, args []js.Value) (ret any) {
		out := jsArray.New(3)
		defer func() {
			if r := recover(); r != nil {
				out.SetIndex(0, "")
				out.SetIndex(1, "")
				out.SetIndex(2, fmt.Sprintf("markdown could not be rendered (renderer panic: %v)", r))
				ret = out
			}
		}()
		html, plain, err := attach.DefaultMarkdown(bytesArg(args, 0), strArg(args, 1), len(args) > 2 && args[2].Truthy())
		out.SetIndex(0, bytesValue(html))
		out.SetIndex(1, plain)
		if err != nil {
			out.SetIndex(2, err.Error())
		} else {
			out.SetIndex(2, js.Null())
		}
		return out
	})
	js.Global().Set("__mcphost_render", f)
	select {}
}

// workerMarkdown is the Markdown hook of a host in the page: it hands the
// document to render, the function mcphost.js passes in the connect
// options, and parks the calling goroutine (a read worker of the host, which
// holds no lock of it) until the answer comes; the page's event loop runs
// meanwhile.
//
// render(src, baseURI, remoteImages, budgetMs, done) always answers
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
		type answer struct {
			status, a, b string
		}
		ch := make(chan answer, 1)
		done := js.FuncOf(func(_ js.Value, args []js.Value) any {
			ch <- answer{strArg(args, 0), bytesArg(args, 1), strArg(args, 2)}
			return nil
		})
		defer done.Release()
		if err := invoke(render, bytesValue(src), baseURI, remoteImages, budgetMs, done); err != nil {
			return attach.DefaultMarkdown(src, baseURI, remoteImages)
		}
		r := <-ch
		switch r.status {
		case "ok":
			return r.a, r.b, nil
		case "error":
			return "", "", errors.New(r.a)
		default:
			return attach.DefaultMarkdown(src, baseURI, remoteImages)
		}
	}
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
