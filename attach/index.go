package attach

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
	Resource   *Resource         `json:"resource,omitempty"`
	Template   *ResourceTemplate `json:"template,omitempty"`
	Score      int               `json:"score"`
	Highlights Highlights        `json:"highlights"`
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

// Field indexes.
const (
	fName = iota
	fTitle
	fURI
	fDesc
	nFields
)

// fieldBonus ranks a match in a name or title above an equal one in the
// URI, and one in the URI above one in the description. It is added, not
// multiplied, so a whole-word match in a description still beats letters
// scattered through a name.
var fieldBonus = [nFields]int{fName: 24, fTitle: 24, fURI: 12, fDesc: 0}

type field struct {
	orig  string
	fold  string // per-rune unicode.ToLower; same rune count as orig
	mask  uint64
	ascii bool
}

type entryKey struct {
	template bool
	id       string // uri or uriTemplate
}

// An entry is the cold part of a descriptor: what a match returns and
// what breaks ties. The hot part a query scans (fields, masks) lives in
// parallel slices so the scan touches little memory.
type entry struct {
	key      entryKey
	res      Resource
	tmpl     ResourceTemplate
	audience []string
}

// rankKey is what ordering needs, kept hot.
type rankKey struct {
	priority float64 // annotations.priority; absent counts as 0.5
	sortName string  // folded display name
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
	ranks   []rankKey        // parallel to entries
	byKey   map[entryKey]int
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{byKey: make(map[entryKey]int)}
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
	for i := range rs {
		x.put(entryKey{id: rs[i].URI}, &rs[i], nil)
	}
}

// AddTemplates adds templates, replacing any with the same URITemplate.
func (x *Index) AddTemplates(ts ...ResourceTemplate) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range ts {
		x.put(entryKey{template: true, id: ts[i].URITemplate}, nil, &ts[i])
	}
}

// RemoveResources removes the resources with these URIs; unknown URIs are
// ignored.
func (x *Index) RemoveResources(uris ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, u := range uris {
		x.remove(entryKey{id: u})
	}
}

// RemoveTemplates removes the templates with these URI templates.
func (x *Index) RemoveTemplates(uriTemplates ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
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
	keep := make(map[string]bool, len(rs))
	for i := range rs {
		keep[rs[i].URI] = true
		x.put(entryKey{id: rs[i].URI}, &rs[i], nil)
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
	keep := make(map[string]bool, len(ts))
	for i := range ts {
		keep[ts[i].URITemplate] = true
		x.put(entryKey{template: true, id: ts[i].URITemplate}, nil, &ts[i])
	}
	for i := len(x.entries) - 1; i >= 0; i-- {
		if k := x.entries[i].key; k.template && !keep[k.id] {
			x.remove(k)
		}
	}
}

func (x *Index) put(k entryKey, r *Resource, t *ResourceTemplate) {
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
		x.ranks = append(x.ranks, rankKey{key: k})
		i = len(x.entries) - 1
		x.byKey[k] = i
	}
	e := &x.entries[i]
	if r != nil {
		e.res = *r
	} else {
		e.tmpl = *t
	}
	rk := &x.ranks[i]
	rk.priority, e.audience = 0.5, nil
	if ann != nil {
		if ann.Priority != nil {
			rk.priority = *ann.Priority
		}
		e.audience = ann.Audience
	}
	fs := &x.fields[i]
	changed := !exists
	for f := range fs {
		if fs[f].orig != strs[f] {
			changed = true
		}
	}
	if !changed {
		return
	}
	var mask uint64
	for f := range fs {
		fs[f] = newField(strs[f])
		mask |= fs[f].mask
	}
	x.masks[i] = mask
	display := fs[fTitle].fold
	if display == "" {
		display = fs[fName].fold
	}
	rk.sortName = display
}

func (x *Index) remove(k entryKey) {
	i, ok := x.byKey[k]
	if !ok {
		return
	}
	last := len(x.entries) - 1
	if i != last {
		x.entries[i] = x.entries[last]
		x.fields[i] = x.fields[last]
		x.masks[i] = x.masks[last]
		x.ranks[i] = x.ranks[last]
		x.byKey[x.entries[i].key] = i
	}
	x.entries[last] = entry{}
	x.fields[last] = [nFields]field{}
	x.entries = x.entries[:last]
	x.fields = x.fields[:last]
	x.masks = x.masks[:last]
	x.ranks[last] = rankKey{}
	x.ranks = x.ranks[:last]
	delete(x.byKey, k)
}

