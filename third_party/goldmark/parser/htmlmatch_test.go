package parser

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/text"
)

// goldmark v1.8.7's expressions, which htmlmatch.go replaces.
var (
	tagnamePattern    = `([A-Za-z][A-Za-z0-9-]*)`
	spaceOrOneNewline = `(?:[ \t]|(?:\r\n|\n){0,1})`
	attributePattern  = `(?:[\r\n \t]+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:[\r\n \t]*=[\r\n \t]*(?:[^\"'=<>` + "`" + `\x00-\x20]+|'[^']*'|"[^"]*"))?)` //nolint:lll
	openTagRegexp     = regexp.MustCompile("^<" + tagnamePattern + attributePattern + `*` + spaceOrOneNewline + `*/?>`)
	closeTagRegexp    = regexp.MustCompile("^</" + tagnamePattern + spaceOrOneNewline + `*>`)

	htmlBlockType1OpenRegexp  = regexp.MustCompile(`(?i)^[ ]{0,3}<(script|pre|style|textarea)(?:\s.*|>.*|/>.*|)(?:\r\n|\n)?$`) //nolint:lll
	htmlBlockType1CloseRegexp = regexp.MustCompile(`(?i)^.*</(?:script|pre|style|textarea)>.*`)
	htmlBlockType2OpenRegexp  = regexp.MustCompile(`^[ ]{0,3}<!\-\-`)
	htmlBlockType3OpenRegexp  = regexp.MustCompile(`^[ ]{0,3}<\?`)
	htmlBlockType4OpenRegexp  = regexp.MustCompile(`^[ ]{0,3}<![A-Z]+.*(?:\r\n|\n)?$`)
	htmlBlockType5OpenRegexp  = regexp.MustCompile(`^[ ]{0,3}<\!\[CDATA\[`)
	htmlBlockType6Regexp      = regexp.MustCompile(`^[ ]{0,3}<(?:/[ ]*)?([a-zA-Z]+[a-zA-Z0-9\-]*)(?:[ ].*|>.*|/>.*|)(?:\r\n|\n)?$`)                       //nolint:lll
	htmlBlockType7Regexp      = regexp.MustCompile(`^[ ]{0,3}<(/[ ]*)?([a-zA-Z]+[a-zA-Z0-9\-]*)(` + attributePattern + `*)[ ]*(?:>|/>)[ ]*(?:\r\n|\n)?$`) //nolint:lll
)

// readerEnd is the end of re's match on the runes of a text reader over
// src, as goldmark's matchReader saw it, or -1.
func readerEnd(re *regexp.Regexp, src []byte) int {
	if m := re.FindReaderSubmatchIndex(text.NewReader(src)); m != nil {
		return m[1]
	}
	return -1
}

