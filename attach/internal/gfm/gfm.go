// Copyright (c) 2019 Yusuke Inuzuka. MIT licence (LICENSE); ported from
// github.com/yuin/goldmark v1.8.7 extension/gfm.go.

package gfm

import (
	"github.com/yuin/goldmark"
)

type gfm struct{}

// GFM is the GitHub Flavored Markdown extension: linkify, tables,
// strikethrough and task lists, as goldmark's extension.GFM.
var GFM goldmark.Extender = &gfm{}

func (e *gfm) Extend(m goldmark.Markdown) {
	linkifyExt.Extend(m)
	tableExt.Extend(m)
	strikethroughExt.Extend(m)
	taskListExt.Extend(m)
}
