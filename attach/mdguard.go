package attach

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// The Markdown guard is a linear pre-scan of a document before goldmark sees
// it (issue 14 §1–2). It refuses two kinds of input, which are then shown as
// escaped plain text with a warning instead of being rendered:
//
//   - Nesting deeper than maxMarkdownNesting. goldmark's parser recurses
//     once per level of block nesting (and of images nested in a link
//     label), its renderer once per level of the tree, and Go under js/wasm
//     runs on the engine's call stack: "- " × 10,000 + "a" threw RangeError
//     in Node's default 984 KiB stack (5,000 levels still rendered), which
//     leaves the module unusable. Natively the same input renders, so no Go
//     test or fuzzer sees it. (Rendering here walks the tree in a loop, see
//     renderTree, so a tree deeper than these estimates, a shape they do not
//     model, still renders; the bounds keep the parser's recursion short.)
//   - Shapes on which goldmark does superlinear work: a "](" whose
//     destination never closes rescans the rest of its line (`[a](` × 20,000:
//     2 s natively, 12–14 s in a page), an emphasis closer without an opener
//     walks back over every earlier delimiter of its paragraph (`*a_ ` ×
//     20,000), and each link reference definition removed from a paragraph
//     copies the paragraph's remaining lines (40,000 of them: 1 s natively).
//     The guard simulates those inner loops, counting their steps against a
//     budget proportional to the input, and stops counting when it is spent,
//     so it is linear whatever the input.
//
// The guard approximates goldmark's block structure (it does not parse
// Markdown), erring towards counting more work and more nesting than goldmark
// would see; a document that is pathological in a way it does not model
// still renders slowly. The bound on wall time is the render Worker's budget
// (ARCHITECTURE.md, "where the work runs"), not this scan.

const (
	// maxMarkdownNesting bounds the nesting of block containers (lists and
	// block quotes), of emphasis and of brackets (links and images). Real
	// documents stay under ten; 100 is markdown-it's default maxNesting and
	// 50 times below the depth at which rendering overflowed the default V8
	// stack (measured: list nesting 5,000 renders, 10,000 throws).
	maxMarkdownNesting = 100
	// mdWorkPerByte and mdWorkBase set the budget of the simulated loops
	// in nanoseconds of native goldmark time: mdWorkBase + mdWorkPerByte
	// per input byte, i.e. about what an ordinary render of a document that
	// size takes (~110 ns per byte natively, ~550 in a page), plus 8 ms. So
	// no document spends more time in these loops than in ordinary
	// rendering, and the guard's own worst case, reached when the budget
	// runs out, is a fraction of that. Ordinary documents use 0–3 ns per
	// byte (TestMarkdownGuardNormal reports the figures).
	mdWorkPerByte = 100
	mdWorkBase    = 8_000_000
)

// workCost is what one simulated step of each loop costs goldmark
// natively, in nanoseconds (measured on the inputs: a destination
// byte rescanned 2.4 ns, a delimiter walked over 4.3–6.8 ns, a paragraph
// line copied 0.9–1.3 ns).
var workCost = [3]int64{workLinks: 2, workEmphasis: 6, workRefs: 1}

// mdSpecial marks (with 1) the bytes the inline scan stops at.
var mdSpecial = func() (t [256]byte) {
	for _, c := range []byte("\\*_~[]!\n") {
		t[c] = 1
	}
	return t
}()

// Rune classes for emphasis flanking, as goldmark's util.IsSpaceRune and
// util.IsPunctRune see them; asciiClass caches them for one-byte runes.
const (
	runeOther = iota
	runeSpace
	runePunct
)

// asciiClass is a literal, not computed in an init: the main instance never
// renders Markdown (the render Workers do), and classOf's first calls cost
// 2–4 ms of every cold start's go.run (unicode's tables compiled on first
// call; a CPU profile of go.run, Chromium 156). TestASCIIClass checks it.
var asciiClass = [utf8.RuneSelf]byte{
	'\t': runeSpace, '\n': runeSpace, '\v': runeSpace, '\f': runeSpace, '\r': runeSpace, ' ': runeSpace,
	'!': runePunct, '"': runePunct, '#': runePunct, '$': runePunct, '%': runePunct, '&': runePunct,
	'\'': runePunct, '(': runePunct, ')': runePunct, '*': runePunct, '+': runePunct, ',': runePunct,
	'-': runePunct, '.': runePunct, '/': runePunct, ':': runePunct, ';': runePunct, '<': runePunct,
	'=': runePunct, '>': runePunct, '?': runePunct, '@': runePunct, '[': runePunct, '\\': runePunct,
	']': runePunct, '^': runePunct, '_': runePunct, '`': runePunct, '{': runePunct, '|': runePunct,
	'}': runePunct, '~': runePunct,
}