func foldRune(r rune) rune { return unicode.ToLower(r) }

func newField(s string) field {
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
			f.mask |= charMask(rune(f.fold[i]))
		}
		return f
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // invalid bytes decode as U+FFFD, one rune each
		fr := foldRune(r)
		b.WriteRune(fr)
		f.mask |= charMask(fr)
	}
	f.fold = b.String()
	return f
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
}

func newQuery(q string) query {
	var qq query
	var b strings.Builder
	for _, r := range q {
		if unicode.IsSpace(r) {
			continue // spaces separate words in a picker; match them anywhere
		}
		fr := foldRune(r)
		b.WriteRune(fr)
		qq.mask |= charMask(fr)
		qq.runes = append(qq.runes, string(fr))
	}
	qq.str = b.String()
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

// Scoring constants: every matched rune earns scoreChar; adjacency, word
// starts and the field's start earn bonuses; gaps cost.
const (
	scoreChar        = 16
	bonusConsecutive = 12
	bonusBoundary    = 20
	bonusFieldStart  = 24
	bonusExact       = 40
	bonusSubstring   = 32
	penaltyGapStart  = 6
	penaltyGapMax    = 10
)

// score rates the matched rune byte offsets pos (in fold) of one field.
func (f *field) score(q *query, pos []int) int {
	s := 0
	for k, p := range pos {
		s += scoreChar
		if k > 0 {
			prevEnd := pos[k-1] + len(q.runes[k-1])
			if p == prevEnd {
				s += bonusConsecutive
			} else {
				s -= penaltyGapStart + min(p-prevEnd, penaltyGapMax)
			}
		}
		if f.boundary(p) {
			s += bonusBoundary
			if p == 0 {
				s += bonusFieldStart
			}
		}
	}
	if len(pos) > 0 && pos[0] == 0 && len(f.fold) == len(q.str) {
		s += bonusExact
	}
	return s
}

// match finds the best-scoring way query q occurs in the field: as a
// substring (preferring an occurrence at a word start), else as a tight
// subsequence. It fills buf with the matched rune byte offsets and returns
// the score, or ok=false. buf must have room for len(q.runes).
func (f *field) match(q *query, buf []int) (score int, pos []int, ok bool) {
	n := len(q.runes)
	if n == 0 || len(f.fold) < len(q.str) || q.mask&^f.mask != 0 {
		return 0, nil, false
	}
	pos = buf[:n]
	// Is it a subsequence at all? Find the end of the first complete match.
	end := 0
	for _, r := range q.runes {
		var i int
		if len(r) == 1 {
			i = strings.IndexByte(f.fold[end:], r[0])
		} else {
			i = strings.Index(f.fold[end:], r)
		}
		if i < 0 {
			return 0, nil, false
		}
		end += i + len(r)
	}
	// Substring occurrences (up to a few), best one wins.
	best, bestAt := -1, -1
	from := 0
	for tries := 0; tries < 4 && from <= len(f.fold)-len(q.str); tries++ {
		i := strings.Index(f.fold[from:], q.str)
		if i < 0 {
			break
		}
		i += from
		fillContiguous(q, pos, i)
		if s := f.score(q, pos) + bonusSubstring; s > best {
			best, bestAt = s, i
		}
		if f.boundary(i) {
			break
		}
		from = i + len(q.runes[0])
	}
	if bestAt >= 0 {
		fillContiguous(q, pos, bestAt)
		return best, pos, true
	}
	// A scattered subsequence: walking back from the end of the first
	// complete match, the latest occurrence of each rune gives the tightest
	// window (fzf's v1 algorithm).
	at := end
	for k := n - 1; k >= 0; k-- {
		if r := q.runes[k]; len(r) == 1 {
			at = strings.LastIndexByte(f.fold[:at], r[0])
		} else {
			at = strings.LastIndex(f.fold[:at], r)
		}
		pos[k] = at
	}
	return f.score(q, pos), pos, true
}

func fillContiguous(q *query, pos []int, at int) {
	for k, r := range q.runes {
		pos[k] = at
		at += len(r)
	}
}

type candidate struct {
	idx   int
	score int
}

// better orders candidates: score, then annotations.priority (absent
// counts as 0.5, the middle of 0..1), then display name, then URI.
func (x *Index) better(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	ea, eb := &x.ranks[a.idx], &x.ranks[b.idx]
	if ea.priority != eb.priority {
		return ea.priority > eb.priority
	}
	if len(ea.sortName) != len(eb.sortName) {
		return len(ea.sortName) < len(eb.sortName)
	}
	if ea.sortName != eb.sortName {
		return ea.sortName < eb.sortName
	}
	if ea.key.id != eb.key.id {
		return ea.key.id < eb.key.id
	}
	return !ea.key.template && eb.key.template
}

// Query returns up to opts.Limit descriptors matching q, best first. A
// descriptor matches when q (case-folded, spaces ignored) is a subsequence
// of its name, title, URI (uriTemplate) or description; matches at the
// start of a field, at word starts and in a row rank higher, name and title
// above URI above description, and annotations.priority breaks ties. An
// empty q lists every descriptor by priority and name. Highlights are
// half-open UTF-16 ranges per field.
func (x *Index) Query(q string, opts QueryOptions) []Match {
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultQueryLimit
	}
	qq := newQuery(q)
	buf := make([]int, len(qq.runes))
	x.mu.RLock()
	defer x.mu.RUnlock()

	heap := make([]candidate, 0, min(limit, len(x.entries))+1)
	empty := len(qq.runes) == 0
	for i, m := range x.masks {
		if qq.mask&^m != 0 {
			continue
		}
		if opts.Audience != "" {
			if aud := x.entries[i].audience; len(aud) > 0 && !containsString(aud, opts.Audience) {
				continue
			}
		}
		best, ok := 0, empty
		if !empty {
			fs := &x.fields[i]
			for f := range fs {
				if s, _, m := fs[f].match(&qq, buf); m {
					if ws := s + fieldBonus[f]; !ok || ws > best {
						best = ws
					}
					ok = true
				}
			}
		}
		if !ok {
			continue
		}
		c := candidate{idx: i, score: best}
		if len(heap) < limit {
			heap = append(heap, c)
			x.siftUp(heap, len(heap)-1)
		} else if x.better(c, heap[0]) {
			heap[0] = c
			x.siftDown(heap, 0)
		}
	}
	// Pop worst-first into place.
	out := make([]Match, len(heap))
	for k := len(heap) - 1; k >= 0; k-- {
		c := heap[0]
		heap[0] = heap[len(heap)-1]
		heap = heap[:len(heap)-1]
		x.siftDown(heap, 0)
		out[k] = x.matchOf(c, &qq, buf)
	}
	return out
}

