package attach

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The index's per-descriptor folding as it was written first, field by
// field and pass by pass: the oracle for the fused indexFields, which must
// produce exactly the same fields and signature (the picker's pruning tests
// and its ranking rest on them).

func refNewField(s string) field {
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
	} else {
		var b strings.Builder
		for _, r := range s {
			fr := unicode.ToLower(r)
			b.WriteRune(fr)
			f.mask |= charMask(fr)
		}
		f.fold = b.String()
	}
	for i := 1; i < len(f.fold); i++ {
		h := pairBit(f.fold[i-1], f.fold[i])
		f.pairs[h>>6] |= 1 << (h & 63)
	}
	for i, r := range f.fold {
		if f.boundary(i) {
			f.starts |= charMask(r)
		}
	}
	return f
}

func refSetBit(b []uint64, h uint32) { k := h % uint32(64*len(b)); b[k>>6] |= 1 << (k & 63) }

func refSignatureOf(fs *[nFields]field) signature {
	var s signature
	for f := range fs {
		fl := &fs[f]
		nt := f == fName || f == fTitle
		words, class := s.udWords[:], 1
		if nt {
			words, class = s.ntWords[:], 0
		}
		switch f {
		case fName, fTitle:
			s.starts[0] |= fl.starts
			s.ntMask |= fl.mask
			s.ntPairs.add(fl.fold)
		case fURI:
			s.starts[1] |= fl.starts
			s.uriMask = fl.mask
			s.uriPairs.add(fl.fold)
		default:
			s.starts[2] |= fl.starts
			s.descPairs.add(fl.fold)
		}
		for i, r0 := range fl.fold {
			if !fl.boundary(i) {
				continue
			}
			r, n := runesAt(fl.fold, i)
			run := runLen(fl.fold, i)
			if i == 0 {
				s.first[class] |= charMask(r0)
				s.run0[f] = uint8(run)
				for k := 2; k <= n; k++ {
					s.prefix[f][k-2] = prefixHash(cut(r, k))
				}
			}
			for k := 2; k <= min(n, 3); k++ {
				refSetBit(words, keyHash(keyWord, cut(r, k)))
			}
			if n == 4 {
				for c := range lenClass(run) + 1 {
					refSetBit(words, keyHash(keyWord4+c, r))
				}
			}
		}
	}
	return s
}

// checkIndexFields fails when indexFields and the reference disagree on
// one descriptor's strings.
func checkIndexFields(t *testing.T, strs [nFields]string) {
	t.Helper()
	var fs [nFields]field
	var sig signature
	mask := indexFields(&fs, &strs, &sig)
	var want [nFields]field
	var wantMask uint64
	for f := range want {
		want[f] = refNewField(strs[f])
		wantMask |= want[f].mask
		if got := newField(strs[f]); got != want[f] {
			t.Fatalf("newField(%q):\n got %+v\nwant %+v", strs[f], got, want[f])
		}
	}
	if fs != want {
		t.Fatalf("fields of %q:\n got %+v\nwant %+v", strs, fs, want)
	}
	if mask != wantMask {
		t.Fatalf("mask of %q: got %x, want %x", strs, mask, wantMask)
	}
	if wantSig := refSignatureOf(&want); !reflect.DeepEqual(sig, wantSig) {
		t.Fatalf("signature of %q:\n got %+v\nwant %+v", strs, sig, wantSig)
	}
}

// TestIndexFieldsMatchReference: the fused folding gives the reference's
// fields, mask and signature for the bench's descriptors, the sample
// documents' shapes, and the edge cases of folding (camelCase humps,
// non-ASCII letters and digits, invalid UTF-8, case mappings that change
// a rune's length, long runs).
func TestIndexFieldsMatchReference(t *testing.T) {
	for _, r := range benchPeerResources(2000) {
		checkIndexFields(t, [nFields]string{r.Name, r.Title, r.URI, r.Description})
	}
	x := pickerIndex(500)
	for _, e := range x.entries {
		r := e.res
		checkIndexFields(t, [nFields]string{r.Name, r.Title, r.URI, r.Description})
	}
	long := strings.Repeat("a", 300)
	for _, c := range [][nFields]string{
		{},
		{"a", "B", "1", "-"},
		{"camelCaseName", "HTTPServer ID", "x://aB/Cd/eF", "fooBar bazQux"},
		{"Über-café.md", "Résumé straße", "docs://x/über", "naïve señal ÉCOLE"},
		{"a\xffb", "\xc3", "\xed\xa0\x80x", "tt\x80"},
		{"Ⱥb ȾC", "İstanbul", "ǅemal", "Σίσυφος ΣΊΣΥΦΟΣ"},
		{"١٢٣-x", "x١y", "日本語のテキスト", "a·b c—d"},
		{long, long + "-" + long, "x://" + long, "z" + long},
		{"ab", "abc", "abcd", "abcde"},
		{"a-b-c-d", "a b c d e", "a/b/c", "a.b.c.d"},
	} {
		checkIndexFields(t, c)
	}
}

// FuzzIndexFieldsMatchReference is TestIndexFieldsMatchReference for any
// strings.
func FuzzIndexFieldsMatchReference(f *testing.F) {
	f.Add("deploy-rollback-12.md", "Deploy Rollback (runbook)", "docs://team/data/runbook/deploy-rollback-12.md", "The data team's runbook on über.")
	f.Add("camelCaseName", "A-b c/d", "x://a/b/c", "")
	f.Add("a\xffb", "\xc3", "", "İ ǅ Ⱥ")
	f.Fuzz(func(t *testing.T, name, title, uri, desc string) {
		checkIndexFields(t, [nFields]string{name, title, uri, desc})
	})
}
