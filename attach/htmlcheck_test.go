package attach

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// forbiddenElements may never appear in rendered Markdown (issue 3).
var forbiddenElements = map[string]bool{
	"script": true, "style": true, "iframe": true, "object": true, "embed": true,
	"form": true, "svg": true, "math": true, "base": true, "meta": true,
	// Not in the list, but equally script-capable or navigating.
	"frame": true, "frameset": true, "link": true, "template": true, "noscript": true,
	"applet": true, "portal": true,
}

// urlAttrs are attributes whose value a browser treats as a URL.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "xlink:href": true,
	"poster": true, "data": true, "background": true, "cite": true, "longdesc": true,
	"ping": true, "srcset": true, "lowsrc": true, "dynsrc": true, "manifest": true, "codebase": true,
}

var (
	safeStyle     = regexp.MustCompile(`^text-align:\s*(left|right|center);?$`)
	dataImageURL  = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp|avif)[;,]`)
	browserStrip  = strings.NewReplacer("\t", "", "\n", "", "\r", "")
	allowedScheme = map[string]bool{"http": true, "https": true, "mailto": true}
)

// checkAttr applies the property to one attribute of element tag.
func checkAttr(tag, key, val string) error {
	key = strings.ToLower(key)
	switch {
	case strings.HasPrefix(key, "on"):
		return fmt.Errorf("<%s> has event handler attribute %s=%q", tag, key, val)
	case key == "srcdoc":
		return fmt.Errorf("<%s> has srcdoc", tag)
	case key == "style" && !safeStyle.MatchString(val):
		return fmt.Errorf("<%s> has style %q", tag, val)
	case key == "http-equiv":
		return fmt.Errorf("<%s> has http-equiv", tag)
	case !urlAttrs[key]:
		return nil
	}
	// What a browser does before parsing a URL: strip leading and trailing
	// C0 controls and spaces, remove tabs and newlines anywhere.
	v := browserStrip.Replace(strings.TrimFunc(val, func(r rune) bool { return r <= 0x20 }))
	if tag == "img" && key == "src" && dataImageURL.MatchString(strings.ToLower(v)) {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil {
		return fmt.Errorf("<%s %s=%q>: unparsable URL: %v", tag, key, val, err)
	}
	if !allowedScheme[strings.ToLower(u.Scheme)] {
		return fmt.Errorf("<%s %s=%q>: scheme %q not allowed", tag, key, val, u.Scheme)
	}
	if tag == "a" && key == "href" {
		return nil
	}
	if tag == "img" && key == "src" && u.Scheme != "mailto" {
		return nil
	}
	return fmt.Errorf("<%s> has URL attribute %s=%q", tag, key, val)
}

// checkSafeHTML is the renderer's property (issue 3), checked on parsed
// output, never by substring: tokenized and tree-built with
// golang.org/x/net/html, the HTML has no script-capable element, no on*
// attribute, and no URL outside http, https, mailto (and data:image/* on
// img src). Links must carry rel="noopener noreferrer nofollow".
func checkSafeHTML(s string) error {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken && tt != html.EndTagToken {
			continue
		}
		tok := z.Token()
		if forbiddenElements[tok.Data] {
			return fmt.Errorf("token: forbidden element <%s>", tok.Data)
		}
		if err := checkElement(tok.Data, tok.Attr); err != nil {
			return fmt.Errorf("token: %w", err)
		}
	}
	// The tree builder can produce elements the tokenizer did not show
	// (mutation XSS); walk the parsed fragment too.
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	var walk func(n *html.Node) error
	walk = func(n *html.Node) error {
		if n.Type == html.ElementNode {
			if forbiddenElements[n.Data] || n.Namespace == "svg" || n.Namespace == "math" {
				return fmt.Errorf("tree: forbidden element <%s> (namespace %q)", n.Data, n.Namespace)
			}
			if err := checkElement(n.Data, n.Attr); err != nil {
				return fmt.Errorf("tree: %w", err)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range nodes {
		if err := walk(n); err != nil {
			return err
		}
	}
	return nil
}

func checkElement(tag string, attrs []html.Attribute) error {
	hasHref, rel := false, ""
	for _, a := range attrs {
		if err := checkAttr(tag, a.Key, a.Val); err != nil {
			return err
		}
		switch a.Key {
		case "href":
			hasHref = true
		case "rel":
			rel = a.Val
		}
	}
	if tag == "a" && hasHref && rel != linkRel {
		return fmt.Errorf("<a> with href has rel=%q, want %q", rel, linkRel)
	}
	return nil
}
