//go:build !js

package gateway

import (
	"errors"
	"fmt"
	"strings"
)

// splitCommand splits the -stdio value into argv with POSIX shell quoting
// rules and nothing else: words are separated by unquoted blanks; single
// quotes keep everything literally; double quotes keep everything except
// that a backslash escapes ", \, $ and ` (and a backslash-newline is
// removed); outside quotes a backslash escapes the next character. There is
// no expansion of any kind ($VAR, globs, ~, command substitution) and no
// operators: the command is executed directly, never by a shell, so
// characters such as | ; & > are ordinary word characters.
func SplitCommand(s string) ([]string, error) {
	var (
		args   []string
		cur    strings.Builder
		inWord bool // cur holds a word, possibly empty ("")
		i      int
	)
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote at offset %d", i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case c == '"':
			inWord = true
			start := i
			i++
			closed := false
			for i < len(s) {
				d := s[i]
				if d == '"' {
					closed = true
					i++
					break
				}
				if d == '\\' && i+1 < len(s) {
					switch n := s[i+1]; n {
					case '"', '\\', '$', '`':
						cur.WriteByte(n)
						i += 2
						continue
					case '\n':
						i += 2
						continue
					}
				}
				cur.WriteByte(d)
				i++
			}
			if !closed {
				return nil, fmt.Errorf("unterminated double quote at offset %d", start)
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			if s[i+1] == '\n' { // line continuation
				i += 2
				continue
			}
			inWord = true
			cur.WriteByte(s[i+1])
			i += 2
		default:
			inWord = true
			cur.WriteByte(c)
			i++
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
