package dedupe

import (
	"errors"
	"strings"
	"testing"
)

func TestMeasurePart(t *testing.T) {
	tests := []struct {
		name       string
		p          Part
		size, toks int64
		err        string
	}{
		{"ascii text", textPart("u", "abcde"), 5, 2, ""},
		{"empty text", textPart("u", ""), 0, 0, ""},
		{"utf-8 counts bytes", textPart("u", "héllo"), 6, 2, ""},
		{"blob decoded size", blobPart("u", []byte{1, 2, 3, 4, 5, 6, 7, 8}), 8, 2, ""},
		{"unpadded blob", Part{URI: "u", Blob: strp("AQID")}, 3, 1, ""},
		{"raw blob", Part{URI: "u", Blob: strp("AQIDBA")}, 4, 1, ""},
		{"neither", Part{URI: "u"}, 0, 0, "neither text nor blob"},
		{"both", Part{URI: "u", Text: strp("a"), Blob: strp("YQ==")}, 0, 0, "both text and blob"},
		{"bad base64", Part{URI: "u", Blob: strp("!!!!")}, 0, 0, "blob: illegal base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := measurePart(&tt.p)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.size != tt.size || m.tokens != tt.toks {
				t.Errorf("size, tokens = %d, %d; want %d, %d", m.size, m.tokens, tt.size, tt.toks)
			}
		})
	}
}

func TestHashEquality(t *testing.T) {
	sum := func(p Part) digest {
		m, err := measurePart(&p)
		if err != nil {
			t.Fatal(err)
		}
		return m.sum
	}
	a := sum(textPart("u", "hello"))
	if b := sum(Part{URI: "other", MIMEType: "text/markdown", Text: strp("hello")}); a != b {
		t.Error("URI and MIME type must not change the hash")
	}
	if b := sum(textPart("u", "hello!")); a == b {
		t.Error("different text, same hash")
	}
	if b := sum(blobPart("u", []byte("hello"))); a == b {
		t.Error("a text and a blob with the same bytes must differ: the model sees them differently")
	}
	padded, raw := sum(Part{Blob: strp("aGk=")}), sum(Part{Blob: strp("aGk")})
	wrapped := sum(Part{Blob: strp("aG\r\nk=")})
	if padded != raw || padded != wrapped {
		t.Error("encodings of the same bytes must hash equal")
	}
}

func TestAttachAndStates(t *testing.T) {
	l := New(Options{Now: fixedClock()})
	e := mustAttach(t, l, "ws://a", "mem://doc", textPart("mem://doc", "0123456789"))
	if len(e.Parts) != 1 || e.Parts[0].State != Fresh || e.Parts[0].Size != 10 || e.Parts[0].Tokens != 3 ||
		len(e.Parts[0].Hash) != 16 || e.ReadAt.IsZero() || e.Server != "ws://a" {
		t.Fatalf("entry = %+v", e)
	}

	// Same URI from another server is another document.
	if _, ok := l.Lookup("ws://b", "mem://doc"); ok {
		t.Fatal("URI leaked across servers")
	}
	mustAttach(t, l, "ws://b", "mem://doc", textPart("mem://doc", "other"))
	if n := len(l.Entries()); n != 2 {
		t.Fatalf("entries = %d, want 2", n)
	}

	// Attaching again refreshes, never adds a copy or an attachment.
	mustAttach(t, l, "ws://a", "mem://doc", textPart("mem://doc", "changed"))
	if n := len(l.Entries()); n != 2 {
		t.Fatalf("entries after re-attach = %d, want 2", n)
	}
	if f := l.Figures(); f.Attachments != 2 {
		t.Errorf("attachments = %d, want 2", f.Attachments)
	}

	steps := []struct {
		name string
		do   func() error
		want State
	}{
		{"stale", func() error { return l.MarkStale("ws://a", "mem://doc", "updated") }, Stale},
		{"stale again keeps stale", func() error { return l.MarkStale("ws://a", "mem://doc", "refresh failed") }, Stale},
		{"gone", func() error { return l.MarkGone("ws://a", "mem://doc") }, Gone},
		{"stale does not revive gone", func() error { return l.MarkStale("ws://a", "mem://doc", "x") }, Gone},
		{"refresh", func() error {
			_, err := l.Refresh("ws://a", "mem://doc", []Part{textPart("mem://doc", "v3")})
			return err
		}, Fresh},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := partState(t, l, "ws://a", "mem://doc"); got != s.want {
			t.Fatalf("%s: state = %s, want %s", s.name, got, s.want)
		}
	}
	if got := partState(t, l, "ws://b", "mem://doc"); got != Fresh {
		t.Errorf("other server's document changed: %s", got)
	}
	if e, _ := l.Lookup("ws://a", "mem://doc"); e.Parts[0].Reason != "" {
		t.Errorf("reason after refresh = %q", e.Parts[0].Reason)
	}

	for name, err := range map[string]error{
		"MarkStale": l.MarkStale("ws://a", "mem://nope", "r"),
		"MarkGone":  l.MarkGone("ws://a", "mem://nope"),
		"Refresh":   func() error { _, err := l.Refresh("ws://a", "mem://nope", nil); return err }(),
	} {
		if !errors.Is(err, ErrNotAttached) || !strings.Contains(err.Error(), "mem://nope") {
			t.Errorf("%s on unknown URI: err = %v, want ErrNotAttached naming the URI", name, err)
		}
	}

	if !l.Detach("ws://a", "mem://doc") || l.Detach("ws://a", "mem://doc") {
		t.Error("Detach should report true once")
	}
	if _, ok := l.Lookup("ws://a", "mem://doc"); ok {
		t.Error("detached document still found")
	}
}

