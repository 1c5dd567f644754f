package util

import (
	"regexp"
	"strings"
	"testing"
)

// goldmark v1.8.7's expression, which emailDomainEnd replaces.
var emailDomainRegexp = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*`) //nolint:lll

func checkEmailDomain(t testing.TB, b []byte) {
	t.Helper()
	want := -1
	if m := emailDomainRegexp.FindSubmatchIndex(b); m != nil {
		want = m[1]
	}
	if got := emailDomainEnd(b); got != want {
		t.Fatalf("emailDomainEnd(%q) = %d, regexp %d", b, got, want)
	}
}

var emailCases = []string{
	"", "a", "-", "a-", "a-b", "a--b", "a.b", "a.", "a..b", "a.-b", "a.b-", "a.b-.c", "-a", "a_b", "a.b.c.d", "é", "a.é",
	"a\xff", "example.com", "ex-ample.co.uk>", "a.b c", "a.b@c",
}

func TestEmailDomainEqualsRegexp(t *testing.T) {
	cases := append([]string(nil), emailCases...)
	for _, n := range []int{60, 61, 62, 63, 64, 65, 130} {
		l := strings.Repeat("a", n)
		d := "a" + strings.Repeat("-", n-2) + "b"
		cases = append(cases, l, l+".com", "x."+l, d, d+".x", "a"+strings.Repeat("-", n), strings.Repeat(l+".", 5)+"c")
	}
	for _, c := range cases {
		checkEmailDomain(t, []byte(c))
	}
	// FindEmailIndex's bounds around it: a 255-byte domain is kept, longer ones refused.
	for _, n := range []int{250, 251, 252, 253, 254, 255, 256, 300} {
		d := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + "." + strings.Repeat("d", 60) + "."
		d = (d + strings.Repeat("e", 60))[:n]
		b := []byte("user@" + d + " x")
		want := -1
		if m := emailDomainRegexp.FindSubmatchIndex(b[5:min(len(b), 5+256)]); m != nil && m[1] <= 255 {
			want = 5 + m[1]
		}
		if got := FindEmailIndex(b); got != want {
			t.Fatalf("FindEmailIndex(%q) = %d, want %d", b, got, want)
		}
	}
}

func FuzzEmailDomain(f *testing.F) {
	for _, c := range emailCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkEmailDomain(t, b)
		checkEmailDomain(t, append([]byte("a-"), b...))
		checkEmailDomain(t, append([]byte(strings.Repeat("a", 61)), b...))
	})
}
