package attach

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// An ExpandError says why a URI template could not be expanded: a syntax
// error at a byte offset of the template, or a refused variable value.
type ExpandError struct {
	Template string
	// Offset is the byte offset in Template of the faulty expression.
	Offset int
	// Var names the variable whose value was refused ("" for syntax errors).
	Var     string
	Message string
}

func (e *ExpandError) Error() string {
	if e.Var != "" {
		return fmt.Sprintf("attach: uri template %q: variable %q: %s", e.Template, e.Var, e.Message)
	}
	return fmt.Sprintf("attach: uri template %q at offset %d: %s", e.Template, e.Offset, e.Message)
}

// operator describes one RFC 6570 expression operator (its §3.2.1 table
// row is in the comments).
type operator struct {
	first    string
	sep      string
	named    bool
	ifEmpty  string
	reserved bool // allow reserved characters (U+R)
	pathLike bool // a "." or ".." value would step through the path
}

var operators = map[byte]operator{
	0:   {first: "", sep: ",", pathLike: true},             // {var}
	'+': {first: "", sep: ",", reserved: true},             // {+var}
	'#': {first: "#", sep: ",", reserved: true},            // {#var}
	'.': {first: ".", sep: "."},                            // {.var}
	'/': {first: "/", sep: "/", pathLike: true},            // {/var}
	';': {first: ";", sep: ";", named: true},               // {;var}
	'?': {first: "?", sep: "&", named: true, ifEmpty: "="}, // {?var}
	'&': {first: "&", sep: "&", named: true, ifEmpty: "="}, // {&var}
}

type varSpec struct {
	name    string
	prefix  int // 0 = none
	explode bool
}

type expression struct {
	op     byte
	vars   []varSpec
	offset int
}

// parseTemplate splits a template into literals and expressions, calling
// lit and expr in order. It reports the first syntax error.
func parseTemplate(tmpl string, lit func(string), expr func(expression) error) error {
	i := 0
	for i < len(tmpl) {
		open := strings.IndexByte(tmpl[i:], '{')
		if open < 0 {
			if c := strings.IndexByte(tmpl[i:], '}'); c >= 0 {
				return &ExpandError{Template: tmpl, Offset: i + c, Message: `unmatched "}"`}
			}
			lit(tmpl[i:])
			return nil
		}
		if c := strings.IndexByte(tmpl[i:i+open], '}'); c >= 0 {
			return &ExpandError{Template: tmpl, Offset: i + c, Message: `unmatched "}"`}
		}
		lit(tmpl[i : i+open])
		start := i + open
		end := strings.IndexByte(tmpl[start:], '}')
		if end < 0 {
			return &ExpandError{Template: tmpl, Offset: start, Message: `unclosed "{"`}
		}
		body := tmpl[start+1 : start+end]
		e, err := parseExpression(tmpl, start, body)
		if err != nil {
			return err
		}
		if err := expr(e); err != nil {
			return err
		}
		i = start + end + 1
	}
	return nil
}

func parseExpression(tmpl string, offset int, body string) (expression, error) {
	e := expression{offset: offset}
	bad := func(format string, args ...any) (expression, error) {
		return expression{}, &ExpandError{Template: tmpl, Offset: offset, Message: fmt.Sprintf(format, args...)}
	}
	if body == "" {
		return bad("empty expression")
	}
	switch c := body[0]; c {
	case '+', '#', '.', '/', ';', '?', '&':
		e.op = c
		body = body[1:]
	case '=', ',', '!', '@', '|':
		return bad("operator %q is reserved for future extensions", c)
	}
	if body == "" {
		return bad("expression has no variable")
	}
	for _, spec := range strings.Split(body, ",") {
		var v varSpec
		switch {
		case strings.HasSuffix(spec, "*"):
			v.explode = true
			spec = spec[:len(spec)-1]
		case strings.Contains(spec, ":"):
			k := strings.IndexByte(spec, ':')
			n, err := strconv.Atoi(spec[k+1:])
			if err != nil || n < 1 || n > 9999 || spec[k+1] == '0' || spec[k+1] == '+' {
				return bad("prefix %q must be 1..9999", spec[k+1:])
			}
			v.prefix = n
			spec = spec[:k]
		}
		if !validVarName(spec) {
			return bad("invalid variable name %q", spec)
		}
		v.name = spec
		e.vars = append(e.vars, v)
	}
	return e, nil
}

