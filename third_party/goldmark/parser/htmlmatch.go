package parser

// This file is not goldmark's: it replaces the regular expressions of
// html_block.go and raw_html.go (goldmark v1.8.7) with hand-written
// matchers of the same languages, so that the module does not link
// package regexp. Each matcher's comment gives the expression it replaces.
// Go's regexp reports the leftmost-first match (the one a backtracking
// matcher trying greedy choices first finds); in these expressions every
// greedy choice is forced (a shorter choice leaves a byte that nothing
// after it can take), so each matcher takes the longest run at every step.
// htmlmatch_test.go checks each against its expression, over a table and
// under fuzzing.

import (
	"bytes"
	"io"
	"unicode"
)

// runeBuf reads runes from src as regexp does from an io.RuneReader: at(k)
// is the k-th rune (-1 past the end) and off[k] its byte offset.
type runeBuf struct {
	src  io.RuneReader
	rs   []rune
	off  []int
	done bool
}

func newRuneBuf(src io.RuneReader) *runeBuf {
	return &runeBuf{src: src, off: []int{0}}
}

func (b *runeBuf) at(k int) rune {
	for k >= len(b.rs) && !b.done {
		r, size, err := b.src.ReadRune()
		if err != nil {
			b.done = true
			break
		}
		b.rs = append(b.rs, r)
		b.off = append(b.off, b.off[len(b.off)-1]+size)
	}
	if k < len(b.rs) {
		return b.rs[k]
	}
	return -1
}

func isLetter(r rune) bool    { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
func isTagChar(r rune) bool   { return isLetter(r) || '0' <= r && r <= '9' || r == '-' }
func isAttrSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }
func isNameStart(r rune) bool { return isLetter(r) || r == '_' || r == ':' }
func isNameChar(r rune) bool {
	return isNameStart(r) || '0' <= r && r <= '9' || r == '.' || r == '-'
}

// isUnquoted reports whether r is in [^"'=<>`\x00-\x20].
func isUnquoted(r rune) bool {
	return r > 0x20 && r != '"' && r != '\'' && r != '=' && r != '<' && r != '>' && r != '`'
}

// attrs matches attributePattern* at rune k and returns its end:
//
//	(?:[\r\n \t]+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:[\r\n \t]*=[\r\n \t]*(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*"))?)*
//
// The star stops where an attribute does not match: what may follow (the
// tag's end, spaces then '/' or '>') cannot start where one does. The value
// is taken when it matches: without it, the '=' after the name fails
// everything after. An unquoted value takes every byte it can; a shorter
// one could only stop before a '/', which then needs a '>' after it, and
// '>' ends the longest value as well.
func (b *runeBuf) attrs(k int) int {
	for {
		j := k
		for isAttrSpace(b.at(j)) {
			j++
		}
		if j == k || !isNameStart(b.at(j)) {
			return k
		}
		for j++; isNameChar(b.at(j)); j++ {
		}
		if v := b.attrValue(j); v >= 0 {
			j = v
		}
		k = j
	}
}

// attrValue matches `[\r\n \t]*=[\r\n \t]*(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*")`
// at rune k, returning its end or -1.
func (b *runeBuf) attrValue(k int) int {
	for isAttrSpace(b.at(k)) {
		k++
	}
	if b.at(k) != '=' {
		return -1
	}
	for k++; isAttrSpace(b.at(k)); k++ {
	}
	switch q := b.at(k); {
	case q == '\'' || q == '"':
		for k++; b.at(k) != q; k++ {
			if b.at(k) < 0 {
				return -1
			}
		}
		return k + 1
	case isUnquoted(q):
		for k++; isUnquoted(b.at(k)); k++ {
		}
		return k
	}
	return -1
}

// spaceOrNewlines matches `(?:[ \t]|(?:\r\n|\n){0,1})*` (spaceOrOneNewline,
// starred) at rune k: spaces, tabs, "\n" and "\r\n", but no lone '\r'.
func (b *runeBuf) spaceOrNewlines(k int) int {
	for {
		switch b.at(k) {
		case ' ', '\t', '\n':
			k++
		case '\r':
			if b.at(k+1) != '\n' {
				return k
			}
			k += 2
		default:
			return k
		}
	}
}