func TestAttachStaleReason(t *testing.T) {
	l := New(Options{})
	mustAttach(t, l, "s", "mem://a", textPart("mem://a", "x"))
	if err := l.MarkStale("s", "mem://a", "refresh failed: timeout"); err != nil {
		t.Fatal(err)
	}
	e, _ := l.Lookup("s", "mem://a")
	if e.Parts[0].Reason != "refresh failed: timeout" {
		t.Errorf("reason = %q", e.Parts[0].Reason)
	}
}

func TestAttachMultiPart(t *testing.T) {
	l := New(Options{})
	e, err := l.Attach("s", "mem://dir/", []Part{
		textPart("mem://dir/a", "A"),
		{URI: "mem://dir/bad"}, // no payload
		textPart("", "root"),   // takes the document URI
		blobPart("mem://dir/b", []byte{1, 2}),
		textPart("mem://dir/a", "again"), // repeated URI
		{URI: "mem://dir/c", Blob: strp("%%%")},
	})
	if err == nil {
		t.Fatal("want an error for the bad parts")
	}
	for _, want := range []string{`part 1 (uri "mem://dir/bad")`, "neither text nor blob", `part 4 (uri "mem://dir/a")`, "repeats", `part 5 (uri "mem://dir/c")`, "base64"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	var uris []string
	for _, p := range e.Parts {
		uris = append(uris, p.URI)
	}
	if got := strings.Join(uris, " "); got != "mem://dir/a mem://dir/ mem://dir/b" {
		t.Errorf("recorded parts = %s", got)
	}
	// A part URI finds its document; marking a part affects only it.
	if got, ok := l.Lookup("s", "mem://dir/b"); !ok || got.URI != "mem://dir/" {
		t.Fatalf("Lookup by part URI = %+v, %v", got, ok)
	}
	if err := l.MarkGone("s", "mem://dir/b"); err != nil {
		t.Fatal(err)
	}
	if partState(t, l, "s", "mem://dir/b") != Gone || partState(t, l, "s", "mem://dir/a") != Fresh {
		t.Error("marking one part touched another")
	}
	// A refresh without a part drops it from the index.
	if _, err := l.Refresh("s", "mem://dir/", []Part{textPart("mem://dir/a", "A2")}); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Lookup("s", "mem://dir/b"); ok {
		t.Error("part removed by refresh is still indexed")
	}
}

func TestSharedPartURI(t *testing.T) {
	// Two documents whose reads both return mem://x: the most recent read
	// answers for the part, and detaching it hands the part back.
	l := New(Options{})
	mustAttach(t, l, "s", "mem://dir/", textPart("mem://x", "old"), textPart("mem://y", "y"))
	mustAttach(t, l, "s", "mem://x", textPart("mem://x", "new"))
	if e, _ := l.Lookup("s", "mem://x"); e.URI != "mem://x" {
		t.Fatalf("Lookup = %s, want the document mem://x", e.URI)
	}
	out, rep, err := l.Filter("s", result(embed(t, textPart("mem://x", "new"))))
	if err != nil || len(rep.Dropped) != 1 {
		t.Fatalf("copy of the newest read not dropped: %v %+v %s", err, rep, out)
	}
	l.Detach("s", "mem://x")
	e, ok := l.Lookup("s", "mem://x")
	if !ok || e.URI != "mem://dir/" {
		t.Fatalf("after detach Lookup = %+v, %v; want the directory", e, ok)
	}
	_, rep, _ = l.Filter("s", result(embed(t, textPart("mem://x", "old"))))
	if len(rep.Dropped) != 1 {
		t.Errorf("directory's copy not used after detach: %+v", rep)
	}
}

func TestEntriesSorted(t *testing.T) {
	l := New(Options{})
	for _, k := range [][2]string{{"b", "mem://1"}, {"a", "mem://2"}, {"a", "mem://1"}} {
		mustAttach(t, l, k[0], k[1], textPart(k[1], "x"))
	}
	var got []string
	for _, e := range l.Entries() {
		got = append(got, e.Server+" "+e.URI)
	}
	if s := strings.Join(got, ","); s != "a mem://1,a mem://2,b mem://1" {
		t.Errorf("order = %s", s)
	}
}

// TestHashSpread: distinct payloads of every length up to 100 bytes, and
// single-bit flips of a long one, never collide.
func TestHashSpread(t *testing.T) {
	seen := map[digest]string{}
	add := func(s string) {
		h := sum('b', s, 0).sum
		if prev, ok := seen[h]; ok && prev != s {
			t.Fatalf("collision between payloads of %d and %d bytes", len(prev), len(s))
		}
		seen[h] = s
	}
	for n := 0; n <= 100; n++ {
		add(strings.Repeat("A", n))
		add(strings.Repeat("A", n) + "B")
	}
	long := []byte(strings.Repeat("QUJDREVGR0g", 1000))
	add(string(long))
	for i := range long {
		for bit := 0; bit < 8; bit += 3 {
			c := append([]byte(nil), long...)
			c[i] ^= 1 << bit
			add(string(c))
		}
	}
	if sum('t', "x", 1).sum == sum('b', "x", 1).sum {
		t.Fatal("domains collide")
	}
}
