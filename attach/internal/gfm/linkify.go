// Copyright (c) 2019 Yusuke Inuzuka. MIT licence (LICENSE); ported from
// github.com/yuin/goldmark v1.8.7 extension/linkify.go.

package gfm

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The matchers below replace goldmark's two URL expressions:
//
//	wwwURLRegxp: ^www\.H{1,256}\.[a-z]+(?:[/#?]P*)?
//	urlRegexp:   ^(?:http|https|ftp)://H{1,256}\.[a-z]+(?::\d+)?(?:[/#?]P$*)?
//
// with H = [-a-zA-Z0-9@:%._\+~#=], P = [-a-zA-Z0-9@:%_\+.~#!?&/=\(\);,'">\^{}\[\]`]
// and P$ = P plus '$'. Go's regexp reports the leftmost-first match: the
// one a backtracking matcher trying greedy choices first would find. Here
// that is:
//
//   - H{1,256} takes k bytes, the largest k that lets `\.[a-z]` follow.
//     '.' is itself in H, so the '.' lies inside the run of H bytes: k is
//     below the run's length (and at most 256).
//   - Whatever follows [a-z]+ is optional, so nothing after it can fail:
//     [a-z]+ takes every lower-case letter there, the port is taken when
//     ':' and a digit follow (with every digit after), and the path when
//     '/', '#' or '?' follows (with every P byte after).
//
// Every class is ASCII, so matching bytes rather than runes changes no
// boundary: a byte of a multi-byte or invalid UTF-8 sequence is in no
// class, as its rune is not.

// hostTable and pathTable hold H and P (pathTable without '$').
var hostTable, pathTable [256]bool

func init() {
	for _, s := range []struct {
		t     *[256]bool
		extra string
	}{
		{&hostTable, "-@:%._+~#="},
		{&pathTable, "-@:%_+.~#!?&/=();,'\">^{}[]`"},
	} {
		for c := '0'; c <= '9'; c++ {
			s.t[c] = true
		}
		for c := 'a'; c <= 'z'; c++ {
			s.t[c], s.t[c-'a'+'A'] = true, true
		}
		for i := 0; i < len(s.extra); i++ {
			s.t[s.extra[i]] = true
		}
	}
}

func isLower(b byte) bool { return 'a' <= b && b <= 'z' }
func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// matchHost matches `H{1,256}\.[a-z]+` at line[i:], returning the end of
// the match or -1.
func matchHost(line []byte, i int) int {
	run := 0 // bytes of H from i, counted up to 257: k ≤ 256 < run
	for run <= 256 && i+run < len(line) && hostTable[line[i+run]] {
		run++
	}
	for k := min(run-1, 256); k >= 1; k-- {
		if j := i + k; line[j] == '.' && j+1 < len(line) && isLower(line[j+1]) {
			end := j + 2
			for end < len(line) && isLower(line[end]) {
				end++
			}
			return end
		}
	}
	return -1
}

// matchPath matches `(?:[/#?]P*)?` at line[i:] (with '$' in P when
// dollar), returning the end of the match.
func matchPath(line []byte, i int, dollar bool) int {
	if i >= len(line) || (line[i] != '/' && line[i] != '#' && line[i] != '?') {
		return i
	}
	for i++; i < len(line) && (pathTable[line[i]] || dollar && line[i] == '$'); i++ {
	}
	return i
}

// matchWWW is wwwURLRegxp: the end of its match on line, or -1.
func matchWWW(line []byte) int {
	if !bytes.HasPrefix(line, domainWWW) {
		return -1
	}
	end := matchHost(line, len(domainWWW))
	if end < 0 {
		return -1
	}
	return matchPath(line, end, false)
}

// matchURL is urlRegexp: the end of its match on line, or -1.
func matchURL(line []byte) int {
	var i int
	switch {
	case bytes.HasPrefix(line, []byte("http://")):
		i = len("http://")
	case bytes.HasPrefix(line, []byte("https://")):
		i = len("https://")
	case bytes.HasPrefix(line, []byte("ftp://")):
		i = len("ftp://")
	default:
		return -1
	}
	end := matchHost(line, i)
	if end < 0 {
		return -1
	}
	if end+1 < len(line) && line[end] == ':' && isDigit(line[end+1]) {
		for end += 2; end < len(line) && isDigit(line[end]); end++ {
		}
	}
	return matchPath(line, end, true)
}

type linkifyParser struct{}

