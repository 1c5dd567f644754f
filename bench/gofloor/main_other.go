//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "gofloor runs in a browser: GOOS=js GOARCH=wasm go build -o dist/gofloor.wasm ./gofloor (scripts/bench-browser.sh does)")
	os.Exit(2)
}
