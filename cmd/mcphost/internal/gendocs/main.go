// Command gendocs writes the generated part of the sample documents in
// cmd/mcphost/internal/sampledocs: the images (an architecture PNG, a
// screenshot JPEG, a JPEG saved as .png), the large (>1 MB) Markdown
// changelog and the hostile Markdown export built from the XSS corpus in
// testdata/xss. Output is deterministic (fixed seeds, sorted inputs), so
// regenerating changes nothing.
//
// Run from the repository root:
//
//	go run ./cmd/mcphost/internal/gendocs
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcphost/mcphost/cmd/mcphost/internal/gendocs/gen"
)

func main() {
	out := flag.String("out", "cmd/mcphost/internal/sampledocs", "the documents root to write into")
	xss := flag.String("xss", "testdata/xss", "the XSS corpus (*.md) for the hostile export")
	flag.Parse()
	files, err := gen.All(*xss)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(*out, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%8d %s\n", len(f.Data), p)
	}
}
