package attach

import (
	"slices"
	"testing"
)

// essenceCases are media types as servers declare them and as the sniffer
// names them, with what essence returns: what it always did by
// mime.ParseMediaType, lenient ones included (a bare "image" or a lone
// slash is kept after a failed parse, and then matches no known type).
var essenceCases = []struct{ in, want string }{
	{"image/png", "image/png"},
	{"image/jpg", "image/jpeg"},
	{"image/x-png", "image/png"},
	{"IMAGE/PNG", "image/png"},
	{" image/png ", "image/png"},
	{"text/markdown; charset=utf-8", "text/markdown"},
	{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{"image/svg+xml", "image/svg+xml"},
	{"text/*", "text/*"},
	{"image", "image"},
	{"image/", "image/"},
	{"/png", "/png"},
	{"image/png/x", ""},
	{"", ""},
	{"image/p\"ng", ""},
	{"image/p ng", ""},
	{"image/p(ng", "image/p(ng"},
	{"image/p\x7fng", "image/p\x7fng"},
	{"image/pngé", "image/pngé"},
}

func TestEssence(t *testing.T) {
	for _, c := range essenceCases {
		if got := essence(c.in); got != c.want {
			t.Errorf("essence(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := parsedEssence(c.in); got != c.want {
			t.Errorf("parsedEssence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzEssence: the fast path (plainEssence) answers exactly what
// mime.ParseMediaType's path answers, for any input.
func FuzzEssence(f *testing.F) {
	for _, c := range essenceCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := essence(s), parsedEssence(s); got != want {
			t.Fatalf("essence(%q) = %q, parsedEssence = %q", s, got, want)
		}
	})
}

// TestAcceptForReuse: the accept set is rebuilt when the list's entries
// change, even in place, and reused while they do not.
func TestAcceptForReuse(t *testing.T) {
	list := []string{"image/png", "IMAGE/JPEG; q=1", "image/png"}
	a := acceptFor(list)
	if !a.set["image/png"] || !a.set["image/jpeg"] || len(a.set) != 2 || a.names != "image/png, image/jpeg" {
		t.Fatalf("set %v, names %q", a.set, a.names)
	}
	if b := acceptFor(slices.Clone(list)); b != a {
		t.Error("the same entries built a new set")
	}
	list[0], list[2] = "image/gif", "image/gif"
	if b := acceptFor(list); b == a || !b.set["image/gif"] || b.set["image/png"] || b.names != "image/gif, image/jpeg" {
		t.Errorf("after changing an entry in place: set %v, names %q", b.set, b.names)
	}
	if b := acceptFor([]string{}); len(b.set) != 0 || b.names != "" {
		t.Errorf("empty list: set %v, names %q", b.set, b.names)
	}
	// Options.AcceptImages end to end: an empty list forwards no image.
	o := (&Options{AcceptImages: []string{}}).withDefaults()
	if len(o.accept) != 0 {
		t.Errorf("empty AcceptImages accepts %v", o.accept)
	}
	if o := (*Options)(nil).withDefaults(); !o.accept["image/webp"] || o.acceptList != "image/png, image/jpeg, image/gif, image/webp" {
		t.Errorf("defaults accept %v (%q)", o.accept, o.acceptList)
	}
}
