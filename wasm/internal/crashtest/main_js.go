package main

import (
	"syscall/js"
	"time"
)

// crashAfter leaves the page time to start a call that will never be answered.
const crashAfter = 500 * time.Millisecond

func main() {
	pair := func(v any) js.Value { return js.ValueOf([]any{nil, v}) }
	o := js.Global().Get("Object").New()
	o.Set("connect", js.FuncOf(func(_ js.Value, a []js.Value) any {
		done := a[4]
		go func() {
			done.Invoke(js.Null(), 1)
			time.Sleep(crashAfter)
			panic("crashtest: deliberate crash of the Go runtime")
		}()
		return nil
	}))
	o.Set("info", js.FuncOf(func(js.Value, []js.Value) any {
		return pair(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"crashtest","version":"0"}}`)
	}))
	o.Set("attach", js.FuncOf(func(js.Value, []js.Value) any { return nil })) // never answers
	o.Set("attachments", js.FuncOf(func(js.Value, []js.Value) any { return pair([]any{}) }))
	o.Set("cancel", js.FuncOf(func(js.Value, []js.Value) any { return nil }))
	js.Global().Set("__mcphost_go", o)
	select {}
}
