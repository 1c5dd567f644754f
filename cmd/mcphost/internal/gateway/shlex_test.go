//go:build !js

package gateway

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want []string
		err  string
	}{
		{"plain", "node server.js stdio", []string{"node", "server.js", "stdio"}, ""},
		{"extra blanks", "  node\t server.js \n stdio  ", []string{"node", "server.js", "stdio"}, ""},
		{"single quotes", `npx -y '@scope/pkg name' '$HOME'`, []string{"npx", "-y", "@scope/pkg name", "$HOME"}, ""},
		{"double quotes", `sh -c "echo \"hi\" \$X \\ \a"`, []string{"sh", "-c", `echo "hi" $X \ \a`}, ""},
		{"backslash escapes", `a\ b c\"d \'e`, []string{"a b", `c"d`, "'e"}, ""},
		{"empty quoted words kept", `cmd "" ''`, []string{"cmd", "", ""}, ""},
		{"adjacent quoting joins", `pre"mid"'post'x`, []string{"premidpostx"}, ""},
		{"no expansion", `echo $HOME ~ * $(id) ` + "`id`", []string{"echo", "$HOME", "~", "*", "$(id)", "`id`"}, ""},
		{"operators are words", `a|b ; c && d > e`, []string{"a|b", ";", "c", "&&", "d", ">", "e"}, ""},
		{"line continuation", "a \\\nb", []string{"a", "b"}, ""},
		{"line continuation in double quotes", "\"a\\\nb\"", []string{"ab"}, ""},
		{"unicode", "python3 -m ünïcode 'ß x'", []string{"python3", "-m", "ünïcode", "ß x"}, ""},
		{"empty", "", nil, "empty command"},
		{"blank", "  \t ", nil, "empty command"},
		{"unterminated single", "a 'b", nil, "unterminated single quote at offset 2"},
		{"unterminated double", `a "b\"`, nil, "unterminated double quote at offset 2"},
		{"trailing backslash", `a \`, nil, "trailing backslash"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := SplitCommand(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("SplitCommand(%q) error = %v, want %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SplitCommand(%q): %v", tc.in, err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("SplitCommand(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzSplitCommand checks that splitting never panics and that a split
// result, re-quoted word by word with single quotes, splits back to itself.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{"node a b", `a "b c" 'd'`, `x\ y`, `"\$"`, "'", `\`, "a\\\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args, err := SplitCommand(s)
		if err != nil {
			return
		}
		var q []string
		for _, a := range args {
			q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
		back, err := SplitCommand(strings.Join(q, " "))
		if err != nil || !slices.Equal(back, args) {
			t.Fatalf("requote of %q: %q, %v", args, back, err)
		}
	})
}