// The heap is a min-heap under better: heap[0] is the worst kept match.
func (x *Index) siftUp(h []candidate, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !x.better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (x *Index) siftDown(h []candidate, i int) {
	for {
		l, w := 2*i+1, i
		if l < len(h) && x.better(h[w], h[l]) {
			w = l
		}
		if r := l + 1; r < len(h) && x.better(h[w], h[r]) {
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
		t := e.tmpl
		m.Template = &t
	} else {
		r := e.res
		m.Resource = &r
	}
	dst := [nFields]*[]Range{&m.Highlights.Name, &m.Highlights.Title, &m.Highlights.URI, &m.Highlights.Description}
	fs := &x.fields[c.idx]
	// Highlight the field that ranked the match, and any other field only
	// where the query occurs in one piece: letters scattered through a
	// field that did not decide the rank are noise to a reader.
	best, bestScore := -1, 0
	for f := range fs {
		if s, _, ok := fs[f].match(q, buf); ok && (best < 0 || s+fieldBonus[f] > bestScore) {
			best, bestScore = f, s+fieldBonus[f]
		}
	}
	for f := range fs {
		if _, pos, ok := fs[f].match(q, buf); ok {
			if r := fs[f].ranges(q, pos); f == best || len(r) == 1 {
				*dst[f] = r
			}
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