func checkHTMLMatchers(t testing.TB, line []byte) {
	t.Helper()
	if got, want := matchHTMLType1Open(line), htmlBlockType1OpenRegexp.Match(line); got != want {
		t.Fatalf("matchHTMLType1Open(%q) = %v, regexp %v", line, got, want)
	}
	if got, want := matchHTMLType1Close(line), htmlBlockType1CloseRegexp.Match(line); got != want {
		t.Fatalf("matchHTMLType1Close(%q) = %v, regexp %v", line, got, want)
	}
	for re, prefix := range map[*regexp.Regexp]string{htmlBlockType2OpenRegexp: "!--", htmlBlockType3OpenRegexp: "?", htmlBlockType5OpenRegexp: "![CDATA["} {
		if got, want := matchHTMLTypeOpen(line, prefix), re.Match(line); got != want {
			t.Fatalf("matchHTMLTypeOpen(%q, %q) = %v, regexp %v", line, prefix, got, want)
		}
	}
	if got, want := matchHTMLType4Open(line), htmlBlockType4OpenRegexp.Match(line); got != want {
		t.Fatalf("matchHTMLType4Open(%q) = %v, regexp %v", line, got, want)
	}
	start, end, ok := matchHTMLType6(line)
	if m := htmlBlockType6Regexp.FindSubmatchIndex(line); (m != nil) != ok || ok && (start != m[2] || end != m[3]) {
		t.Fatalf("matchHTMLType6(%q) = %d %d %v, regexp %v", line, start, end, ok, m)
	}
	got7, want7 := matchHTMLType7(line), htmlBlockType7Regexp.FindSubmatchIndex(line)
	if (got7 == nil) != (want7 == nil) || got7 != nil && !equalInts(got7, want7) {
		t.Fatalf("matchHTMLType7(%q) = %v, regexp %v", line, got7, want7)
	}
	for _, c := range []struct {
		name string
		m    func(io.RuneReader) int
		re   *regexp.Regexp
	}{{"matchOpenTag", matchOpenTag, openTagRegexp}, {"matchCloseTag", matchCloseTag, closeTagRegexp}} {
		// On bytes, and on a text reader's runes (which end at an invalid
		// byte), as parseMultiLine reads them.
		got, want := c.m(bytes.NewReader(line)), -1
		if m := c.re.FindReaderSubmatchIndex(bytes.NewReader(line)); m != nil {
			want = m[1]
		}
		if got != want {
			t.Fatalf("%s(%q) = %d, regexp %d", c.name, line, got, want)
		}
		if got, want := c.m(text.NewReader(line)), readerEnd(c.re, line); got != want {
			t.Fatalf("%s(text reader %q) = %d, regexp %d", c.name, line, got, want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var htmlCases = []string{
	"", "<", "<a>", "<a", "a>", " <a>", "   <a>", "    <a>", "<a >", "<a/>", "<a />", "<a/ >", "<a\n>", "<a\r\n>", "<a\r>",
	"<a\t>", "<a \n >", "<a b>", "<a b=c>", "<a b = c >", "<a b='c'>", "<a b=\"c\">", "<a b='c\nd'>", "<a b=c/>", "<a b=c//>",
	"<a b=c/ >", "<a b=c/x>", "<a b= >", "<a b=>", "<a =c>", "<a b='>' >", "<a b=\"x'y\">", "<a b='x\"y'>", "<a b=c d=e f>",
	"<a b='x'y>", "<a b='x' y>", "<a _:.-x=1>", "<a :b>", "<a -b>", "<a 1b>", "<a b=`c`>", "<a b=c<d>", "<a b=é>", "<a b='é'>",
	"<a b=\xff>", "<a b='\xff'>", "<a b=\xef\xbf\xbd>", "<a\xff>", "<a-1>", "<1a>", "<-a>", "<A-Z9>", "</a>", "</ a>", "</a >",
	"</a\n>", "</a\r\n>", "</a\r>", "</a b>", "</ a b>", "</a/>", "<a>\n", "<a>\r\n", "<a>\n\n", "<a> \n", "<a>x", "<a> x",
	"<script>", "<SCRIPT>", "<ScRiPt >", "<ſcript>", "<\u017fcript>", "<style>", "<\u017ftyle>", "<pre", "<pre\n", "<pre\r\n",
	"<pre\nx", "<pre\tx", "<pre\fx", "<pre\vx", "<pre\rx", "<prex", "<pre/>x", "<pre/x", "<textarea>", "<TEXTAREA/>", "<k>",
	"x</script>", "x</SCRIPT>y", "x</ſcript>", "x</script >", "\n</script>", "x\n</pre>", "</pre>", "</textarea", "<</style>",
	"<!--", "  <!--x", "<!-", "<?", "   <?x", "    <?", "<![CDATA[", "<![CDATA", "<!A", "<!AB x", "<!a", "<!", "<!A\n", "<!A\nx",
	"<!A\r\n", "<div", "<div>", "<div x", "<div\tx", "</div>", "</ div>", "</  div x>", "<div/>", "<div/", "<div-x", "<d\xff>",
	"<a b='c'  >  \n", "<a b='c'  >  \r\n", "<a b='c'>\n\n", "<a b c d>", "<a\tb\nc\r\nd>", "<a \r b>", "<a b\r=c>",
}

func TestHTMLMatchersEqualRegexps(t *testing.T) {
	cases := append([]string(nil), htmlCases...)
	for _, c := range htmlCases {
		cases = append(cases, c+"\n", c+"x", "  "+c, c+"\r\n", strings.ToUpper(c))
	}
	for _, c := range cases {
		checkHTMLMatchers(t, []byte(c))
	}
}

func FuzzHTMLMatchers(f *testing.F) {
	for _, c := range htmlCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkHTMLMatchers(t, b)
		for _, pre := range []string{"<", "</", "<a ", "<div ", "<pre", "x</pre>", "<!", "<a b="} {
			checkHTMLMatchers(t, append([]byte(pre), b...))
		}
	})
}