func classOf(r rune) byte {
	switch {
	case util.IsSpaceRune(r):
		return runeSpace
	case util.IsPunctRune(r):
		return runePunct
	}
	return runeOther
}

// runeClass classifies the last rune of b (last) or its first.
func runeClass(b []byte, last bool) byte {
	i := 0
	if last {
		i = len(b) - 1
	}
	if b[i] < utf8.RuneSelf {
		return asciiClass[b[i]]
	}
	var r rune
	if last {
		r, _ = utf8.DecodeLastRune(b)
	} else {
		r, _ = utf8.DecodeRune(b)
	}
	return classOf(r)
}

// mdDelim is one delimiter run (*, _ or ~) of goldmark's delimiter list.
type mdDelim struct {
	char              byte
	canOpen, canClose bool
	length, orig      int32
	prev, next        int32 // the list, as indices; -1 ends it
	inner             int32 // deepest emphasis in the text after this run
	// skip counts the runs after this one that can neither open nor close
	// (intraword underscores, spaced asterisks): goldmark keeps them in its
	// list and walks over them, but they never match, so they are only
	// counted here.
	skip int32
}

// mdScan is the state of one guard pass.
type mdScan struct {
	src    []byte
	budget int64
	work   [3]int64 // link destinations, emphasis, reference definitions

	// The current inline block (paragraph, heading, table cell).
	blockStart int // offset where the block's text starts
	delims     []mdDelim
	headSkip   int32   // the runs that neither open nor close before delims[0]
	brackets   []int32 // deepest bracket pair inside each open '[' (since the last blank line)
	blockLines int64
	refLines   int64

	listCols  []int // content columns of the list items that may be open
	sawHTML   bool  // a line at the margin began with '<'
	maxBlock  int
	maxEmph   int32
	maxBrack  int32
	prevQuote int
}

const (
	workLinks = iota
	workEmphasis
	workRefs
)

var workNames = [3]string{
	workLinks:    "unclosed link destinations",
	workEmphasis: "unmatched emphasis delimiters",
	workRefs:     "link reference definitions inside one paragraph",
}

// mdGuard returns "" when src may be handed to goldmark, or the reason it
// must not be, phrased for a warning.
func mdGuard(src []byte) string {
	s := mdScan{src: src, budget: mdWorkBase + mdWorkPerByte*int64(len(src)), blockStart: -1}
	if !s.run() {
		k := workLinks
		for i := range s.work {
			if s.work[i] > s.work[k] {
				k = i
			}
		}
		return "the Markdown would make the renderer do superlinear work (" + workNames[k] + ": over " +
			strconv.FormatInt(s.work[k], 10) + " steps for " + strconv.Itoa(len(src)) + " bytes)"
	}
	what, depth := "", 0
	switch {
	case s.maxBlock > maxMarkdownNesting:
		what, depth = "lists and block quotes", s.maxBlock
	case s.maxEmph > maxMarkdownNesting:
		what, depth = "emphasis", int(s.maxEmph)
	case s.maxBrack > maxMarkdownNesting:
		what, depth = "links, images or brackets", int(s.maxBrack)
	default:
		return ""
	}
	return "the Markdown nests " + what + " at least " + strconv.Itoa(depth) + " levels deep, over the " +
		strconv.Itoa(maxMarkdownNesting) + "-level bound"
}

// spend charges n steps of kind k and reports whether budget remains.
func (s *mdScan) spend(k int, n int64) bool {
	s.work[k] += n
	s.budget -= n * workCost[k]
	return s.budget >= 0
}

