//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "golist runs in a browser: GOOS=js GOARCH=wasm go build -o dist/golist.wasm ./golist (scripts/bench-browser.sh does)")
	os.Exit(2)
}
