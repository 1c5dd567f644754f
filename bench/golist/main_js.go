// Command golist is the startup bench's floor for the whole task in Go: a
// Go program that does only what the startup row asks for (1,000
// descriptors listed) and nothing a product needs besides. The page opens
// the WebSocket, runs the handshake and asks for the 10 pages while the
// module downloads and compiles (as mcphost.js's early start does); once
// go.run returned, one call hands Go the pages' frames and Go decodes them
// with encoding/json into a slice: no session, no goroutine, no index, no
// event. bench/bench.js starts it cold (?suite=startup&stack=golist) beside
// mcphost, the JS stack and bench/gofloor, so the table shows what any Go
// implementation of the row pays on this machine.
package main

import (
	"encoding/json"
	"syscall/js"
)

type descriptor struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

type page struct {
	Result struct {
		Resources  []descriptor `json:"resources"`
		NextCursor string       `json:"nextCursor,omitempty"`
	} `json:"result"`
}

var listed []descriptor // kept, as a client keeps what it listed

func main() {
	js.Global().Set("__golist", js.FuncOf(func(_ js.Value, args []js.Value) any {
		frames := args[0]
		listed = listed[:0]
		for i, n := 0, frames.Length(); i < n; i++ {
			var p page
			if err := json.Unmarshal([]byte(frames.Index(i).String()), &p); err != nil {
				return err.Error()
			}
			listed = append(listed, p.Result.Resources...)
		}
		return len(listed)
	}))
	select {}
}