// run scans every line; false means the work budget ran out. It stops
// early once a nesting bound is passed: the verdict cannot change. Lines
// end at '\n'; the scan of a line's text finds its end, so most lines are
// read once.
//
// Nesting is estimated so as never to be under goldmark's: block depth
// from each line's own markers and the list items that may still be open,
// bracket depth over everything between blank lines. Inline blocks are cut
// where goldmark certainly starts a new one (blank lines, list items, block
// quotes, headings, fences and rules indented less than four columns past
// their container), which only the work estimate and emphasis depth use.
func (s *mdScan) run() bool {
	src := s.src
	fence := byte(0) // the fence character of an open top-level fence
	fenceLen := 0
	prevBlank := true
	for ls := 0; ls < len(src); {
		if s.budget < 0 {
			return false
		}
		if fence != 0 {
			// Inside a top-level fenced code block nothing is Markdown.
			le := s.lineEnd(ls)
			if closesFence(src[ls:le], fence, fenceLen) {
				fence = 0
			}
			ls = le + 1
			continue
		}

		// The container prefix: block quote markers, list markers and
		// indentation, with columns counted as CommonMark does (tab stops
		// of 4). base is the column where the innermost container's
		// content starts.
		i, col, quotes, markers := ls, 0, 0, 0
		base := -1
		for {
			for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
				if src[i] == '\t' {
					col += 4 - col%4
				} else {
					col++
				}
				i++
			}
			if quotes == 0 && markers == 0 && prevBlank && i < len(src) && src[i] != '\n' && src[i] != '\r' {
				// After a blank line only lines indented to an item's
				// content continue it. A blank line itself closes
				// nothing: its indentation says nothing about the items.
				s.closeItems(col)
			}
			if i < len(src) && src[i] == '>' {
				quotes++
				i++
				col++
				if i < len(src) && (src[i] == ' ' || src[i] == '\t') {
					i++
					col++
				}
				base = col
				continue
			}
			m := listMarkerLen(src[i:])
			if m == 0 || (base < 0 && col-s.itemCol() >= 4) || (base >= 0 && col-base >= 4) {
				break // indented four columns past its container: text
			}
			markers++
			// A marker at column c closes every item whose content starts
			// right of c; the items left open may contain it.
			s.closeItems(col)
			i += m
			col += m
			// The item's content starts after one to four spaces; with
			// five or more, after one (the rest is indented code).
			j, w := i, col
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') && w-col <= 4 {
				if src[j] == '\t' {
					w += 4 - w%4
				} else {
					w++
				}
				j++
			}
			if w-col > 4 || w == col || j == len(src) || src[j] == '\n' {
				w = col + 1
				j = i
				if i < len(src) && (src[i] == ' ' || src[i] == '\t') {
					j = i + 1
				}
			}
			i, col = j, w
			s.listCols = append(s.listCols, col)
			base = col
		}
		if d := quotes + len(s.listCols); d > s.maxBlock {
			s.maxBlock = d
			if d > maxMarkdownNesting {
				return true
			}
		}
		if base < 0 {
			base = s.itemCol()
		}
		rest := src[i:] // the line's text runs to the next '\n'

		if isBlankLine(rest) {
			s.endBlock()
			s.brackets = s.brackets[:0]
			s.prevQuote = quotes
			prevBlank = true
			ls = s.lineEnd(i) + 1
			continue
		}
		prevBlank = false
		if markers > 0 || quotes > s.prevQuote {
			s.endBlock() // a new list item or block quote starts a block
		}
		s.prevQuote = quotes
		top := quotes == 0 && markers == 0
		if top && col < 4 && rest[0] == '<' {
			s.sawHTML = true
		}
		heading := false
		if col-base < 4 {
			// A block starting here ends the items it is left of.
			if n, c := fenceRun(rest); n > 0 {
				if top {
					s.closeItems(col)
				}
				s.endBlock()
				if top && col < 2 && !s.sawHTML {
					// A fence at the margin is outside every container: it
					// runs to its closing fence or to the end of the
					// document, and nothing in it is Markdown. After a line
					// that may open an HTML block, a fence may be text
					// inside that block, so what follows it is scanned.
					fence, fenceLen = c, n
					s.listCols = s.listCols[:0]
					s.brackets = s.brackets[:0]
				}
				ls = s.lineEnd(i) + 1
				continue
			}
			if isRuleLine(rest) {
				// A thematic break or setext underline ends the paragraph.
				if top {
					s.closeItems(col)
				}
				s.endBlock()
				ls = s.lineEnd(i) + 1
				continue
			}
			if heading = isATXHeading(rest); heading {
				if top {
					s.closeItems(col)
				}
				s.endBlock()
			}
		}
		le, ok := s.inline(i)
		if !ok {
			return false
		}
		if heading {
			s.endBlock()
		}
		if s.maxEmph > maxMarkdownNesting || s.maxBrack > maxMarkdownNesting {
			return true
		}
		ls = le + 1
	}
	s.endBlock()
	return s.budget >= 0
}

