package attach

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Suggestion bounds. A rename keeps words, not letters: "on-call-escalation"
// becoming "oncall-escalation-policy" changes the letters a subsequence
// matcher walks, so [Suggest] ranks by word and path-segment overlap and
// uses the picker's matcher only to break ties.
const (
	// MaxSuggestions is how many suggestions [Suggest] returns at most.
	MaxSuggestions = 5
	// MinSuggestionScore is the lowest score a suggestion may have: below
	// it a descriptor shares too little with the old one to be offered
	// (the same folder alone scores 0.25).
	MinSuggestionScore = 0.3
)

// A Suggestion is a listed descriptor close to a document that is gone,
// with its score in (0, 1]: 1 is the same words in the same folder.
type Suggestion struct {
	Resource Resource
	Score    float64
}

// Suggest returns up to [MaxSuggestions] of cands closest to old (a
// document that is gone), best first, none scoring below
// [MinSuggestionScore]. The score is 3/4 word overlap between the two
// descriptors' titles, names and last URI segments (words split at
// punctuation and camelCase humps; two adjacent words also match their
// compound, "on call" ↔ "oncall"; a word of three letters or more that
// starts another counts 0.6, "refund" ↔ "refunds") and 1/4 overlap of the
// URIs' folder segments. A candidate with no word in common is never
// suggested; equal scores are ordered by how the old name matches the
// candidate as a picker query, then by URI. Candidates with old's URI are
// skipped.
func Suggest(old Resource, cands []Resource) []Suggestion {
	ow, of := descriptorWords(old)
	if len(ow.base) == 0 {
		return nil
	}
	q := newQuery(strings.Join(ow.order, ""))
	buf := make([]int, len(q.runes))
	type scored struct {
		s    Suggestion
		tier int
	}
	var out []scored
	for i := range cands {
		c := &cands[i]
		if c.URI == old.URI {
			continue
		}
		cw, cf := descriptorWords(*c)
		w := wordScore(ow, cw)
		if w == 0 {
			continue
		}
		score := math.Round((0.75*w+0.25*dice(of, cf))*1000) / 1000
		if score < MinSuggestionScore {
			continue
		}
		tier := 0
		for _, f := range []string{c.Name, c.Title, c.URI} {
			fl := newField(f)
			if t, _ := fl.match(&q, buf, true, tierScattered); t > tier {
				tier = t
			}
		}
		out = append(out, scored{Suggestion{*c, score}, tier})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.s.Score != b.s.Score {
			return a.s.Score > b.s.Score
		}
		if a.tier != b.tier {
			return a.tier > b.tier
		}
		return a.s.Resource.URI < b.s.Resource.URI
	})
	if len(out) > MaxSuggestions {
		out = out[:MaxSuggestions]
	}
	res := make([]Suggestion, len(out))
	for i := range out {
		res[i] = out[i].s
	}
	return res
}

// wordSet is a descriptor's words: base words, the compounds of adjacent
// words within one field, and the base words in first-seen order.
type wordSet struct {
	base, joined map[string]bool
	order        []string
	pairs        [][2]string // adjacent words whose compound is in joined
}

// descriptorWords returns the words of r's title, name and last URI
// segment, and the URI's folder segments.
func descriptorWords(r Resource) (wordSet, map[string]bool) {
	ws := wordSet{base: map[string]bool{}, joined: map[string]bool{}}
	segs := uriSegments(r.URI)
	folders := map[string]bool{}
	last := ""
	if len(segs) > 0 {
		last = segs[len(segs)-1]
		for _, s := range segs[:len(segs)-1] {
			folders[strings.ToLower(s)] = true
		}
	}
	for _, f := range []string{r.Title, stripExt(r.Name), stripExt(last)} {
		words := splitWords(f)
		for i, w := range words {
			if !ws.base[w] {
				ws.base[w] = true
				ws.order = append(ws.order, w)
			}
			if i > 0 {
				ws.joined[words[i-1]+w] = true
				ws.pairs = append(ws.pairs, [2]string{words[i-1], w})
			}
		}
	}
	return ws, folders
}

// wordScore is a Dice coefficient over words in which a word is covered
// by the other side when it is one of its words or compounds, or when it
// forms, with a neighbour, a compound that is one of the other's words.
func wordScore(a, b wordSet) float64 {
	ca, cb := coverage(a, b), coverage(b, a)
	return (ca + cb) / float64(len(a.base)+len(b.base))
}

func coverage(a, b wordSet) float64 {
	inCompound := map[string]bool{}
	for _, p := range a.pairs {
		if b.base[p[0]+p[1]] {
			inCompound[p[0]], inCompound[p[1]] = true, true
		}
	}
	total := 0.0
	for w := range a.base {
		switch {
		case b.base[w] || b.joined[w] || inCompound[w]:
			total++
		case prefixOfAny(w, b.base):
			total += 0.6
		}
	}
	return total
}

// prefixOfAny reports whether w (three letters or more) starts a word of
// set, or a word of set (three letters or more) starts w.
func prefixOfAny(w string, set map[string]bool) bool {
	if len(w) < 3 {
		return false
	}
	for x := range set {
		if len(x) >= 3 && x != w && (strings.HasPrefix(x, w) || strings.HasPrefix(w, x)) {
			return true
		}
	}
	return false
}

func dice(a, b map[string]bool) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	n := 0
	for s := range a {
		if b[s] {
			n++
		}
	}
	return 2 * float64(n) / float64(len(a)+len(b))
}

// splitWords lowercases s and splits it into runs of letters and digits,
// also at camelCase humps.
func splitWords(s string) []string {
	var out []string
	var cur []rune
	var prev rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// uriSegments returns the path segments of uri after its scheme, with
// the authority as the first one: docs://team/a/b → [team a b].
func uriSegments(uri string) []string {
	if i := strings.Index(uri, "://"); i >= 0 {
		uri = uri[i+3:]
	} else if i := strings.IndexByte(uri, ':'); i >= 0 {
		uri = uri[i+1:]
	}
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		uri = uri[:i]
	}
	var out []string
	for _, s := range strings.Split(uri, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// stripExt drops a file extension of one to five letters or digits.
func stripExt(s string) string {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || len(s)-i-1 > 5 || i == len(s)-1 {
		return s
	}
	for _, r := range s[i+1:] {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return s
		}
	}
	return s[:i]
}