func (s *linkifyParser) Trigger() []byte {
	// ' ' indicates any white spaces and a line head
	return []byte{' ', '*', '_', '~', '('}
}

// Rejects is parser.InlineRejecter (third_party/goldmark's addition): Parse
// below returns nil, touching nothing, exactly when the line after the
// trigger starts with none of the prefixes it tries and is no e-mail
// address. For a plain word after a space that is a look at its first
// bytes and at most 64 bytes of FindEmailIndex, where the call itself cost
// the parser's bookkeeping and a context lookup at every space.
func (s *linkifyParser) Rejects(line []byte) bool {
	if len(line) == 0 {
		return false // Parse decides (it cannot be called with nothing)
	}
	if c := line[0]; c == ' ' || c == '*' || c == '_' || c == '~' || c == '(' {
		line = line[1:]
	}
	if bytes.HasPrefix(line, protoHTTP) || bytes.HasPrefix(line, protoHTTPS) ||
		bytes.HasPrefix(line, protoFTP) || bytes.HasPrefix(line, domainWWW) {
		return false
	}
	if len(line) > 0 && util.IsPunct(line[0]) {
		return true
	}
	return util.FindEmailIndex(line) < 0
}

var (
	protoHTTP  = []byte("http:")
	protoHTTPS = []byte("https:")
	protoFTP   = []byte("ftp:")
	domainWWW  = []byte("www.")
)

func (s *linkifyParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if pc.IsInLinkLabel() {
		return nil
	}
	line, segment := block.PeekLine()
	consumes := 0
	start := segment.Start
	c := line[0]
	// advance if current position is not a line head.
	if c == ' ' || c == '*' || c == '_' || c == '~' || c == '(' {
		consumes++
		start++
		line = line[1:]
	}

	// m is [start, end) of the match, as FindSubmatchIndex's first two
	// entries (the expressions are anchored, so a match starts at 0).
	var m []int
	var protocol []byte
	var typ ast.AutoLinkType = ast.AutoLinkURL
	if bytes.HasPrefix(line, protoHTTP) || bytes.HasPrefix(line, protoHTTPS) || bytes.HasPrefix(line, protoFTP) {
		if end := matchURL(line); end >= 0 {
			m = []int{0, end}
		}
	}
	if m == nil && bytes.HasPrefix(line, domainWWW) {
		if end := matchWWW(line); end >= 0 {
			m = []int{0, end}
		}
		protocol = []byte("http")
	}
	if m == nil {
		if len(line) > 0 && util.IsPunct(line[0]) {
			return nil
		}
		typ = ast.AutoLinkEmail
		stop := util.FindEmailIndex(line)
		if stop < 0 {
			return nil
		}
		at := bytes.IndexByte(line, '@')
		m = []int{0, stop, at, stop - 1}
		if bytes.IndexByte(line[m[2]:m[3]], '.') < 0 {
			return nil
		}
		lastChar := line[m[1]-1]
		if lastChar == '.' {
			m[1]--
		}
		if m[1] < len(line) {
			nextChar := line[m[1]]
			if nextChar == '-' || nextChar == '_' {
				return nil
			}
		}
	}
	if consumes != 0 {
		s := segment.WithStop(segment.Start + 1)
		ast.MergeOrAppendTextSegment(parent, s)
	}
	opening := bytes.Count(line[:m[1]], []byte{'('})
	closing := bytes.Count(line[:m[1]], []byte{')'})
	i := m[1]
	for i > 1 {
		switch line[i-1] {
		case '?', '!', '.', ',', ':', '*', '_', '~':
			i--
		case ')':
			if closing <= opening {
				goto endfor
			}
			closing--
			i--
		case ';':
			j := i - 2
			for ; j > 0; j-- {
				if util.IsAlphaNumeric(line[j]) {
					continue
				}
				break
			}
			if j == i-2 || line[j] != '&' {
				goto endfor
			}
			i = j
		default:
			goto endfor
		}
	}
endfor:
	consumes += i
	block.Advance(consumes)
	n := ast.NewTextSegment(text.NewSegment(start, start+i))
	link := ast.NewAutoLink(typ, n)
	link.Protocol = protocol
	return link
}

func (s *linkifyParser) CloseBlock(parent ast.Node, pc parser.Context) {}

type linkify struct{}

var linkifyExt = &linkify{}

func (e *linkify) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithInlineParsers(
			util.Prioritized(&linkifyParser{}, 999),
		),
	)
}