// itemCol returns the content column of the innermost list item that may
// be open, 0 when there is none.
func (s *mdScan) itemCol() int {
	if n := len(s.listCols); n > 0 {
		return s.listCols[n-1]
	}
	return 0
}

// closeItems forgets the list items whose content starts right of col.
func (s *mdScan) closeItems(col int) {
	for len(s.listCols) > 0 && s.listCols[len(s.listCols)-1] > col {
		s.listCols = s.listCols[:len(s.listCols)-1]
	}
}

// lineEnd returns the offset of the '\n' ending the line at i, or len(src).
func (s *mdScan) lineEnd(i int) int {
	if k := bytes.IndexByte(s.src[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(s.src)
}

// indentLen returns the offset of the first byte of line that is not a
// space or a tab.
func indentLen(line []byte) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

// closesFence reports whether line closes a fence of n characters c: at
// least n of them after at most three spaces, then nothing but spaces.
func closesFence(line []byte, c byte, n int) bool {
	i := indentLen(line)
	if i > 3 {
		return false
	}
	j := i
	for j < len(line) && line[j] == c {
		j++
	}
	return j-i >= n && isBlankLine(line[j:])
}

// The predicates below read a line from the start of b to its '\n' (or the
// end of b).

// fenceRun returns the length and character of a code fence opening line
// (three or more backticks or tildes after at most three spaces); n is 0
// when the line is not one. A backtick fence's info string may not contain
// a backtick.
func fenceRun(b []byte) (n int, c byte) {
	i := indentLen(b)
	if i > 3 || i >= len(b) || (b[i] != '`' && b[i] != '~') {
		return 0, 0
	}
	c = b[i]
	j := i
	for j < len(b) && b[j] == c {
		j++
	}
	if j-i < 3 {
		return 0, 0
	}
	if c == '`' {
		for _, x := range b[j:] {
			if x == '\n' {
				break
			}
			if x == '`' {
				return 0, 0
			}
		}
	}
	return j - i, c
}

// listMarkerLen returns the length of a list marker at the start of b
// ("-", "+", "*", or 1–9 digits and "." or ")") followed by a space, a tab
// or the end of the line; 0 when there is none.
func listMarkerLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := 0
	switch c := b[0]; {
	case c == '-' || c == '+' || c == '*':
		n = 1
	case c >= '0' && c <= '9':
		for n < len(b) && n < 9 && b[n] >= '0' && b[n] <= '9' {
			n++
		}
		if n >= len(b) || (b[n] != '.' && b[n] != ')') {
			return 0
		}
		n++
	default:
		return 0
	}
	if n < len(b) && b[n] != ' ' && b[n] != '\t' && b[n] != '\r' && b[n] != '\n' {
		return 0
	}
	return n
}

func isBlankLine(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\n':
			return true
		case ' ', '\t', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}

func isATXHeading(b []byte) bool {
	i := 0
	for i < len(b) && b[i] == '#' {
		i++
	}
	return i >= 1 && i <= 6 && (i == len(b) || b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')
}

// isRuleLine reports a thematic break or a setext underline: one of - * _ =
// repeated, spaces allowed between.
func isRuleLine(b []byte) bool {
	var c byte
	n := 0
loop:
	for _, x := range b {
		switch {
		case x == '\n':
			break loop
		case x == ' ' || x == '\t' || x == '\r':
		case c == 0 && (x == '-' || x == '*' || x == '_' || x == '='):
			c = x
			n++
		case x == c:
			n++
		default:
			return false
		}
	}
	return n >= 3 || (n >= 1 && (c == '=' || c == '-'))
}

// inline scans the text of one line, from src[i] to its '\n', as part of
// the current block. It returns the offset of that '\n' (or len(src)), and
// false when the budget ran out.
func (s *mdScan) inline(i int) (int, bool) {
	src := s.src
	n := len(src)
	if s.blockStart < 0 {
		s.blockStart = i
	}
	s.blockLines++
	if i < n && src[i] == '[' {
		// A link reference definition starts "[label]:".
		for j := i + 1; j < n && src[j] != '\n'; j++ {
			if src[j] == ']' {
				if j+1 < n && src[j+1] == ':' {
					s.refLines++
				}
				break
			}
		}
	}
	j := i
	for ; j < n; j++ {
		// Most bytes are plain text: test eight at a time, one branch.
		for j+8 <= n {
			w := src[j : j+8 : j+8]
			if mdSpecial[w[0]]|mdSpecial[w[1]]|mdSpecial[w[2]]|mdSpecial[w[3]]|
				mdSpecial[w[4]]|mdSpecial[w[5]]|mdSpecial[w[6]]|mdSpecial[w[7]] != 0 {
				break
			}
			j += 8
		}
		for j < n && mdSpecial[src[j]] == 0 {
			j++
		}
		if j == n {
			break
		}
		c := src[j]
		if c == '\n' {
			break
		}
		switch c {
		case '\\':
			if j+1 < n && src[j+1] != '\n' {
				j++ // an escaped character triggers nothing
			}
		case '*', '_', '~':
			k := j
			for k < n && src[k] == c {
				k++
			}
			if c == '_' && j > s.blockStart && k < n && asciiAlnum[src[j-1]] && asciiAlnum[src[k]] {
				s.skipRun() // snake_case: neither opens nor closes
			} else {
				s.pushDelim(c, j, k)
			}
			j = k - 1
		case '!':
			if j+1 < n && src[j+1] == '[' {
				s.brackets = append(s.brackets, 0)
				j++
			}
		case '[':
			s.brackets = append(s.brackets, 0)
		case ']':
			if nb := len(s.brackets); nb > 0 {
				d := s.brackets[nb-1] + 1
				s.brackets = s.brackets[:nb-1]
				if nb > 1 && s.brackets[nb-2] < d {
					s.brackets[nb-2] = d
				}
				if d > s.maxBrack {
					s.maxBrack = d
				}
				if j+1 < n && src[j+1] == '(' && !s.spend(workLinks, destinationScan(src[j+2:])) {
					return j, false
				}
			}
		}
	}
	return j, true
}

// destinationScan returns how many bytes goldmark's parseLinkDestination
// reads for a destination starting at b (after "("): up to ">" for <...>,
// else up to a space or an unbalanced ")", and never past the line.
func destinationScan(b []byte) int64 {
	p := 0
	for p < len(b) && (b[p] == ' ' || b[p] == '\t') {
		p++
	}
	if p == len(b) || b[p] == '\n' {
		return int64(p) + 1
	}
	if b[p] == '<' {
		for q := p + 1; q < len(b); q++ {
			switch {
			case b[q] == '\\' && q+1 < len(b) && util.IsPunct(b[q+1]):
				q++
			case b[q] == '>' || b[q] == '\n':
				return int64(q + 1)
			}
		}
		return int64(len(b))
	}
	opened := 0
	for q := p; q < len(b); q++ {
		switch c := b[q]; {
		case c == '\\' && q+1 < len(b) && util.IsPunct(b[q+1]):
			q++
		case c == '(':
			opened++
		case c == ')':
			opened--
			if opened < 0 {
				return int64(q + 1)
			}
		case util.IsSpace(c):
			return int64(q + 1)
		}
	}
	return int64(len(b))
}

// pushDelim classifies the delimiter run src[j:k] as goldmark's
// ScanDelimiter does and appends it to the block's list.
func (s *mdScan) pushDelim(c byte, j, k int) {
	src := s.src
	bc := byte(runeSpace) // the start of a block counts as a newline
	if j > s.blockStart {
		bc = runeClass(src[:j], true)
	}
	ac := byte(runeSpace) // so does the end of the input ('\n' is a space)
	if k < len(src) {
		ac = runeClass(src[k:], false)
	}
	if c == '~' && (k-j > 2 || (j > s.blockStart && src[j-1] == '~')) {
		return // GFM strikethrough takes one or two tildes
	}
	bp, bs := bc == runePunct, bc == runeSpace
	ap, as := ac == runePunct, ac == runeSpace
	left := !as && (!ap || bs || bp)
	right := !bs && (!bp || as || ap)
	canOpen, canClose := left, right
	if c == '_' {
		canOpen = left && (!right || bp)
		canClose = right && (!left || ap)
	}
	n := len(s.delims)
	if !canOpen && !canClose {
		s.skipRun()
		return
	}
	if n > 0 {
		s.delims[n-1].next = int32(n)
	}
	s.delims = append(s.delims, mdDelim{char: c, canOpen: canOpen, canClose: canClose,
		length: int32(k - j), orig: int32(k - j), prev: int32(n) - 1, next: -1})
}

// skipRun counts a delimiter run that can neither open nor close.
func (s *mdScan) skipRun() {
	if n := len(s.delims); n > 0 {
		s.delims[n-1].skip++
	} else {
		s.headSkip++
	}
}

// asciiAlnum marks ASCII letters and digits.
var asciiAlnum = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
	}
	return t
}()

