//go:build !js

package main

import (
	"fmt"
	"os"
)

// main explains the build: natively this package only exists so that
// `go build ./...` and its tests (the JSON writer) work.
func main() {
	fmt.Fprintln(os.Stderr, "mcphost/wasm is a WebAssembly module: build it with GOOS=js GOARCH=wasm (make wasm)")
	os.Exit(2)
}