// tagName matches `[A-Za-z][A-Za-z0-9-]*` at rune k, returning its end or -1.
func (b *runeBuf) tagName(k int) int {
	if !isLetter(b.at(k)) {
		return -1
	}
	for k++; isTagChar(b.at(k)); k++ {
	}
	return k
}

// matchOpenTag is the length in bytes of openTagRegexp's match on r's
// runes, or -1:
//
//	^<([A-Za-z][A-Za-z0-9-]*)ATTR*(?:[ \t]|(?:\r\n|\n){0,1})*/?>
func matchOpenTag(r io.RuneReader) int {
	b := newRuneBuf(r)
	if b.at(0) != '<' {
		return -1
	}
	k := b.tagName(1)
	if k < 0 {
		return -1
	}
	k = b.spaceOrNewlines(b.attrs(k))
	if b.at(k) == '/' {
		k++
	}
	if b.at(k) != '>' {
		return -1
	}
	return b.off[k+1]
}

// matchCloseTag is the length in bytes of closeTagRegexp's match on r's
// runes, or -1:
//
//	^</([A-Za-z][A-Za-z0-9-]*)(?:[ \t]|(?:\r\n|\n){0,1})*>
func matchCloseTag(r io.RuneReader) int {
	b := newRuneBuf(r)
	if b.at(0) != '<' || b.at(1) != '/' {
		return -1
	}
	k := b.tagName(2)
	if k < 0 {
		return -1
	}
	k = b.spaceOrNewlines(k)
	if b.at(k) != '>' {
		return -1
	}
	return b.off[k+1]
}

// afterIndent is the index after `^[ ]{0,3}<` on line, or -1.
func afterIndent(line []byte) int {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	if i < len(line) && line[i] == '<' {
		return i + 1
	}
	return -1
}

// restOfLine reports whether b matches `.*(?:\r\n|\n)?$`: no '\n' but
// a last byte. ('.' is any rune but '\n', an invalid byte included.)
func restOfLine(b []byte) bool {
	i := bytes.IndexByte(b, '\n')
	return i < 0 || i == len(b)-1
}

// tagEnd reports whether b matches `(?:P.*|>.*|/>.*|)(?:\r\n|\n)?$`, the
// end of html block types 1 and 6, where P is \s (space1) or [ ].
func tagEnd(b []byte, space1 bool) bool {
	switch {
	case len(b) == 0 || string(b) == "\n" || string(b) == "\r\n":
		return true
	case b[0] == ' ' || b[0] == '>' || space1 && (b[0] == '\t' || b[0] == '\n' || b[0] == '\f' || b[0] == '\r'):
		return restOfLine(b[1:])
	case len(b) > 1 && b[0] == '/' && b[1] == '>':
		return restOfLine(b[2:])
	}
	return false
}

var type1Tags = []string{"script", "pre", "style", "textarea"}

// foldEq reports whether r equals c under regexp's (?i): c's simple case
// folding orbit ('s' is also U+017F, 'k' U+212A).
func foldEq(r rune, c rune) bool {
	if r == c {
		return true
	}
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		if r == f {
			return true
		}
	}
	return false
}

// type1Tag matches `(?i)(?:script|pre|style|textarea)` at b[i:],
// returning the end or -1. No two of the names share a prefix that is a
// whole name, so at most one matches.
func type1Tag(b []byte, i int) int {
	for _, name := range type1Tags {
		rb := newRuneBuf(bytes.NewReader(b[i:]))
		k := 0
		for ; k < len(name) && foldEq(rb.at(k), rune(name[k])); k++ {
		}
		if k == len(name) {
			return i + rb.off[k]
		}
	}
	return -1
}

// matchHTMLType1Open is htmlBlockType1OpenRegexp.Match:
//
//	(?i)^[ ]{0,3}<(script|pre|style|textarea)(?:\s.*|>.*|/>.*|)(?:\r\n|\n)?$
func matchHTMLType1Open(line []byte) bool {
	i := afterIndent(line)
	if i < 0 {
		return false
	}
	e := type1Tag(line, i)
	return e >= 0 && tagEnd(line[e:], true)
}