// endBlock ends the current inline block: it runs goldmark's delimiter
// matching over it and charges the reference definitions it holds.
func (s *mdScan) endBlock() {
	if r := s.refLines; r > 0 {
		// Each definition removed from a paragraph copies the lines after
		// it (goldmark's linkReferenceParagraphTransformer): at most
		// r·L − r(r−1)/2 copies for r definitions among L lines.
		s.spend(workRefs, r*s.blockLines-r*(r-1)/2)
	}
	if s.budget >= 0 && len(s.delims) > 0 {
		s.processDelims()
	}
	s.delims = s.delims[:0]
	s.headSkip = 0
	s.blockLines, s.refLines = 0, 0
	s.blockStart = -1
}

// processDelims replays goldmark's ProcessDelimiters (parser/delimiter.go)
// over the block's delimiters: every closer walks back to an opener of its
// character or to the start of the list, each step charged to the budget.
// It also computes the depth of the emphasis it builds.
func (s *mdScan) processDelims() {
	ds := s.delims
	remove := func(x int32) {
		d := &ds[x]
		if d.prev >= 0 {
			ds[d.prev].next = d.next
			// The text after x, and its runs, now follow its predecessor.
			if ds[d.prev].inner < d.inner {
				ds[d.prev].inner = d.inner
			}
			ds[d.prev].skip += d.skip
		} else {
			s.headSkip += d.skip
		}
		if d.next >= 0 {
			ds[d.next].prev = d.prev
		}
	}
	for closer := int32(0); closer >= 0; {
		d := &ds[closer]
		if !d.canClose {
			closer = d.next
			continue
		}
		var consume int32
		found, maybeOpener := false, false
		opener := d.prev
		steps := int64(0)
		for ; opener >= 0; opener = ds[opener].prev {
			o := &ds[opener]
			steps += 1 + int64(o.skip)
			if o.canOpen && o.char == d.char {
				maybeOpener = true
				consume = consumption(o, d)
				if consume > 0 {
					found = true
					break
				}
			}
		}
		if opener < 0 {
			steps += int64(s.headSkip)
		}
		if !s.spend(workEmphasis, steps) {
			return
		}
		if !found {
			next := d.next
			if !maybeOpener && !d.canOpen {
				remove(closer)
			}
			closer = next
			continue
		}
		o := &ds[opener]
		o.length -= consume
		d.length -= consume
		depth := o.inner
		for c := o.next; c != closer; {
			next := ds[c].next
			if ds[c].inner > depth {
				depth = ds[c].inner
			}
			ds[c].inner, ds[c].skip = 0, 0 // goldmark drops every run between
			remove(c)
			c = next
		}
		o.skip = 0
		depth++
		o.inner = depth
		if depth > s.maxEmph {
			s.maxEmph = depth
		}
		if o.length == 0 {
			remove(opener)
		}
		if d.length == 0 {
			next := d.next
			remove(closer)
			closer = next
		}
	}
}

// consumption is goldmark's Delimiter.CalcComsumption, with the "rule of 3"
// of CommonMark's emphasis spec.
func consumption(o, c *mdDelim) int32 {
	if (o.canClose || c.canOpen) && (o.orig+c.orig)%3 == 0 && c.orig%3 != 0 {
		return 0
	}
	if o.length >= 2 && c.length >= 2 {
		return 2
	}
	return 1
}
