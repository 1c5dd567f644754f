package gfm

import (
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/extension/ast"
)

// The expressions the matchers replace, copied from goldmark v1.8.7's
// extension package.
var (
	wwwURLRegxp      = regexp.MustCompile(`^www\.[-a-zA-Z0-9@:%._\+~#=]{1,256}\.[a-z]+(?:[/#?][-a-zA-Z0-9@:%_\+.~#!?&/=\(\);,'">\^{}\[\]` + "`" + `]*)?`)
	urlRegexp        = regexp.MustCompile(`^(?:http|https|ftp)://[-a-zA-Z0-9@:%._\+~#=]{1,256}\.[a-z]+(?::\d+)?(?:[/#?][-a-zA-Z0-9@:%_+.~#$!?&/=\(\);,'">\^{}\[\]` + "`" + `]*)?`)
	tableDelimLeft   = regexp.MustCompile(`^\s*\:\-+\s*$`)
	tableDelimRight  = regexp.MustCompile(`^\s*\-+\:\s*$`)
	tableDelimCenter = regexp.MustCompile(`^\s*\:\-+\:\s*$`)
	tableDelimNone   = regexp.MustCompile(`^\s*\-+\s*$`)
	taskListRegexp   = regexp.MustCompile(`^\[([\sxX])\]\s*`)
)

// regexpEnd is the end of re's match on b (-1 when none), checking that it
// starts at 0 as the anchored expressions' must.
func regexpEnd(t testing.TB, re *regexp.Regexp, b []byte) int {
	m := re.FindSubmatchIndex(b)
	if m == nil {
		return -1
	}
	if m[0] != 0 {
		t.Fatalf("%s matched %q at %d", re, b, m[0])
	}
	return m[1]
}

// wantAlignment is parseDelimiter's use of the four expressions in
// goldmark's order.
func wantAlignment(col []byte) (ast.Alignment, bool) {
	switch {
	case tableDelimLeft.Match(col):
		return ast.AlignLeft, true
	case tableDelimRight.Match(col):
		return ast.AlignRight, true
	case tableDelimCenter.Match(col):
		return ast.AlignCenter, true
	case tableDelimNone.Match(col):
		return ast.AlignNone, true
	}
	return ast.AlignNone, false
}

// checkMatchers fails t when any matcher differs from its expression on b.
func checkMatchers(t testing.TB, b []byte) {
	t.Helper()
	if got, want := matchURL(b), regexpEnd(t, urlRegexp, b); got != want {
		t.Fatalf("matchURL(%q) = %d, urlRegexp %d", b, got, want)
	}
	if got, want := matchWWW(b), regexpEnd(t, wwwURLRegxp, b); got != want {
		t.Fatalf("matchWWW(%q) = %d, wwwURLRegxp %d", b, got, want)
	}
	ga, gok := delimAlignment(b)
	wa, wok := wantAlignment(b)
	if ga != wa || gok != wok {
		t.Fatalf("delimAlignment(%q) = %v %v, expressions %v %v", b, ga, gok, wa, wok)
	}
	end, v := matchTaskList(b)
	m := taskListRegexp.FindSubmatchIndex(b)
	switch {
	case m == nil && end != -1:
		t.Fatalf("matchTaskList(%q) = %d, taskListRegexp no match", b, end)
	case m != nil && (m[0] != 0 || end != m[1] || m[3]-m[2] != 1 || v != b[m[2]]):
		t.Fatalf("matchTaskList(%q) = %d %q, taskListRegexp %v", b, end, v, m)
	}
}

var matcherCases = []string{
	"", "w", "www.", "www.a", "www.a.", "www.a.b", "www.a.B", "www..b", "www.-.x", "www.a.b.c",
	"www.commonmark.org", "www.commonmark.org/help for", "www.google.com/search?q=Markup+(business)))",
	"www.a.bc:80/x", "www.a.b$c", "www.a.b/$c", "www.a.b/c$d", "www.a.b#x y", "www.a.b?x\"y'z>w<v",
	"www.a.b/`{}[]^~", "www.a.b/\\x", "www.a.b/é", "www.é.com", "www.a.com\xff/x", "www.a.b/x\xffy",
	"www.user@host.com", "www.a..b", "www...b", "www.a.b..c", "www.a.b.", "www.a.-b", "www.a.b-c",
	"WWW.a.b", "www.A.B", "www.a.b\n", "www.a.b/c\nd",
	"http://", "http://a", "http://a.b", "https://a.b", "ftp://a.b", "ftps://a.b", "http:/a.b", "HTTP://a.b",
	"httpx://a.b", "https//a.b", "http://a.b:", "http://a.b:x", "http://a.b:8", "http://a.b:8080/p?q#f",
	"http://a.b:80:90", "http://a.b:80x", "http://a.b$", "http://a.b/$", "http://a.b/p$q", "http://a.b:1/$",
	"http://localhost:8080", "http://127.0.0.1/x", "http://a.b.c.d.e.fg/", "http://-.a", "http://a%2e.b",
	"http://a:b@c.d/", "http://x.y:3/a(b)c", "https://www.a.b/c;d&e=f,g", "http://a.b\t", "http://a.b /x",
	"[ ]", "[x]", "[X]", "[y]", "[ ] task", "[x]  \t task", "[\t]", "[\n]", "[\v]", "[\f]", "[\r]",
	"[x]\v", "[x]\f\r\n", "[ ", "[]", "[x", "x]", "[xx]", " [x]", "[x]a",
	"-", "--", ":-", "-:", ":-:", ":--------:", " :-: ", "\t-\n", "\v-", "-\v", ":", "::", ":-::",
	"- -", "-:-", " ", "", "a", ":-a", "\f:---\r\n", "---|", "|---", " - ", " : -", "-- :",
}

func TestMatchersEqualRegexps(t *testing.T) {
	cases := append([]string(nil), matcherCases...)
	// The {1,256} bound: hosts whose last '.' lies at, before and after
	// the 257th byte after the prefix, and runs longer than it.
	for _, pre := range []string{"www.", "http://", "https://", "ftp://"} {
		for _, n := range []int{1, 2, 254, 255, 256, 257, 258, 300, 600} {
			host := strings.Repeat("a", n)
			cases = append(cases,
				pre+host+".com/x", pre+host+".c", pre+host+"com", pre+host+".",
				pre+host+"."+host, pre+host+".x."+host, pre+"x."+host+".y",
				pre+strings.Repeat("a.", n)+"b", pre+strings.Repeat(".", n)+"b",
				pre+strings.Repeat("a", 255)+"."+host+".c"+":42/p",
			)
		}
	}
	for _, c := range cases {
		checkMatchers(t, []byte(c))
	}
}

func FuzzMatchers(f *testing.F) {
	for _, c := range matcherCases {
		f.Add([]byte(c))
	}
	f.Add([]byte("http://" + strings.Repeat("a", 256) + ".b.c/d"))
	f.Add([]byte("www." + strings.Repeat("a.", 200) + "b"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkMatchers(t, b)
		// The same input after each prefix, so that random tails reach
		// past the fixed parts of the expressions.
		for _, pre := range []string{"www.", "http://", "https://", "ftp://", "[", "[x]", ":", "-"} {
			checkMatchers(t, append([]byte(pre), b...))
		}
	})
}
