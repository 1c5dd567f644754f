// Package gfm is goldmark's GitHub Flavored Markdown extensions (tables,
// strikethrough, task lists and autolinks: what extension.GFM enables)
// without its regular expressions.
//
// goldmark's extension package compiles six regular expressions in its
// package initializer: 265 KB allocated in 2,094 allocations at every start
// of the wasm module, plus the code behind them. This package is a port of
// that code from github.com/yuin/goldmark v1.8.7 (extension/gfm.go,
// linkify.go, table.go, strikethrough.go, tasklist.go; MIT licence,
// copyright 2019 Yusuke Inuzuka, see LICENSE in this directory), with each
// expression replaced by a hand-written matcher of exactly the same
// language and match end (leftmost-first, as Go's regexp reports it). The
// AST nodes stay goldmark's own (extension/ast, which has no regexp), so
// the trees are identical. Only the defaults extension.GFM uses are kept:
// no options to swap the URL expressions, no allowed-protocol list, cell
// alignment chosen by the html renderer's XHTML setting.
//
// goldmark's parser, text and util packages used package regexp too; the
// main module replaces goldmark with third_party/goldmark, where they do
// not, so the wasm module does not link regexp at all (make check fails if
// it does).
//
// The tests prove the equivalence natively: each matcher against its
// original expression over a table and under fuzzing, and whole renderings
// against goldmark with extension.GFM (here on goldmark's own extension
// fixtures, and in package attach on its corpora).
package gfm
