// Package host is the engine behind mcphost's JavaScript API: one connection
// to one MCP server, the picker index fed by background listing, the set of
// attachments kept fresh (watching, coalesced re-reads, refresh before a
// turn, reconnection) and the dedupe filter for tool results. The wasm
// package only converts values to and from JavaScript; everything a user can
// observe is decided here and tested natively.
//
// # Freshness
//
// Each attached URI is an explicit state machine (freshness.go):
//
//   - Attach registers the URI before any I/O, asks the session to watch it
//     (resources/subscribe) and reads it only once the session has answered,
//     so no change made after the returned snapshot goes unnoticed. A
//     pending attach is not in Attachments; Detach cancels it.
//   - Reads of one URI run one at a time; each takes a ticket when it starts
//     and the applied copy is always that of the newest successful read.
//     Updates that arrive during a read coalesce into one more read, and the
//     worker keeps going while they keep coming: a sustained stream shows
//     progress and ends on the server's last version.
//   - Refresh never regresses: it demands a read that starts after the call,
//     and marks an attachment stale only when nothing newer was applied
//     before its deadline. Reads it alone asked for are cancelled on the
//     wire at the deadline.
//   - A tool result that links to an attached document, or embeds a
//     different copy of it, is confirmed by a re-read before it is filtered.
//   - Subscriptions belong to a session: after a reconnect every entry is
//     watched again on the new session (one Watch call) and re-read once the
//     watch is answered.
//
// # What goes to the model
//
// [ForModel] decides whether a part is in the next model request. Besides
// the freshness states, the host withholds (withhold.go) parts whose
// [ModelTokens] are over Options.MaxModelTokens (default 100,000) and MCP
// App views ([attach.IsMCPApp]): they are attached and kept fresh, with
// Withheld set and a warning, until [Host.Include]. The ledger holds them
// ([dedupe.Ledger.Hold]), so the tool-result filter does not count them as
// in the context. [Host.Hint] tells a picker the same before anything is
// read, and [ToolUI] reads a tool's MCP Apps metadata (modelVisible).
//
// # Restore
//
// [Host.Snapshot] saves the context with stable SHA-256 part digests
// (Options.Digest: crypto/sha256 natively, WebCrypto in the page);
// [Host.Restore] re-attaches a snapshot's documents through the same state
// machine (one watch change for all, reads bounded in number and retried
// with capped backoff) and reports each as unchanged, changed, gone (with
// [attach.Suggest]ions), failed or refused, keeping the snapshot's copy gone
// or stale where it promises to; [Host.Replace] swaps a gone document for a
// suggestion in place (restore.go).
//
// # Events
//
// updated fires only when content changed (part count, or a part's uri,
// mimeType, _meta or payload); fresh when a stale, gone or superseded
// attachment is current again with the same content; stale when a fresh
// attachment's re-read failed or missed its deadline; gone once per
// disappearance; superseded when a tool result replaced a part. Events of
// one host are delivered one at a time, in the order of the state changes
// they report.
package host
