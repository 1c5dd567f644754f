// Command gofloor is the Go runtime's floor in the startup bench: a Go
// program that only exports one function (globalThis.__gofloor, answering
// "pong"), so that its go.run is the cost of the runtime's own start,
// package init and a main, with nothing of mcphost's. bench/bench.js starts
// it cold (?suite=startup&stack=gofloor) beside mcphost and the JS stack.
package main

import "syscall/js"

func main() {
	js.Global().Set("__gofloor", js.FuncOf(func(js.Value, []js.Value) any { return "pong" }))
	select {}
}
