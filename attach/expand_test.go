package attach

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// rfcVars are the string variables of RFC 6570 §3.2 (lists and maps are
// outside this package's string-valued API).
var rfcVars = map[string]string{
	"dub": "me/too", "hello": "Hello World!", "half": "50%", "var": "value", "who": "fred",
	"base": "http://example.com/home/", "path": "/foo/bar", "v": "6", "x": "1024", "y": "768",
	"empty": "",
}

// TestExpandRFC6570 runs every string-valued example of RFC 6570 §1.2 and
// §3.2.
func TestExpandRFC6570(t *testing.T) {
	cases := [][2]string{
		// §3.2.2 simple string expansion (and level 1 of §1.2)
		{"{var}", "value"}, {"{hello}", "Hello%20World%21"}, {"{half}", "50%25"},
		{"O{empty}X", "OX"}, {"O{undef}X", "OX"}, {"{x,y}", "1024,768"},
		{"{x,hello,y}", "1024,Hello%20World%21,768"}, {"?{x,empty}", "?1024,"},
		{"?{x,undef}", "?1024"}, {"?{undef,y}", "?768"}, {"{var:3}", "val"}, {"{var:30}", "value"},
		// §3.2.3 reserved expansion
		{"{+var}", "value"}, {"{+hello}", "Hello%20World!"}, {"{+half}", "50%25"},
		{"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
		{"{+base}index", "http://example.com/home/index"}, {"O{+empty}X", "OX"}, {"O{+undef}X", "OX"},
		{"{+path}/here", "/foo/bar/here"}, {"here?ref={+path}", "here?ref=/foo/bar"},
		{"up{+path}{var}/here", "up/foo/barvalue/here"}, {"{+x,hello,y}", "1024,Hello%20World!,768"},
		{"{+path,x}/here", "/foo/bar,1024/here"}, {"{+path:6}/here", "/foo/b/here"},
		// §3.2.4 fragment expansion
		{"{#var}", "#value"}, {"{#hello}", "#Hello%20World!"}, {"{#half}", "#50%25"},
		{"foo{#empty}", "foo#"}, {"foo{#undef}", "foo"}, {"{#x,hello,y}", "#1024,Hello%20World!,768"},
		{"{#path,x}/here", "#/foo/bar,1024/here"}, {"{#path:6}/here", "#/foo/b/here"},
		{"X{#var}", "X#value"}, {"X{#hello}", "X#Hello%20World!"},
		// §3.2.5 label expansion
		{"{.who}", ".fred"}, {"{.who,who}", ".fred.fred"}, {"{.half,who}", ".50%25.fred"},
		{"X{.var}", "X.value"}, {"X{.empty}", "X."}, {"X{.undef}", "X"}, {"X{.var:3}", "X.val"},
		{"X{.x,y}", "X.1024.768"},
		// §3.2.6 path segment expansion
		{"{/who}", "/fred"}, {"{/who,who}", "/fred/fred"}, {"{/half,who}", "/50%25/fred"},
		{"{/who,dub}", "/fred/me%2Ftoo"}, {"{/var}", "/value"}, {"{/var,empty}", "/value/"},
		{"{/var,undef}", "/value"}, {"{/var,x}/here", "/value/1024/here"}, {"{/var:1,var}", "/v/value"},
		// §3.2.7 path-style parameters
		{"{;who}", ";who=fred"}, {"{;half}", ";half=50%25"}, {"{;empty}", ";empty"},
		{"{;v,empty,who}", ";v=6;empty;who=fred"}, {"{;v,bar,who}", ";v=6;who=fred"},
		{"{;x,y}", ";x=1024;y=768"}, {"{;x,y,empty}", ";x=1024;y=768;empty"},
		{"{;x,y,undef}", ";x=1024;y=768"}, {"{;hello:5}", ";hello=Hello"},
		// §3.2.8 form-style query
		{"{?who}", "?who=fred"}, {"{?half}", "?half=50%25"}, {"{?x,y}", "?x=1024&y=768"},
		{"{?x,y,empty}", "?x=1024&y=768&empty="}, {"{?x,y,undef}", "?x=1024&y=768"}, {"{?var:3}", "?var=val"},
		// §3.2.9 form-style query continuation
		{"{&who}", "&who=fred"}, {"{&half}", "&half=50%25"}, {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
		{"{&x,y,empty}", "&x=1024&y=768&empty="}, {"{&var:3}", "&var=val"},
		// §3.1 literals: pct-encode what is not allowed
		{"a b{var}", "a%20b" + "value"}, {"100%{var}", "100%25value"}, {"%41{var}", "%41value"},
	}
	for _, c := range cases {
		got, err := Expand(c[0], rfcVars)
		if err != nil || got != c[1] {
			t.Errorf("Expand(%q) = %q, %v; want %q", c[0], got, err, c[1])
		}
	}
}

func TestExpandUnicodeAndPrefix(t *testing.T) {
	vars := map[string]string{"n": "Ünïcödé😀x", "e": "é"}
	cases := [][2]string{
		{"{n:2}", "%C3%9Cn"},
		{"{n:8}", "%C3%9Cn%C3%AFc%C3%B6d%C3%A9%F0%9F%98%80"},
		{"{+e}", "%C3%A9"},
		{"{n*}", "%C3%9Cn%C3%AFc%C3%B6d%C3%A9%F0%9F%98%80x"}, // explode is a no-op for strings
	}
	for _, c := range cases {
		got, err := Expand(c[0], vars)
		if err != nil || got != c[1] {
			t.Errorf("Expand(%q) = %q, %v; want %q", c[0], got, err, c[1])
		}
	}
}

// TestExpandPathSafety is the picker's rule (issue 7): typed values never
// add path segments or a query, and "." / ".." are refused.
func TestExpandPathSafety(t *testing.T) {
	const tmpl = "docs://team/{team}/policy/{name}"
	for _, v := range []string{"../../secrets", "a/b?x", "x#frag", "%2e%2e", "a\\b", "../", "./x", "a%2Fb", " ..", "...", "?", "/"} {
		got, err := Expand(tmpl, map[string]string{"team": v, "name": "n"})
		if err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		rest := strings.TrimPrefix(got, "docs://team/")
		if strings.Count(rest, "/") != 2 || strings.ContainsAny(rest, "?#") {
			t.Errorf("%q expanded to %q: it added a segment, query or fragment", v, got)
		}
		seg := strings.Split(rest, "/")[0]
		if back, err := url.PathUnescape(seg); err != nil || back != v {
			t.Errorf("%q: segment %q decodes to %q, %v", v, seg, back, err)
		}
	}
	for _, c := range []struct{ tmpl, v string }{
		{tmpl, "."}, {tmpl, ".."}, {"docs://x{/team}", ".."}, {"docs://x{/team}", "."},
		{"docs://x/{team:2}", "..secrets"}, // the prefix leaves ".."
	} {
		_, err := Expand(c.tmpl, map[string]string{"team": c.v, "name": "ok"})
		var ee *ExpandError
		if !errors.As(err, &ee) || ee.Var != "team" || !strings.Contains(err.Error(), `"team"`) {
			t.Errorf("Expand(%q, team=%q) error = %v, want a refusal naming team", c.tmpl, c.v, err)
		}
	}
	// The RFC's own operators still behave as the RFC says.
	for _, c := range [][3]string{
		{"docs://x/{+p}", "../a", "docs://x/../a"},
		{"docs://x{?q}", "..", "docs://x?q=.."},
		{"docs://x{?q}", "a/b?c", "docs://x?q=a%2Fb%3Fc"},
		{"docs://x{/p}", "a/b", "docs://x/a%2Fb"},
		{"docs://x/{p}", "...", "docs://x/..."},
	} {
		got, err := Expand(c[0], map[string]string{"p": c[1], "q": c[1]})
		if err != nil || got != c[2] {
			t.Errorf("Expand(%q, %q) = %q, %v; want %q", c[0], c[1], got, err, c[2])
		}
	}
}

func TestExpandSyntaxErrors(t *testing.T) {
	for _, tmpl := range []string{"{", "x{var", "}", "a}b{var}", "{}", "{+}", "{=x}", "{!x}", "{var:0}", "{var:10000}",
		"{var:x}", "{a b}", "{var:3*}", "{.x.}", "{x..y}", "{x,}", "{%zz}", "{var:-1}", "{var:+1}"} {
		_, err := Expand(tmpl, rfcVars)
		var ee *ExpandError
		if !errors.As(err, &ee) || ee.Var != "" {
			t.Errorf("Expand(%q) error = %v, want a syntax error", tmpl, err)
		}
		if TemplateVars(tmpl) != nil {
			t.Errorf("TemplateVars(%q) = %v, want nil", tmpl, TemplateVars(tmpl))
		}
	}
}

func TestTemplateVars(t *testing.T) {
	cases := []struct {
		tmpl string
		want []string
	}{
		{"docs://team/{team}/policy/{name}", []string{"team", "name"}},
		{"file:///{+path}{?q,team}{&team}", []string{"path", "q", "team"}},
		{"{a.b,c_d,%41:3}", []string{"a.b", "c_d", "%41"}},
		{"no/vars", nil},
	}
	for _, c := range cases {
		if got := TemplateVars(c.tmpl); !reflect.DeepEqual(got, c.want) {
			t.Errorf("TemplateVars(%q) = %q, want %q", c.tmpl, got, c.want)
		}
	}
}