// matchHTMLType1Close is htmlBlockType1CloseRegexp.Match:
//
//	(?i)^.*</(?:script|pre|style|textarea)>.*
func matchHTMLType1Close(line []byte) bool {
	for q := 0; q+1 < len(line) && line[q] != '\n'; q++ {
		if line[q] == '<' && line[q+1] == '/' {
			if e := type1Tag(line, q+2); e >= 0 && e < len(line) && line[e] == '>' {
				return true
			}
		}
	}
	return false
}

// matchHTMLTypeOpen reports whether line matches `^[ ]{0,3}<` then
// prefix: htmlBlockType2OpenRegexp (`!--`), htmlBlockType3OpenRegexp (`?`)
// and htmlBlockType5OpenRegexp (`![CDATA[`).
func matchHTMLTypeOpen(line []byte, prefix string) bool {
	i := afterIndent(line)
	return i >= 0 && bytes.HasPrefix(line[i:], []byte(prefix))
}

// matchHTMLType4Open is htmlBlockType4OpenRegexp.Match:
//
//	^[ ]{0,3}<![A-Z]+.*(?:\r\n|\n)?$
func matchHTMLType4Open(line []byte) bool {
	i := afterIndent(line)
	return i >= 0 && i+1 < len(line) && line[i] == '!' && 'A' <= line[i+1] && line[i+1] <= 'Z' &&
		restOfLine(line[i+2:])
}

// matchHTMLType6 is htmlBlockType6Regexp.FindSubmatchIndex, returning
// the tag name's bounds (group 1):
//
//	^[ ]{0,3}<(?:/[ ]*)?([a-zA-Z]+[a-zA-Z0-9\-]*)(?:[ ].*|>.*|/>.*|)(?:\r\n|\n)?$
func matchHTMLType6(line []byte) (start, end int, ok bool) {
	i := afterIndent(line)
	if i < 0 {
		return 0, 0, false
	}
	if i < len(line) && line[i] == '/' {
		for i++; i < len(line) && line[i] == ' '; i++ {
		}
	}
	if i >= len(line) || !isLetter(rune(line[i])) {
		return 0, 0, false
	}
	start, end = i, i+1
	for end < len(line) && isTagChar(rune(line[end])) {
		end++
	}
	return start, end, tagEnd(line[end:], false)
}

// matchHTMLType7 is htmlBlockType7Regexp.FindSubmatchIndex: nil, or the
// match and its three groups' bounds (-1, -1 for an absent group 1):
//
//	^[ ]{0,3}<(/[ ]*)?([a-zA-Z]+[a-zA-Z0-9\-]*)(ATTR*)[ ]*(?:>|/>)[ ]*(?:\r\n|\n)?$
func matchHTMLType7(line []byte) []int {
	i := afterIndent(line)
	if i < 0 {
		return nil
	}
	m := []int{0, len(line), -1, -1, 0, 0, 0, 0}
	if i < len(line) && line[i] == '/' {
		m[2] = i
		for i++; i < len(line) && line[i] == ' '; i++ {
		}
		m[3] = i
	}
	// The rest as runes: attribute values take any rune but their
	// delimiters. Offsets in b are from i.
	b := newRuneBuf(bytes.NewReader(line[i:]))
	k := b.tagName(0)
	if k < 0 {
		return nil
	}
	m[4], m[5] = i, i+b.off[k]
	a := b.attrs(k)
	m[6], m[7] = i+b.off[k], i+b.off[a]
	for k = a; b.at(k) == ' '; k++ {
	}
	switch {
	case b.at(k) == '>':
		k++
	case b.at(k) == '/' && b.at(k+1) == '>':
		k += 2
	default:
		return nil
	}
	for ; b.at(k) == ' '; k++ {
	}
	switch {
	case b.at(k) == '\n':
		k++
	case b.at(k) == '\r' && b.at(k+1) == '\n':
		k += 2
	}
	if b.at(k) >= 0 {
		return nil
	}
	return m
}
