// Command wasmsize attributes the bytes of a WebAssembly module built by Go
// to Go packages: each function body in the code section is charged to the
// package named by the module's "name" section (so build without -s -w),
// and the data section (read-only data, type and pclntab tables) is shown as
// one line. scripts/size.sh prints its top lines.
//
// Usage, from bench/ (a module of its own): go run ./wasmsize [-top N] [-deps FILE] FILE.wasm
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	top := flag.Int("top", 15, "packages to print")
	deps := flag.String("deps", "", "file listing the module's package paths, one a line (go list -deps), to name packages exactly")
	funcs := flag.String("funcs", "", "print the largest functions of this package instead")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-top N] FILE.wasm")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
	m, err := parse(data)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wasmsize: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	if len(m.names) == 0 {
		fmt.Fprintln(os.Stderr, "wasmsize: no name section (was the module built with -ldflags=-s?)")
		os.Exit(1)
	}
	known := map[string]string{}
	if *deps != "" {
		list, err := os.ReadFile(*deps)
		if err != nil {
			fmt.Fprintln(os.Stderr, "wasmsize:", err)
			os.Exit(1)
		}
		for p := range strings.FieldsSeq(string(list)) {
			known[mangle(p)] = p
		}
	}
	if *funcs != "" {
		type fn struct {
			name string
			size int
		}
		var fs []fn
		for i, n := range m.bodies {
			if name := m.names[m.imported+i]; pkgOf(name, known) == *funcs {
				fs = append(fs, fn{name, n})
			}
		}
		sort.Slice(fs, func(i, j int) bool { return fs[i].size > fs[j].size })
		for i, f := range fs {
			if i == *top {
				break
			}
			fmt.Printf("%10d  %s\n", f.size, f.name)
		}
		return
	}
	byPkg := map[string]int{}
	for i, n := range m.bodies {
		byPkg[pkgOf(m.names[m.imported+i], known)] += n
	}
	type row struct {
		pkg  string
		size int
	}
	var rows []row
	for p, n := range byPkg {
		rows = append(rows, row{p, n})
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].size > rows[j].size || rows[i].size == rows[j].size && rows[i].pkg < rows[j].pkg
	})
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "%10d  code (all function bodies)\n%10d  data section (rodata, type info, pclntab)\n", m.code, m.data)
	for i, r := range rows {
		if i == *top {
			break
		}
		fmt.Fprintf(w, "%10d  %s\n", r.size, r.pkg)
	}
}

// domainFirst matches a first path element that is a domain ("github.com_").
var domainFirst = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)+_`)

// mangle is what Go's linker does to a package path in a wasm name section:
// every byte other than a letter, digit or "." becomes "_".
func mangle(path string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, path)
}

// pkgOf returns the package path of a function name as Go's linker writes
// it into a wasm name section, where "/" and "-" became "_" and "(*T)" became
// "__T_": "github.com_yuin_goldmark_parser.__blockParser_.Open" is
// github.com/yuin/goldmark/parser. Known package paths (from go list -deps)
// are matched exactly; otherwise "_" is shown as "/".
func pkgOf(sym string, known map[string]string) string {
	if sym == "" {
		return "(unnamed)"
	}
	start := 0
	if loc := domainFirst.FindStringIndex(sym); loc != nil {
		start = loc[1]
	}
	dot := strings.IndexByte(sym[start:], '.')
	if dot < 0 {
		return sym
	}
	p := sym[:start+dot]
	if p == "type_" || p == "go:" || strings.HasPrefix(p, "type:") {
		return "(compiler-generated type functions)"
	}
	if real, ok := known[p]; ok {
		return real
	}
	return strings.ReplaceAll(p, "_", "/")
}

type module struct {
	imported   int   // imported functions (they come first in the index space)
	bodies     []int // size of each defined function's body
	names      map[int]string
	code, data int
}

func parse(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly module")
	}
	r := &reader{b: b, off: 8}
	m := &module{names: map[int]string{}}
	for r.off < len(b) {
		id := r.byte()
		size := int(r.uleb())
		if r.err != nil || r.off+size > len(b) {
			return nil, fmt.Errorf("truncated section at offset %d", r.off)
		}
		sec := &reader{b: b[:r.off+size], off: r.off}
		switch id {
		case 2: // imports
			for range sec.uleb() {
				sec.name()
				sec.name()
				switch kind := sec.byte(); kind {
				case 0:
					sec.uleb()
					m.imported++
				case 1: // table: reftype, limits
					sec.byte()
					sec.limits()
				case 2:
					sec.limits()
				case 3:
					sec.byte()
					sec.byte()
				}
			}
		case 10: // code
			m.code = size
			for range sec.uleb() {
				n := int(sec.uleb())
				m.bodies = append(m.bodies, n)
				sec.off += n
			}
		case 11:
			m.data = size
		case 0:
			if sec.name() == "name" {
				for sec.off < len(sec.b) && sec.err == nil {
					sub := sec.byte()
					n := int(sec.uleb())
					end := sec.off + n
					if sub == 1 {
						for range sec.uleb() {
							idx := int(sec.uleb())
							m.names[idx] = sec.name()
						}
					}
					sec.off = end
				}
			}
		}
		if sec.err != nil {
			return nil, fmt.Errorf("section %d: %v", id, sec.err)
		}
		r.off += size
	}
	return m, nil
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) byte() byte {
	if r.off >= len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *reader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 || r.err != nil {
			break
		}
	}
	return v
}

func (r *reader) name() string {
	n := int(r.uleb())
	if r.off+n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}

func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}
