// Copyright (c) 2019 Yusuke Inuzuka. MIT licence (LICENSE); ported from
// github.com/yuin/goldmark v1.8.7 extension/tasklist.go.

package gfm

import (
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// isRESpace reports whether b is in regexp's \s: [\t\n\f\r ]. Unlike
// goldmark's util.IsSpace it does not include \v.
func isRESpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// matchTaskList is `^\[([\sxX])\]\s*` (goldmark's taskListRegexp): the end
// of the match and the bracketed byte, or -1 when line does not match.
func matchTaskList(line []byte) (end int, value byte) {
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return -1, 0
	}
	if v := line[1]; !isRESpace(v) && v != 'x' && v != 'X' {
		return -1, 0
	}
	end = 3
	for end < len(line) && isRESpace(line[end]) {
		end++
	}
	return end, line[1]
}

type taskCheckBoxParser struct{}

func (s *taskCheckBoxParser) Trigger() []byte {
	return []byte{'['}
}

func (s *taskCheckBoxParser) Parse(parent gast.Node, block text.Reader, pc parser.Context) gast.Node {
	// Given AST structure must be like
	// - List
	//   - ListItem         : parent.Parent
	//     - TextBlock      : parent
	//       (current line)
	if parent.Parent() == nil || parent.Parent().FirstChild() != parent {
		return nil
	}

	if parent.HasChildren() {
		return nil
	}
	if _, ok := parent.Parent().(*gast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	end, value := matchTaskList(line)
	if end < 0 {
		return nil
	}
	block.Advance(end)
	checked := value == 'x' || value == 'X'
	return ast.NewTaskCheckBox(checked)
}

func (s *taskCheckBoxParser) CloseBlock(parent gast.Node, pc parser.Context) {}

type taskCheckBoxHTMLRenderer struct {
	html.Config
}

// NewTaskCheckBoxHTMLRenderer returns the renderer of task list check
// boxes (a disabled <input>), as extension.NewTaskCheckBoxHTMLRenderer
// with no options.
func NewTaskCheckBoxHTMLRenderer() renderer.NodeRenderer {
	return &taskCheckBoxHTMLRenderer{Config: html.NewConfig()}
}

func (r *taskCheckBoxHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindTaskCheckBox, r.renderTaskCheckBox)
}

func (r *taskCheckBoxHTMLRenderer) renderTaskCheckBox(
	w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	n := node.(*ast.TaskCheckBox)

	if n.IsChecked {
		_, _ = w.WriteString(`<input checked="" disabled="" type="checkbox"`)
	} else {
		_, _ = w.WriteString(`<input disabled="" type="checkbox"`)
	}
	if r.XHTML {
		_, _ = w.WriteString(" /> ")
	} else {
		_, _ = w.WriteString("> ")
	}
	return gast.WalkContinue, nil
}

type taskList struct{}

var taskListExt = &taskList{}

func (e *taskList) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithInlineParsers(
		util.Prioritized(&taskCheckBoxParser{}, 0),
	))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(
		util.Prioritized(NewTaskCheckBoxHTMLRenderer(), 500),
	))
}
