// Package gfm is goldmark's GitHub Flavored Markdown extensions (tables,
// strikethrough, task lists and autolinks, what extension.GFM enables)
// without package regexp.
//
// goldmark's extension package compiles six regular expressions in its
// package initializer; they were the only reason the wasm module linked
// regexp and regexp/syntax (about 80 KB of code, 15–20 KB brotli) and ran
// their compilation at every start. This package is a port of that code
// from github.com/yuin/goldmark v1.8.7 (extension/gfm.go, linkify.go,
// table.go, strikethrough.go, tasklist.go; MIT licence, copyright 2019
// Yusuke Inuzuka, see LICENSE in this directory), with each regular
// expression replaced by a hand-written matcher of exactly the same
// language and match end (leftmost-first, as Go's regexp reports it). The
// AST nodes stay goldmark's own (extension/ast, which has no regexp), so
// the trees are identical. Only the defaults that extension.GFM uses are
// kept: no options to swap the URL expressions, no allowed-protocol list,
// cell alignment by the html renderer's XHTML setting.
//
// The tests prove the equivalence natively: each matcher against its
// original expression over a table and under fuzzing, and whole renderings
// against goldmark with extension.GFM (here on goldmark's own extension
// fixtures, and in package attach on its corpora).
package gfm