// validVarName implements RFC 6570 varname: varchar *( ["."] varchar ),
// varchar = ALPHA / DIGIT / "_" / pct-encoded.
func validVarName(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlnum(c) || c == '_':
		case c == '.':
			if s[i-1] == '.' {
				return false
			}
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isUnreserved(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func isReserved(c byte) bool {
	return strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0
}

const upperHex = "0123456789ABCDEF"

// appendEncoded percent-encodes s (as UTF-8), keeping unreserved
// characters and, when reserved, reserved characters and existing
// pct-encoded triplets (RFC 6570 §3.2.1).
func appendEncoded(b *strings.Builder, s string, reserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUnreserved(c):
			b.WriteByte(c)
		case reserved && isReserved(c):
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteString(s[i : i+3])
			i += 2
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
}

// Expand expands an RFC 6570 URI template (levels 1 to 4 for string values:
// every operator, several variables per expression, prefix modifiers
// {var:3}; an explode modifier is accepted and changes nothing for a
// string). A variable absent from vars is undefined and expands to nothing;
// a present empty string is defined.
//
// Values are percent-encoded as the RFC says, so in a simple {var} (or a
// {/var} path segment) a value such as "../../secrets" or "a/b?x" can never
// add path segments or a query. Because "." and ".." are unreserved and
// would still step through the path, a value that is exactly "." or ".."
// (after any prefix modifier) is refused in {var} and {/var} with an
// [*ExpandError] naming the variable. {+var} and {#var} pass reserved
// characters through, as the RFC says: use them only where the template
// author wants that.
func Expand(template string, vars map[string]string) (string, error) {
	// A syntax error anywhere wins over a refused value: report the template
	// as malformed rather than blaming a value of an earlier expression.
	if err := parseTemplate(template, func(string) {}, func(expression) error { return nil }); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(template) + 16)
	err := parseTemplate(template, func(lit string) {
		appendEncoded(&b, lit, true)
	}, func(e expression) error {
		op := operators[e.op]
		first := true
		for _, v := range e.vars {
			val, ok := vars[v.name]
			if !ok {
				continue
			}
			if v.prefix > 0 && utf8.RuneCountInString(val) > v.prefix {
				n, k := 0, 0
				for k = range val {
					if n == v.prefix {
						break
					}
					n++
				}
				val = val[:k]
			}
			if op.pathLike && (val == "." || val == "..") {
				return &ExpandError{Template: template, Offset: e.offset, Var: v.name,
					Message: fmt.Sprintf("value %q is refused: it would step through the path", val)}
			}
			if first {
				b.WriteString(op.first)
				first = false
			} else {
				b.WriteString(op.sep)
			}
			if op.named {
				appendEncoded(&b, v.name, true)
				if val == "" {
					b.WriteString(op.ifEmpty)
					continue
				}
				b.WriteByte('=')
			}
			appendEncoded(&b, val, op.reserved)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// TemplateVars returns the variable names of a URI template in the order
// they first appear, each once, so a UI can prompt for them. It returns nil
// for a malformed template; [Expand] reports why.
func TemplateVars(template string) []string {
	var names []string
	seen := map[string]bool{}
	err := parseTemplate(template, func(string) {}, func(e expression) error {
		for _, v := range e.vars {
			if !seen[v.name] {
				seen[v.name] = true
				names = append(names, v.name)
			}
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return names
}
