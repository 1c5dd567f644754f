package attach

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// A Resource is a resources/list descriptor, as on the wire (2025-11-25).
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"` // raw bytes, before base64
	Icons       []Icon          `json:"icons,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// A ResourceTemplate is a resources/templates/list descriptor, as on the
// wire. Expand its URITemplate with [Expand].
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// An Icon is a descriptor's icon. Its Src is untrusted: show it only when
// it is an https: or data: URL.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Annotations are a descriptor's hints for the client. Priority is a
// pointer because go-sdk omits 0 and an absent priority is not 0.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// A Range is a half-open [start, end) range of UTF-16 code units, the
// offsets JavaScript strings use. It marshals as [start, end].
type Range [2]int

// Highlights holds, per field, the ranges of the field that matched the
// query. A field without a match has no ranges.
type Highlights struct {
	Name        []Range `json:"name,omitempty"`
	Title       []Range `json:"title,omitempty"`
	URI         []Range `json:"uri,omitempty"` // the uriTemplate for templates
	Description []Range `json:"description,omitempty"`
}

// A Match is one ranked query result: a resource or a template (exactly
// one is set; each is the caller's own copy).
type Match struct {
	Resource *Resource         `json:"resource,omitempty"`
	Template *ResourceTemplate `json:"template,omitempty"`
	// Score is the match's quality and field, higher first; only its
	// order means anything.
	Score      int        `json:"score"`
	Highlights Highlights `json:"highlights"`
}

// QueryOptions tunes [Index.Query]. The zero value is fine.
type QueryOptions struct {
	// Limit caps the number of matches. Zero or less means 50, the most a
	// picker list shows.
	Limit int
	// Audience, when set ("user" or "assistant"), drops descriptors whose
	// annotations.audience is non-empty and does not list it.
	Audience string
}

// DefaultQueryLimit is the Limit used when QueryOptions.Limit is not set.
const DefaultQueryLimit = 50

// MaxQueryRunes bounds a query: [Index.Query] matches the first
// MaxQueryRunes runes of q that are not spaces and ignores the rest. Why:
// each query rune costs work on every candidate, and a picker passes
// whatever token is at the caret, a pasted blob of base64 included
// (measured before the bound: a 1 MB query took 0.87 s over 24
// descriptors). Nobody types a longer query; a pasted URI longer than this
// still finds its document among the matches of its first 256 runes.
const MaxQueryRunes = 256

// maxQueryScan bounds the bytes of q read to find those runes (spaces
// included), so a query of spaces costs no more.
const maxQueryScan = 16 << 10

// Field indexes.
const (
	fName = iota
	fTitle
	fURI
	fDesc
	nFields
)

// fuzzyField reports whether letters of a query may match scattered
// through the field. Descriptions are prose: almost any short query occurs
// scattered through 280 characters of it, so they match only in one piece.
var fuzzyField = [nFields]bool{fName: true, fTitle: true, fURI: true}

// A tier is the quality of a query's match in one field, best last. Match
// quality dominates the field: a word-start match in a description outranks
// letters scattered through a title.
const (
	tierNone      = iota
	tierScattered // letters in order, the first at a word start, the rest anywhere after
	tierInside    // in one piece, inside a word: "elc" in Welcome
	tierInitials  // pieces that each start a word: "rad" in release-admin-docs
	tierWordStart // in one piece at a word start: "onb" in docs://team/x/onboarding/
	tierPrefix    // in one piece at the field's start
)

// strongMatches is how many matches better than scattered drop the
// scattered ones: with that many real matches, scattered letters are noise.
const strongMatches = 5

// rank orders one descriptor's match: its tier, then whether it is in the
// title or name (above the URI and description).
func rank(tier, f int) int {
	r := 2 * tier
	if f == fName || f == fTitle {
		r++
	}
	return r
}

type field struct {
	orig  string
	fold  string // per-rune unicode.ToLower; same rune count as orig
	mask  uint64
	pairs pairSet // the adjacent byte pairs of fold
	// starts is the charMask set of the runes that start a word: every
	// tier above tierInside needs the query's first rune there.
	starts uint64
	ascii  bool
}

// A pairSet is a 128-bit presence set of adjacent byte pairs: a query
// occurs in one piece only in a field whose set holds all of the query's
// pairs, which turns most long fields down without a substring search
// (descriptions hold most letters, but few of a query's pairs).
type pairSet [2]uint64

func pairsOf(s string) pairSet {
	var p pairSet
	for i := 1; i < len(s); i++ {
		h := pairBit(s[i-1], s[i])
		p[h>>6] |= 1 << (h & 63)
	}
	return p
}

func pairBit(a, b byte) uint { return (uint(a)*31 + uint(b)) & 127 }

func (p pairSet) holds(q pairSet) bool { return q[0]&^p[0] == 0 && q[1]&^p[1] == 0 }

type entryKey struct {
	template bool
	id       string // uri or uriTemplate
}

// An entry is the cold part of a descriptor: what a match returns and
// what breaks ties. The hot part a query scans (fields, masks) lives in
// parallel slices so the scan touches little memory.
type entry struct {
	key entryKey
	// res is the descriptor; a template's is kept in a Resource (its
	// uriTemplate as URI, no size) and given back as a ResourceTemplate:
	// half the bytes that a listing's growth of entries copies.
	res      Resource
	audience []string
}

// rankKey is what ordering needs, kept hot.
type rankKey struct {
	priority float64 // annotations.priority; absent counts as 0.5
	sortName string  // folded display name
	seq      int     // listing order: when the descriptor was first added
	key      entryKey
}

// An Index is the engine of the @-mention picker: it holds resource and
// template descriptors and answers ranked fuzzy queries. Updates are
// incremental (only new or changed descriptors are folded again), so
// list_changed never rebuilds it. It is safe for concurrent use.
type Index struct {
	mu      sync.RWMutex
	entries []entry
	fields  [][nFields]field // parallel to entries
	masks   []uint64         // parallel to entries: union of field masks
	sigs    []signature      // parallel to entries: what the best tiers need
	ranks   []rankKey        // parallel to entries
	byKey   map[entryKey]int
	seq     int // the next rankKey.seq
	// ordered: entries are in seq order (no removal has moved one), and
	// maxPriority bounds every entry's priority: together they let a query
	// stop once its results cannot be displaced.
	ordered     bool
	maxPriority float64
	// gen counts changes; last is the previous query's narrowing (see
	// Query), valid for the generation it was taken in.
	gen  uint64
	last atomic.Pointer[narrowing]
	// scratch holds a query's buffers for recording its narrowings
	// (full and strong), reused: what a keystroke allocates decides p99 in
	// wasm, where a collection marks the whole index.
	scratch [2]atomic.Pointer[[]int32]
	// folded: the entries before it have their fields, masks, signatures
	// and sort names; those from it on were added by AddResourcesLater or
	// AddTemplatesLater and wait for FoldPending or the next query.
	folded int
}

func (x *Index) takeScratch(k int) []int32 {
	if p := x.scratch[k].Swap(nil); p != nil {
		return (*p)[:0]
	}
	return make([]int32, 0, 1024)
}

func (x *Index) putScratch(k int, b []int32) { x.scratch[k].Store(&b) }

// narrowRate: a query whose result fills while more than one in
// narrowRate of the entries it scanned matched records no narrowing.
const narrowRate = 64

// A narrowing holds at most max(narrowMin, entries / narrowShare)
// entries: a query that may match more stops recording (the narrowing
// would save the next keystroke little, and recording costs a mayMatch
// per entry that ranking turned down from its signature alone).
const (
	narrowMin   = 1024
	narrowShare = 8
)

// A query stops recording its full narrowing after max(mayMin, entries /
// mayShare) mayMatch calls; its strong narrowing still counts.
const (
	mayMin   = 256
	mayShare = 32
)

// A strong narrowing holds at most max(narrowMin, entries / strongShare)
// entries: it costs no field access to record, so it may be longer.
const strongShare = 4

// narrowing is what one query leaves for the next while a word is typed:
// every entry that may match str in some field (a superset of its matches,
// and of the matches of every query extending str). A query whose folded
// text extends str only looks at those entries.
//
// A strong narrowing holds only the entries that may match str better
// than scattered (signature.strongMay), a superset of the strong matches
// of every query extending str. That is the whole answer of a query with
// at least strongMatches strong matches (its scattered ones are dropped),
// or with a result full of strong ones; any other query also ranks the
// entries left out, for scattered matches only (scanRest).
type narrowing struct {
	str      string
	audience string
	gen      uint64
	entries  []int32
	strong   bool
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{byKey: make(map[entryKey]int), ordered: true}
}

// Len reports the number of descriptors (resources plus templates).
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.entries)
}

// AddResources adds descriptors, replacing any with the same URI.
func (x *Index) AddResources(rs ...Resource) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldPending(-1)
	for i := range rs {
		x.put(entryKey{id: rs[i].URI}, &rs[i], nil, false)
	}
}

// AddTemplates adds templates, replacing any with the same URITemplate.
func (x *Index) AddTemplates(ts ...ResourceTemplate) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldPending(-1)
	for i := range ts {
		x.put(entryKey{template: true, id: ts[i].URITemplate}, nil, &ts[i], false)
	}
}

// AddResourcesLater is AddResources without folding the new descriptors
// for matching yet (most of a listing's cost in the index): they are
// folded by FoldPending, or by the next Query before it looks at them, so
// every query answers as after AddResources. A host lists into the index
// this way and folds when the listing has been handed over.
func (x *Index) AddResourcesLater(rs ...Resource) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range rs {
		x.put(entryKey{id: rs[i].URI}, &rs[i], nil, true)
	}
	x.boundPending()
}

// AddTemplatesLater is AddResourcesLater for templates.
func (x *Index) AddTemplatesLater(ts ...ResourceTemplate) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range ts {
		x.put(entryKey{template: true, id: ts[i].URITemplate}, nil, &ts[i], true)
	}
	x.boundPending()
}

// maxPending bounds the descriptors the Later calls leave unfolded. A
// query folds what still waits before it answers, on the page's one
// thread, so this is the most extra work a keystroke can meet: 4,096
// folds, ~45 ms under wasm (BenchmarkIndexListing: 10.9 ms per 1,000),
// inside the 100 ms the page's event loop may be held. Past it the oldest
// are folded as they come, as the eager calls would.
const maxPending = 4096

func (x *Index) boundPending() {
	if p := len(x.entries) - x.folded; p > maxPending {
		x.foldPending(p - maxPending)
	}
}

// FoldPending folds up to n of the descriptors added later (n < 0: all)
// and reports how many still wait.
func (x *Index) FoldPending(n int) (pending int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldPending(n)
	return len(x.entries) - x.folded
}

// foldPending folds up to n pending entries (n < 0: all).
func (x *Index) foldPending(n int) {
	for x.folded < len(x.entries) && n != 0 {
		x.fold(x.folded)
		x.folded++
		n--
	}
}

// fold computes entry i's fields, mask, signature and sort name from its
// descriptor.
func (x *Index) fold(i int) {
	d := &x.entries[i].res
	strs := [nFields]string{d.Name, d.Title, d.URI, d.Description}
	fs := &x.fields[i]
	x.masks[i] = indexFields(fs, &strs, &x.sigs[i])
	display := fs[fTitle].fold
	if display == "" {
		display = fs[fName].fold
	}
	x.ranks[i].sortName = display
}

// RemoveResources removes the resources with these URIs; unknown URIs are
// ignored.
func (x *Index) RemoveResources(uris ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldPending(-1)
	for _, u := range uris {
		x.remove(entryKey{id: u})
	}
}

// RemoveTemplates removes the templates with these URI templates.
func (x *Index) RemoveTemplates(uriTemplates ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldPending(-1)
	for _, u := range uriTemplates {
		x.remove(entryKey{template: true, id: u})
	}
}

// SetResources makes rs the complete set of resources (as after a full
// re-list on list_changed): resources not in rs are removed, new ones
// added, changed ones updated; unchanged ones are not folded again.
func (x *Index) SetResources(rs []Resource) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldPending(-1)
	keep := make(map[string]bool, len(rs))
	for i := range rs {
		keep[rs[i].URI] = true
		x.put(entryKey{id: rs[i].URI}, &rs[i], nil, false)
	}
	for i := len(x.entries) - 1; i >= 0; i-- {
		if k := x.entries[i].key; !k.template && !keep[k.id] {
			x.remove(k)
		}
	}
}

// SetTemplates makes ts the complete set of templates, like SetResources.
func (x *Index) SetTemplates(ts []ResourceTemplate) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldPending(-1)
	keep := make(map[string]bool, len(ts))
	for i := range ts {
		keep[ts[i].URITemplate] = true
		x.put(entryKey{template: true, id: ts[i].URITemplate}, nil, &ts[i], false)
	}
	for i := len(x.entries) - 1; i >= 0; i-- {
		if k := x.entries[i].key; k.template && !keep[k.id] {
			x.remove(k)
		}
	}
}

// put adds or replaces one descriptor. A new one (or one still pending) is
// folded now, or left pending when later: an eager caller folds every
// pending entry first, so a new entry is then the next to fold.
func (x *Index) put(k entryKey, r *Resource, t *ResourceTemplate, later bool) {
	var strs [nFields]string
	var ann *Annotations
	if r != nil {
		strs = [nFields]string{r.Name, r.Title, r.URI, r.Description}
		ann = r.Annotations
	} else {
		strs = [nFields]string{t.Name, t.Title, t.URITemplate, t.Description}
		ann = t.Annotations
	}
	i, exists := x.byKey[k]
	if !exists {
		x.entries = append(x.entries, entry{key: k})
		x.fields = append(x.fields, [nFields]field{})
		x.masks = append(x.masks, 0)
		x.sigs = append(x.sigs, signature{})
		x.ranks = append(x.ranks, rankKey{key: k, seq: x.seq})
		x.seq++
		i = len(x.entries) - 1
		x.byKey[k] = i
	}
	e := &x.entries[i]
	if r != nil {
		e.res = *r
	} else {
		e.res = Resource{URI: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
			MIMEType: t.MIMEType, Icons: t.Icons, Annotations: t.Annotations, Meta: t.Meta}
	}
	rk := &x.ranks[i]
	rk.priority, e.audience = 0.5, nil
	if ann != nil {
		if ann.Priority != nil {
			rk.priority = *ann.Priority
		}
		e.audience = ann.Audience
	}
	x.maxPriority = max(x.maxPriority, rk.priority)
	if i >= x.folded {
		x.gen++
		if !later {
			x.fold(i)
			x.folded = i + 1
		}
		return
	}
	fs := &x.fields[i]
	changed := false
	for f := range fs {
		if fs[f].orig != strs[f] {
			changed = true
		}
	}
	if !changed {
		return
	}
	x.gen++
	x.fold(i)
}

func (x *Index) remove(k entryKey) {
	i, ok := x.byKey[k]
	if !ok {
		return
	}
	x.foldPending(-1) // the last entry may move below folded
	x.gen++
	last := len(x.entries) - 1
	if i != last {
		x.ordered = false
		x.entries[i] = x.entries[last]
		x.fields[i] = x.fields[last]
		x.masks[i] = x.masks[last]
		x.sigs[i] = x.sigs[last]
		x.ranks[i] = x.ranks[last]
		x.byKey[x.entries[i].key] = i
	}
	x.entries[last] = entry{}
	x.fields[last] = [nFields]field{}
	x.entries = x.entries[:last]
	x.fields = x.fields[:last]
	x.masks = x.masks[:last]
	x.sigs = x.sigs[:last]
	x.ranks[last] = rankKey{}
	x.ranks = x.ranks[:last]
	x.folded = last
	delete(x.byKey, k)
}

func foldRune(r rune) rune { return unicode.ToLower(r) }

// newField folds s for matching: fold, mask, pairs and word starts.
func newField(s string) field {
	var sig signature
	f := foldField(s)
	sig.addField(fName, &f)
	return f
}

// foldField sets a field's orig, fold, ascii and mask; signature.addField
// sets the rest.
func foldField(s string) field {
	f := field{orig: s, ascii: true}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			f.ascii = false
			break
		}
	}
	if f.ascii {
		f.fold = strings.ToLower(s)
		for i := 0; i < len(f.fold); i++ {
			f.mask |= asciiMask[f.fold[i]]
		}
		return f
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			f.mask |= asciiMask[c]
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:]) // an invalid byte is one U+FFFD
		fr := foldRune(r)
		b = utf8.AppendRune(b, fr)
		f.mask |= charMask(fr)
		i += size
	}
	f.fold = unsafe.String(unsafe.SliceData(b), len(b))
	return f
}

// indexFields folds a descriptor's four strings into fs, writes its
// signature to sig and returns the union of the fields' masks: one pass
// over each field for its pairs, word starts and word keys together (the
// listing of 1,000 descriptors spent most of its index time walking every
// field three times and decoding the rune before each offset).
func indexFields(fs *[nFields]field, strs *[nFields]string, sig *signature) (mask uint64) {
	*sig = signature{}
	for f := range fs {
		fs[f] = foldField(strs[f])
		sig.addField(f, &fs[f])
		mask |= fs[f].mask
	}
	return mask
}

// asciiMask is charMask for each ASCII byte.
var asciiMask = func() (m [utf8.RuneSelf]uint64) {
	for c := range m {
		m[c] = charMask(rune(c))
	}
	return m
}()

// addField sets fl.pairs and fl.starts (fl is folded: foldField) and adds
// field f's part to the signature: its pairs, word starts, mask, and the
// keys of each word start (signature's words, and at the field's start its
// first rune, run and prefix hashes).
func (s *signature) addField(f int, fl *field) {
	fold := fl.fold
	var p256 *pairs256
	switch f {
	case fName, fTitle:
		p256 = &s.ntPairs
	case fURI:
		p256 = &s.uriPairs
	}
	for i := 1; i < len(fold); i++ {
		a, b := fold[i-1], fold[i]
		h := pairBit(a, b)
		fl.pairs[h>>6] |= 1 << (h & 63)
		if p256 != nil {
			h := pair256(a, b)
			p256[h>>6] |= 1 << (h & 63)
		} else {
			h := (uint32(a)<<8 | uint32(b)) * 0x9E3779B1 >> 23
			s.descPairs[h>>6] |= 1 << (h & 63)
		}
	}
	var starts uint64
	if fl.ascii {
		orig := fl.orig
		for i := 0; i < len(fold); i++ {
			if i > 0 && isAlnum(fold[i-1]) && !('A' <= orig[i] && orig[i] <= 'Z' && 'a' <= orig[i-1] && orig[i-1] <= 'z') {
				continue // not a word start (field.boundary)
			}
			starts |= asciiMask[fold[i]]
			s.addWordStart(f, fold, i, true)
		}
	} else {
		prev := rune(0)
		for i, r := range fold {
			if i > 0 && (unicode.IsLetter(prev) || unicode.IsDigit(prev)) {
				prev = r
				continue // not a word start (field.boundary)
			}
			prev = r
			starts |= charMask(r)
			s.addWordStart(f, fold, i, false)
		}
	}
	fl.starts = starts
	switch f {
	case fName, fTitle:
		s.starts[0] |= starts
		s.ntMask |= fl.mask
	case fURI:
		s.starts[1] |= starts
		s.uriMask = fl.mask
	default:
		s.starts[2] |= starts
	}
}

// addWordStart adds the keys of the word start at byte offset i of field
// f's fold (ascii: the fold is ASCII).
func (s *signature) addWordStart(f int, fold string, i int, ascii bool) {
	var r [4]rune
	var n, run int
	if ascii {
		r = [4]rune{-1, -1, -1, -1}
		for n < 4 && i+n < len(fold) {
			r[n] = rune(fold[i+n])
			n++
		}
		for i+run < len(fold) && run < 255 && isAlnum(fold[i+run]) {
			run++
		}
	} else {
		r, n = runesAt(fold, i)
		run = runLen(fold, i)
	}
	words := s.udWords[:]
	class := 1
	if f == fName || f == fTitle {
		words, class = s.ntWords[:], 0
	}
	if i == 0 {
		s.first[class] |= charMask(r[0])
		s.run0[f] = uint8(run)
		for k := 2; k <= n; k++ {
			s.prefix[f][k-2] = prefixHash(cut(r, k))
		}
	}
	if n < 2 {
		return
	}
	// keyHash of the first two, three and four runes, sharing the runes'
	// terms (the kind is the only other input). words has 256 or 512 bits.
	mod := 64*uint32(len(words)) - 1
	t01 := uint32(r[0])*0x85EBCA77 ^ uint32(r[1])*0xC2B2AE3D
	const none2, none3 = 0xFFFFFFFF * 0x27D4EB2F & 0xFFFFFFFF, 0xFFFFFFFF * 0x165667B1 & 0xFFFFFFFF // the terms of -1
	h := mixKey(keyWord, t01^none2^none3) & mod
	words[h>>6] |= 1 << (h & 63)
	if n < 3 {
		return
	}
	t2 := uint32(r[2]) * 0x27D4EB2F
	h = mixKey(keyWord, t01^t2^none3) & mod
	words[h>>6] |= 1 << (h & 63)
	if n < 4 {
		return
	}
	t0123 := t01 ^ t2 ^ uint32(r[3])*0x165667B1
	for c := range lenClass(run) + 1 {
		h = mixKey(keyWord4+c, t0123) & mod
		words[h>>6] |= 1 << (h & 63)
	}
}

// charMask maps a folded rune to one bit of a 64-bit presence set: a
// query can only match a field whose set contains all of the query's bits.
func charMask(r rune) uint64 {
	switch {
	case 'a' <= r && r <= 'z':
		return 1 << uint(r-'a')
	case '0' <= r && r <= '9':
		return 1 << uint(26+r-'0')
	case r < utf8.RuneSelf:
		return 1 << uint(36+r%20)
	default:
		return 1 << uint(56+r%8)
	}
}

// query is a folded query, prepared once per Query call.
type query struct {
	str   string
	runes []string // UTF-8 of each folded rune
	mask  uint64
	pairs pairSet
	first uint64 // charMask of the first rune
	// For queries of two runes or more: what signature.reaches needs.
	sig sigQuery
}

func newQuery(q string) query {
	var qq query
	var b strings.Builder
	if len(q) > maxQueryScan {
		cut := maxQueryScan
		for cut > 0 && !utf8.RuneStart(q[cut]) {
			cut--
		}
		q = q[:cut]
	}
	for _, r := range q {
		if unicode.IsSpace(r) {
			continue // spaces separate words in a picker; match them anywhere
		}
		if len(qq.runes) == MaxQueryRunes {
			break
		}
		fr := foldRune(r)
		b.WriteRune(fr)
		qq.mask |= charMask(fr)
		if qq.runes == nil {
			qq.first = charMask(fr)
		}
		qq.runes = append(qq.runes, string(fr))
	}
	qq.str = b.String()
	qq.pairs = pairsOf(qq.str)
	if len(qq.runes) >= 2 {
		qq.sig = newSigQuery(qq.str)
	}
	return qq
}

// boundary reports whether byte offset i of the field starts a word: the
// field's start, after a non-alphanumeric rune, or a camelCase hump.
func (f *field) boundary(i int) bool {
	if i == 0 {
		return true
	}
	if f.ascii {
		p := f.fold[i-1]
		if !isAlnum(p) {
			return true
		}
		o, po := f.orig[i], f.orig[i-1]
		return 'A' <= o && o <= 'Z' && 'a' <= po && po <= 'z'
	}
	r, _ := utf8.DecodeLastRuneInString(f.fold[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// match finds the best way query q occurs in the field and returns its
// tier (tierNone when it does not occur), with the matched rune byte
// offsets in fold written to buf (which must have room for len(q.runes)).
// In one piece, an occurrence at a word start is preferred; otherwise, when
// fuzzy, letters in order whose first starts a word (a first letter inside
// a word, as "o" in "Rolling", is no match), in the tightest window; they
// are initials when each piece of that window starts a word.
func (f *field) match(q *query, buf []int, fuzzy bool, minTier int) (tier int, pos []int) {
	n := len(q.runes)
	if n == 0 || minTier > tierPrefix || len(f.fold) < len(q.str) || q.mask&^f.mask != 0 {
		return tierNone, nil
	}
	pos = buf[:n]
	if minTier == tierPrefix {
		// Only the field's start can still count.
		if !strings.HasPrefix(f.fold, q.str) {
			return tierNone, nil
		}
		fillContiguous(q, pos, 0)
		return tierPrefix, pos
	}
	if minTier > tierInside && f.starts&q.first == 0 {
		return tierNone, nil // no word starts with the first rune
	}
	if !fuzzy || n < 2 || minTier > tierInitials {
		// One piece or nothing: no subsequence pass first.
		return f.onePiece(q, pos)
	}
	// Is q a subsequence at all? Forward, with the vectorised IndexByte:
	// the cheapest way to turn most fields down. first is where q.runes[0]
	// first occurs, end where that first complete match ends.
	first, end := 0, 0
	for k, r := range q.runes {
		var i int
		if len(r) == 1 {
			i = strings.IndexByte(f.fold[end:], r[0])
		} else {
			i = strings.Index(f.fold[end:], r)
		}
		if i < 0 {
			return tierNone, nil
		}
		if k == 0 {
			first = i
		}
		end += i + len(r)
	}
	if t, p := f.onePiece(q, pos); t != tierNone {
		return t, p
	}
	// Scattered: from the first word-start occurrence of the first rune
	// after which the rest follows, the rest walked forward, then back from
	// the end of that first complete match, and the first rune moved to its
	// latest word start before the second: the tightest window (fzf's v1).
	r0 := q.runes[0]
	start, at := first, end
	for !f.boundary(start) {
		i := index(f.fold[start+len(r0):], r0)
		if i < 0 {
			return tierNone, nil
		}
		if start += len(r0) + i; !f.boundary(start) {
			continue
		}
		at = start + len(r0)
		for _, r := range q.runes[1:] {
			j := index(f.fold[at:], r)
			if j < 0 {
				return tierNone, nil // no later start can do better
			}
			at += j + len(r)
		}
	}
	for k := n - 1; k >= 1; k-- {
		at = strings.LastIndex(f.fold[:at], q.runes[k])
		pos[k] = at
	}
	for j := strings.LastIndex(f.fold[:pos[1]], r0); j > start; j = strings.LastIndex(f.fold[:j], r0) {
		if f.boundary(j) {
			start = j
			break
		}
	}
	pos[0] = start
	tier = tierInitials // unless a piece starts inside a word
	for k := 1; k < n; k++ {
		if pos[k] != pos[k-1]+len(q.runes[k-1]) && !f.boundary(pos[k]) {
			tier = tierScattered
			break
		}
	}
	return tier, pos
}

// onePiece finds q in one piece: at the field's start, else at a word start
// (the first of up to 8 further occurrences that is one), else inside.
func (f *field) onePiece(q *query, pos []int) (int, []int) {
	if !f.pairs.holds(q.pairs) {
		return tierNone, nil
	}
	i := strings.Index(f.fold, q.str)
	if i < 0 {
		return tierNone, nil
	}
	tier := tierInside
	switch {
	case i == 0:
		tier = tierPrefix
	case f.boundary(i):
		tier = tierWordStart
	default:
		for from, tries := i+len(q.runes[0]), 0; tries < 8; tries++ {
			j := strings.Index(f.fold[from:], q.str)
			if j < 0 {
				break
			}
			if j += from; f.boundary(j) {
				i, tier = j, tierWordStart
				break
			}
			from = j + len(q.runes[0])
		}
	}
	fillContiguous(q, pos, i)
	return tier, pos
}

// mayMatch reports whether some field of entry i may match q: in one
// piece, or (in a fuzzy field where a word starts with q's first rune)
// letters in order. It holds for every entry match finds, and what may
// match a query may also match any shorter query it extends: the narrowing
// of Query rests on both. It stops at the first field that may (the
// description, the longest, last).
func (x *Index) mayMatch(i int, q *query) bool {
	fs := &x.fields[i]
	for f := range fs {
		fl := &fs[f]
		if len(fl.fold) < len(q.str) || q.mask&^fl.mask != 0 {
			continue
		}
		if !fuzzyField[f] || fl.starts&q.first == 0 {
			if fl.pairs.holds(q.pairs) && strings.Contains(fl.fold, q.str) {
				return true
			}
			continue
		}
		at := 0
		for _, r := range q.runes {
			j := index(fl.fold[at:], r)
			if j < 0 {
				at = -1
				break
			}
			at += j + len(r)
		}
		if at >= 0 {
			return true
		}
	}
	return false
}

// index is strings.Index for the UTF-8 of one rune, vectorised for ASCII.
func index(s, r string) int {
	if len(r) == 1 {
		return strings.IndexByte(s, r[0])
	}
	return strings.Index(s, r)
}

func fillContiguous(q *query, pos []int, at int) {
	for k, r := range q.runes {
		pos[k] = at
		at += len(r)
	}
}

type candidate struct {
	idx   int
	score int // rank(tier, field); 0 for the empty query
}

// better orders candidates: score, then annotations.priority (absent
// counts as 0.5, the middle of 0..1), then listing order; for the empty
// query (byName), priority, then display name, then URI.
func (x *Index) better(a, b candidate, byName bool) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	ea, eb := &x.ranks[a.idx], &x.ranks[b.idx]
	if ea.priority != eb.priority {
		return ea.priority > eb.priority
	}
	if !byName {
		return ea.seq < eb.seq
	}
	if ea.sortName != eb.sortName {
		return ea.sortName < eb.sortName
	}
	if ea.key.id != eb.key.id {
		return ea.key.id < eb.key.id
	}
	return !ea.key.template && eb.key.template
}

// best returns the best rank of q over the fields of entry i and the field
// that has it, or ok=false when no field matches.
// A match ranked below need cannot enter the result (need <= 0: any can);
// fields are asked only for the tiers that could reach it.
func (x *Index) best(i int, q *query, buf []int, need int) (score, field int, ok bool) {
	fs := &x.fields[i]
	for f := range fs {
		th := need
		if ok {
			th = max(th, score+1) // a later field must do better
		}
		if t, _ := fs[f].match(q, buf, fuzzyField[f], minTier(th, f)); t != tierNone {
			if r := rank(t, f); r >= th && (!ok || r > score) {
				score, field, ok = r, f, true
			}
		}
	}
	return score, field, ok
}

// minTier is the lowest tier of field f whose rank reaches th.
func minTier(th, f int) int {
	if f == fName || f == fTitle {
		th--
	}
	return max(tierScattered, (th+1)/2)
}

// maxRank is the best rank there is: the name's start.
var maxRank = rank(tierPrefix, fName)

// Query returns up to opts.Limit descriptors matching q, best first. A
// descriptor matches when q (case-folded, spaces ignored) occurs in its
// name, title, URI (uriTemplate) or description in one piece, or in its
// name, title or URI as pieces starting words or as letters in order whose
// first starts a word. The quality of the match ranks first: at the field's
// start, at a word start, inside a word, as word-start pieces, scattered;
// when at least 5 matches are better than scattered, the scattered ones are
// dropped. Among equal quality, name and title rank above URI and
// description, then annotations.priority, then listing order. An empty q
// lists every descriptor by priority and name. Highlights are half-open
// UTF-16 ranges per field. Only the first [MaxQueryRunes] runes of q that
// are not spaces count.
func (x *Index) Query(q string, opts QueryOptions) []Match {
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultQueryLimit
	}
	qq := newQuery(q)
	buf := make([]int, len(qq.runes))
	x.mu.RLock()
	for x.folded < len(x.entries) {
		// Descriptors added later: fold them first.
		x.mu.RUnlock()
		x.mu.Lock()
		x.foldPending(-1)
		x.mu.Unlock()
		x.mu.RLock()
	}
	defer x.mu.RUnlock()

	empty := len(qq.runes) == 0
	// While a word is typed, each query extends the previous one: only the
	// entries that may have matched it can match this one.
	var from *narrowing
	if n := x.last.Load(); n != nil && !empty && n.gen == x.gen && n.audience == opts.Audience && strings.HasPrefix(qq.str, n.str) {
		from = n
	}
	heap, strong := x.scan(&qq, opts.Audience, limit, from, buf)
	// Pop worst-first into place; scattered matches (the worst) go when
	// there are enough strong ones.
	drop := strong >= strongMatches
	out := make([]Match, len(heap))
	k := len(heap)
	for len(heap) > 0 {
		c := heap[0]
		heap[0] = heap[len(heap)-1]
		heap = heap[:len(heap)-1]
		x.siftDown(heap, 0, empty)
		if drop && c.score < rank(tierInside, fURI) {
			continue
		}
		k--
		out[k] = x.matchOf(c, &qq, buf)
	}
	return out[k:]
}

// scan ranks the entries that may match q (all, or those of the
// narrowing from) into a heap of the best limit, counts the strong
// matches (better than scattered) it found, and records this query's
// narrowing for the next.
func (x *Index) scan(qq *query, audience string, limit int, from *narrowing, buf []int) (heap []candidate, strong int) {
	heap = make([]candidate, 0, min(limit, len(x.entries))+1)
	empty := len(qq.runes) == 0
	var entries []int32
	strongOnly := false
	if from != nil {
		entries, strongOnly = from.entries, from.strong
	}
	// next records this query's narrowing: the entries that match it (a
	// by-product of ranking them while the result is not full), and those
	// that may (mayMatch) among the ones it ranked only above a threshold.
	// A query whose first matches come thick stops recording when its
	// result fills: it narrows little, and recording would cost a mayMatch
	// per entry where ranking now costs a look at the signature. So does a
	// query that has asked mayMatch maxMayCalls times (a scattered match,
	// first letter at a word start, is possible almost everywhere in URIs
	// that share a scheme and path). snext records its strong narrowing
	// alongside, from the signatures alone (strongMay): what a picker
	// typing multi-word queries narrows on.
	var next, snext []int32
	if !empty {
		next, snext = x.takeScratch(0), x.takeScratch(1)
		defer func() { x.putScratch(0, next); x.putScratch(1, snext) }()
	}
	complete, record := !empty && !strongOnly, !empty && !strongOnly
	sComplete := !empty && len(qq.runes) >= 2
	sRecord := sComplete
	scanned, matched, mayCalls := 0, 0, 0
	maxNarrowing := max(narrowMin, len(x.masks)/narrowShare)
	maxMayCalls := max(mayMin, len(x.masks)/mayShare)
	maxStrong := max(narrowMin, len(x.masks)/strongShare)
	mayMatch := func(i int) bool {
		if mayCalls++; mayCalls > maxMayCalls {
			record, complete = false, false
			return false
		}
		return x.mayMatch(i, qq)
	}
	for k, i := 0, 0; ; i++ {
		if entries != nil {
			if k == len(entries) {
				break
			}
			i = int(entries[k])
			k++
			if qq.mask&^x.masks[i] != 0 {
				continue
			}
		} else if i = nextCandidate(x.masks, qq.mask, i); i == len(x.masks) {
			break
		}
		if audience != "" {
			if aud := x.entries[i].audience; len(aud) > 0 && !containsString(aud, audience) {
				continue
			}
		}
		c := candidate{idx: i}
		if !empty {
			scanned++
			sg := &x.sigs[i]
			if sRecord && sg.strongMay(qq) {
				// Full, or on course to hold twice as many as it may by
				// the end of the index: stop.
				if len(snext) == maxStrong || len(snext) >= 256 && len(snext)*len(x.masks) > 2*maxStrong*(i+1) {
					sRecord, sComplete = false, false
				} else {
					snext = append(snext, int32(i))
				}
			}
			need := 1
			if len(heap) == limit {
				// The rank this descriptor needs to displace the worst kept
				// one: a tie displaces it only on priority or listing order.
				need = heap[0].score
				if sg.reaches(qq, need) {
					w, rk := &x.ranks[heap[0].idx], &x.ranks[i]
					if rk.priority < w.priority || rk.priority == w.priority && rk.seq > w.seq {
						need++
					}
				}
			}
			if !sg.reaches(qq, need) {
				// Its fields cannot reach the result.
				if record && sg.reaches(qq, 1) && mayMatch(i) {
					next = append(next, int32(i))
				}
				continue
			}
			s, _, found := x.best(i, qq, buf, need)
			if record && (found || need > 1 && mayMatch(i)) {
				next = append(next, int32(i)) // ranked below need: it may still match
			}
			if len(next) > maxNarrowing {
				record, complete = false, false
			}
			if !found {
				continue
			}
			matched++
			if s >= rank(tierInside, fURI) {
				strong++
			}
			c.score = s
		}
		if len(heap) < limit {
			heap = append(heap, c)
			x.siftUp(heap, len(heap)-1, empty)
			if record && len(heap) == limit && matched*narrowRate > scanned {
				record, complete = false, false
			}
		} else if x.better(c, heap[0], empty) {
			heap[0] = c
			x.siftDown(heap, 0, empty)
		} else {
			continue
		}
		if len(heap) == limit && !empty && heap[0].score == maxRank && x.ordered && x.maxPriority <= x.ranks[heap[0].idx].priority {
			// The narrowings would miss what was not scanned.
			complete, sComplete = false, false
			break // every later descriptor comes later and has no higher priority
		}
	}
	drop := strong >= strongMatches
	if strongOnly && !drop && (len(heap) < limit || heap[0].score < rank(tierInside, fURI)) {
		// The answer keeps scattered matches, which the strong narrowing
		// does not hold: rank the entries it left out too.
		heap = x.scanRest(qq, audience, limit, entries, heap, buf)
	}
	switch {
	case complete:
		x.last.Store(&narrowing{str: qq.str, audience: audience, gen: x.gen, entries: slices.Clone(next)})
	case sComplete && drop:
		// A query with fewer strong matches would leave the next one
		// scanning its narrowing for nothing.
		x.last.Store(&narrowing{str: qq.str, audience: audience, gen: x.gen, entries: slices.Clone(snext), strong: true})
	}
	return heap, strong
}

// scanRest ranks into heap the entries that the strong narrowing in (in
// index order) left out. They match q only scattered (rank(tierScattered,
// fName) at best), so one that must rank higher to enter is passed over
// without a look at its signature.
func (x *Index) scanRest(qq *query, audience string, limit int, in []int32, heap []candidate, buf []int) []candidate {
	k := 0
	for i := 0; ; i++ {
		if i = nextCandidate(x.masks, qq.mask, i); i == len(x.masks) {
			break
		}
		for k < len(in) && int(in[k]) < i {
			k++
		}
		if k < len(in) && int(in[k]) == i {
			continue // ranked already
		}
		if audience != "" {
			if aud := x.entries[i].audience; len(aud) > 0 && !containsString(aud, audience) {
				continue
			}
		}
		need := 1
		if len(heap) == limit {
			need = heap[0].score
			w, rk := &x.ranks[heap[0].idx], &x.ranks[i]
			if rk.priority < w.priority || rk.priority == w.priority && rk.seq > w.seq {
				need++
			}
		}
		if need > rank(tierScattered, fName) || !x.sigs[i].reaches(qq, need) {
			continue
		}
		s, _, found := x.best(i, qq, buf, need)
		if !found {
			continue
		}
		c := candidate{idx: i, score: s}
		if len(heap) < limit {
			heap = append(heap, c)
			x.siftUp(heap, len(heap)-1, false)
		} else if x.better(c, heap[0], false) {
			heap[0] = c
			x.siftDown(heap, 0, false)
		}
	}
	return heap
}

// nextCandidate returns the first index from i on whose mask has all of
// qmask's bits, or len(masks). A loop of its own: rejecting most entries
// stays in registers.
func nextCandidate(masks []uint64, qmask uint64, i int) int {
	for ; i < len(masks); i++ {
		if qmask&^masks[i] == 0 {
			return i
		}
	}
	return len(masks)
}

// The heap is a min-heap under better: heap[0] is the worst kept match.
func (x *Index) siftUp(h []candidate, i int, byName bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !x.better(h[p], h[i], byName) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (x *Index) siftDown(h []candidate, i int, byName bool) {
	for {
		l, w := 2*i+1, i
		if l < len(h) && x.better(h[w], h[l], byName) {
			w = l
		}
		if r := l + 1; r < len(h) && x.better(h[w], h[r], byName) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

func (x *Index) matchOf(c candidate, q *query, buf []int) Match {
	e := &x.entries[c.idx]
	m := Match{Score: c.score}
	if e.key.template {
		d := &e.res
		m.Template = &ResourceTemplate{URITemplate: d.URI, Name: d.Name, Title: d.Title, Description: d.Description,
			MIMEType: d.MIMEType, Icons: d.Icons, Annotations: d.Annotations, Meta: d.Meta}
	} else {
		r := e.res
		m.Resource = &r
	}
	dst := [nFields]*[]Range{&m.Highlights.Name, &m.Highlights.Title, &m.Highlights.URI, &m.Highlights.Description}
	// Highlight the field that ranked the match, and any other field only
	// where the query occurs in one piece: letters scattered through a
	// field that did not decide the rank are noise to a reader.
	_, best, _ := x.best(c.idx, q, buf, 0)
	fs := &x.fields[c.idx]
	for f := range fs {
		if t, pos := fs[f].match(q, buf, fuzzyField[f], tierScattered); t != tierNone && (f == best || t >= tierInside) {
			*dst[f] = fs[f].ranges(q, pos)
		}
	}
	return m
}

// ranges converts matched rune byte offsets in fold into merged half-open
// UTF-16 ranges of orig. fold and orig have the same runes count, so the
// k-th rune of one is the k-th rune of the other.
func (f *field) ranges(q *query, pos []int) []Range {
	var out []Range
	fi, oi, u16 := 0, 0, 0
	k := 0
	for fi < len(f.fold) && k < len(pos) {
		_, fs := utf8.DecodeRuneInString(f.fold[fi:])
		or, os := utf8.DecodeRuneInString(f.orig[oi:])
		w := 1
		if or >= 0x10000 {
			w = 2
		}
		if fi == pos[k] {
			if n := len(out); n > 0 && out[n-1][1] == u16 {
				out[n-1][1] = u16 + w
			} else {
				out = append(out, Range{u16, u16 + w})
			}
			k++
		}
		fi += fs
		oi += os
		u16 += w
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A signature is what an entry's tiers need, in a few cache lines
// parallel to the entries: an entry whose signature cannot reach the rank
// a query's result already needs is skipped without touching its fields
// (the broad queries of a picker fill their result early with good
// matches, then would match every remaining field against the query). It
// never rules out a match that match would find; the hashed parts may
// allow one that is not there.
type signature struct {
	// prefix holds, per field, hashes of its first two, three and four
	// runes (0: the field is shorter).
	prefix [nFields][3]uint16
	// run0 is, per field, the length in runes of the alphanumeric run it
	// starts with (at most 255; see runLen).
	run0 [nFields]uint8
	// starts are the charMasks of word-start runes of the name and title,
	// the URI and the description; first those of the first runes of the
	// name and title, and of the URI and description.
	starts [3]uint64
	first  [2]uint64
	// ntMask and uriMask are the charMasks of the name and title together
	// and of the URI.
	ntMask, uriMask uint64
	// words are presence sets of the first two, three and four folded
	// runes at each word start of the name and title (256 bits) and of
	// the URI and description (512 bits).
	ntWords [4]uint64
	udWords [8]uint64
	// Adjacent byte pairs of the name and title together and of the URI
	// (pairs256), and of the description (pairs512).
	ntPairs, uriPairs pairs256
	descPairs         pairs512
}

// Key kinds, salted into keyHash. A word-start key of four runes is set
// once per lenClass up to that of the alphanumeric run there: a query in
// one piece at that word start whose own first run is longer cannot be
// there ("refundi", the query "refund i", is not at the start of
// "refund").
const (
	keyWord = iota + 1
	keyPrefix
	keyWord4 // + lenClass
)

// lenClass buckets a run length for keyWord4: up to 4, 5–6, 7–8, 9–11, 12
// or more.
func lenClass(n int) int {
	switch {
	case n <= 4:
		return 0
	case n <= 6:
		return 1
	case n <= 8:
		return 2
	case n <= 11:
		return 3
	}
	return 4
}

// runLen is the number of alphanumeric runes of s from byte offset i (at
// most 255), alphanumeric as boundary has it: a word of a field ends there.
func runLen(s string, i int) int {
	n := 0
	for _, r := range s[i:] {
		if r < utf8.RuneSelf && !isAlnum(byte(r)) || r >= utf8.RuneSelf && !unicode.IsLetter(r) && !unicode.IsDigit(r) || n == 255 {
			break
		}
		n++
	}
	return n
}

// keyHash hashes a key: its kind and two to four runes (-1 past the end).
func keyHash(kind int, r [4]rune) uint32 {
	return mixKey(kind, uint32(r[0])*0x85EBCA77^uint32(r[1])*0xC2B2AE3D^uint32(r[2])*0x27D4EB2F^uint32(r[3])*0x165667B1)
}

// mixKey is keyHash from the runes' terms, xored.
func mixKey(kind int, terms uint32) uint32 {
	h := uint32(kind)*0x9E3779B1 ^ terms
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	h *= 0x297A2D39
	h ^= h >> 15
	return h
}

// prefixHash is keyHash for a field's prefix, never 0.
func prefixHash(r [4]rune) uint16 { return uint16(keyHash(keyPrefix, r)>>16) | 1 }

func hasBit(b []uint64, h uint32) bool { k := h % uint32(64*len(b)); return b[k>>6]&(1<<(k&63)) != 0 }

// pairs256 is a 256-bit presence set of adjacent byte pairs, with fewer
// collisions than pairSet: a signature tests every pair of a query.
type pairs256 [4]uint64

func pair256(a, b byte) uint8 { return uint8((uint32(a)<<8 | uint32(b)) * 0x9E3779B1 >> 24) }

func (p *pairs256) add(s string) {
	for i := 1; i < len(s); i++ {
		h := pair256(s[i-1], s[i])
		p[h>>6] |= 1 << (h & 63)
	}
}

func (p *pairs256) has(h uint8) bool { return p[h>>6]&(1<<(h&63)) != 0 }

// pairs512 is pairs256 in 512 bits, for descriptions (prose holds many
// pairs).
type pairs512 [8]uint64

func (p *pairs512) add(s string) {
	for i := 1; i < len(s); i++ {
		h := (uint32(s[i-1])<<8 | uint32(s[i])) * 0x9E3779B1 >> 23
		p[h>>6] |= 1 << (h & 63)
	}
}

func (p *pairs512) holds(q *pairs512) bool {
	for i := range p {
		if q[i]&^p[i] != 0 {
			return false
		}
	}
	return true
}

func (p *pairs256) holds(q *pairs256) bool {
	return q[0]&^p[0] == 0 && q[1]&^p[1] == 0 && q[2]&^p[2] == 0 && q[3]&^p[3] == 0
}

// runesAt returns the (up to) four runes of s from byte offset i, -1 past
// its end.
func runesAt(s string, i int) (r [4]rune, n int) {
	r = [4]rune{-1, -1, -1, -1}
	for n < 4 && i < len(s) {
		c, size := utf8.DecodeRuneInString(s[i:])
		r[n] = c
		n++
		i += size
	}
	return r, n
}

// cut keeps the first k runes of r.
func cut(r [4]rune, k int) [4]rune {
	for i := k; i < 4; i++ {
		r[i] = -1
	}
	return r
}

// isPrefix reports whether field f may start with the query: its first
// keyLen runes (k is keyLen-2) and its first run's length.
func (s *signature) isPrefix(f, k int, sq *sigQuery) bool {
	if s.prefix[f][k] != sq.prefix {
		return false
	}
	if sq.whole {
		return int(s.run0[f]) >= sq.run
	}
	return int(s.run0[f]) == sq.run
}

// sigQuery is what signature.reaches needs of a query of two runes or more.
type sigQuery struct {
	second uint64 // charMask of the second rune
	keyLen int    // runes in the keys: min(runes, 4)
	prefix uint16 // prefixHash of the first keyLen runes
	// run is the length of the query's first alphanumeric run (at most
	// 255), whole when it is all of the query: then a field's run there
	// is at least as long, else exactly as long.
	run   int
	whole bool
	// word is the word-start key of the first keyLen runes: for 4, the
	// keyWord4 of the lenClass its run needs.
	word      uint32
	word2     uint32 // word-start key of the first two runes
	pairs     pairs256
	descPairs pairs512
	// steps are the query's adjacent byte pairs (the first 32), each with
	// the charMask of the rune it enters when that rune begins there: as
	// word-start pieces, each pair is in the field or its rune starts a
	// word.
	steps  [32]step
	nsteps int
}

type step struct {
	pair  uint8  // the pair's bit in a pairs256
	start uint64 // charMask of the rune the pair enters, 0 inside a rune
	// next is the charMask of the rune after that one (0: none), word2
	// the word-start key of the two.
	next  uint64
	word2 uint32
}

// initials reports whether a fuzzy field with these pairs, word-start
// runes, word-start keys and charMask may hold q as word-start pieces
// (tierInitials): the first rune starts a word and every next rune
// continues a piece (its pair is in the field) or starts a word; a rune
// that starts a piece is followed by one that starts a word too (a piece
// of one rune) or by one that continues it there (their word-start key).
func (q *query) initials(pairs *pairs256, starts uint64, words []uint64, mask uint64) bool {
	if starts&q.first == 0 || q.mask&^mask != 0 {
		return false
	}
	if starts&q.sig.second == 0 && !hasBit(words, q.sig.word2) {
		return false
	}
	for _, st := range q.sig.steps[:q.sig.nsteps] {
		if pairs.has(st.pair) {
			continue
		}
		if starts&st.start == 0 || st.next != 0 && starts&st.next == 0 && !hasBit(words, st.word2) {
			return false
		}
	}
	return true
}

func newSigQuery(str string) sigQuery {
	r, n := runesAt(str, 0)
	sq := sigQuery{second: charMask(r[1]), keyLen: n, prefix: prefixHash(r),
		word: keyHash(keyWord, r), word2: keyHash(keyWord, cut(r, 2)), run: runLen(str, 0)}
	sq.whole = sq.run == utf8.RuneCountInString(str) || sq.run == 255
	if n == 4 {
		sq.word = keyHash(keyWord4+lenClass(sq.run), r)
	}
	sq.pairs.add(str)
	sq.descPairs.add(str)
	for i := 1; i < len(str) && sq.nsteps < len(sq.steps); i++ {
		st := step{pair: pair256(str[i-1], str[i])}
		if utf8.RuneStart(str[i]) {
			r, n := runesAt(str, i)
			st.start = charMask(r[0])
			if n >= 2 {
				st.next, st.word2 = charMask(r[1]), keyHash(keyWord, cut(r, 2))
			}
		}
		sq.steps[sq.nsteps] = st
		sq.nsteps++
	}
	return sq
}

// reaches reports whether an entry with signature s may reach rank need
// (at least 1) for q. With need 1 it reports whether any field of the
// entry may match q; when it may not, no field may match any query that
// extends q either (what the narrowing of Query rests on). The tests run
// from the best rank down and stop at need, so that a query whose result
// already needs a high rank reads a line or two of the signature.
func (s *signature) reaches(q *query, need int) bool {
	if len(q.runes) == 1 {
		switch {
		case s.first[0]&q.first != 0: // the prefix of a name or title
			return true
		case need <= rank(tierPrefix, fURI) && s.first[1]&q.first != 0:
			return true
		case need <= rank(tierWordStart, fName) && s.starts[0]&q.first != 0:
			return true
		case need <= rank(tierWordStart, fURI) && (s.starts[1]|s.starts[2])&q.first != 0:
			return true
		}
		return need <= rank(tierInside, fName) // one rune occurs inside a field of the entry's mask
	}
	sq := &q.sig
	k := sq.keyLen - 2
	if s.isPrefix(fName, k, sq) || s.isPrefix(fTitle, k, sq) {
		return true
	}
	if need > rank(tierPrefix, fURI) {
		return false
	}
	if s.isPrefix(fURI, k, sq) || s.isPrefix(fDesc, k, sq) {
		return true
	}
	// In one piece (at a word start, or inside): every adjacent pair.
	if need > rank(tierWordStart, fName) {
		return false
	}
	inNT := s.ntPairs.holds(&sq.pairs)
	if inNT && hasBit(s.ntWords[:], sq.word) {
		return true
	}
	if need > rank(tierWordStart, fURI) {
		return false
	}
	inUD := s.uriPairs.holds(&sq.pairs) || s.descPairs.holds(&sq.descPairs)
	if inUD && hasBit(s.udWords[:], sq.word) {
		return true
	}
	// Initials: the first rune starts a word, the second follows it or
	// starts a word (not necessarily the next), and so on.
	if need > rank(tierInitials, fName) {
		return false
	}
	if q.initials(&s.ntPairs, s.starts[0], s.ntWords[:], s.ntMask) {
		return true
	}
	if need > rank(tierInitials, fURI) {
		return false
	}
	if q.initials(&s.uriPairs, s.starts[1], s.udWords[:], s.uriMask) {
		return true
	}
	switch {
	case inNT:
		return need <= rank(tierInside, fName)
	case inUD:
		return need <= rank(tierInside, fURI)
	}
	// Scattered: the first rune starts a word of a fuzzy field that has
	// all of q's runes.
	switch {
	case s.starts[0]&q.first != 0 && q.mask&^s.ntMask == 0:
		return need <= rank(tierScattered, fName)
	case s.starts[1]&q.first != 0 && q.mask&^s.uriMask == 0:
		return need <= rank(tierScattered, fURI)
	}
	return false
}

// strongMay reports whether some field of an entry with signature s may
// match q better than scattered: in one piece (every adjacent pair of q in
// the field's pairs) or as word-start pieces of a fuzzy field
// (query.initials). Only q's own runes and pairs are tested, so it holds
// for q wherever it holds for a query extending q: a query that extends
// another matches strongly only entries strongMay allowed for that one
// (the strong narrowing of Query rests on it). q has two runes or more.
func (s *signature) strongMay(q *query) bool {
	sq := &q.sig
	if s.ntPairs.holds(&sq.pairs) || s.uriPairs.holds(&sq.pairs) || s.descPairs.holds(&sq.descPairs) {
		return true
	}
	return q.initials(&s.ntPairs, s.starts[0], s.ntWords[:], s.ntMask) || q.initials(&s.uriPairs, s.starts[1], s.udWords[:], s.uriMask)
}
