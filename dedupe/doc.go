// Package dedupe keeps one copy of each document in a model's context and
// measures how often a second copy would have arrived.
//
// A chat host that attaches a document at session start and also lets the
// model call a tool that fetches documents ends up with two copies of the
// same text in one context, thousands of tokens apart and identical only
// until someone edits the source. A [Ledger] records what is attached: per
// server and URI, a content hash, size and token estimate for every part of
// a resources/read result, and the part's state ([Fresh], [Stale], [Gone],
// [Superseded]). It never keeps the content itself, so memory grows with
// the number of documents, not their size.
//
// [Ledger.Filter] rewrites the raw JSON of a tools/call result against the
// ledger: an embedded resource whose content is already in the context is
// dropped, a resource_link to an attached URI is dropped, and a newer copy
// of an attached URI either supersedes the attachment (default) or is kept
// while the attachment is flagged stale. A part the host attached without
// sending it to the model ([Ledger.Hold]: over a size limit, an MCP App
// view) is not in the context: a tool result's copy of it, or a link to it,
// is kept. Everything else, including unknown block types and unknown
// fields, passes byte for byte.
//
// [Figures] are the counters a product decision needs (does this host read
// resources at all; would a fetch tool mostly deliver duplicates?). They
// are per session, mergeable across sessions, and [Figures.Decide] applies
// the two thresholds.
//
// All methods of a Ledger are safe for concurrent use. The package uses
// only the standard library so it can be compiled into the WebAssembly
// module cheaply.
package dedupe
