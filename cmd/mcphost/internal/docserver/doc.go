// Package docserver is mcphost's built-in documents server: an MCP server
// over a folder (or an fs.FS) laid out as {team}/{kind}/{name}, one go-sdk
// server per WebSocket connection.
//
//	s, err := docserver.New(docserver.Config{FS: root.FS(), PageSize: 50, Log: log})
//	go s.Watch(ctx, 500*time.Millisecond) // a folder: poll and notify changes
//	bridge.Endpoint(opts, func(ctx context.Context, c *bridge.Conn) {
//		s.Serve(ctx, c, ps.Lookup(c.Principal()))
//	})
//
// Each document is a resource docs://team/{team}/{kind}/{name} with a title
// and description taken from its content (Markdown heading and first
// paragraph, image dimensions) and a MIME type (by extension for valid
// UTF-8 text, else sniffed from the bytes). The
// server offers paged listing, the template docs://team/{team}/policy/{name}
// with completion of both variables, subscriptions (resources/updated on
// change and on deletion, list_changed), the search_documents tool
// (resource links), two prompts (summarize_document {uri},
// compare_documents {first, second}: the documents embedded as resources,
// read as the connection's principal; their arguments complete over the
// documents the principal may read), and fetch_document for the clients the
// gate picks from the figures (see # Figures) or [Config.ResourceBlind]
// names.
//
// # Revisions
//
// Both revisions are served (go-sdk does): 2025-11-25 (initialize,
// resources/subscribe) and 2026-07-28 (per-request _meta,
// subscriptions/listen). The resource-blind decision is made once per
// connection: at notifications/initialized from initialize's clientInfo,
// or on the first 2026-07-28 request from its _meta clientInfo (none:
// "unknown", never gated); a session keeps the tools it started with. A listen is scoped like resources/subscribe: a URI the
// principal may not read, or that does not exist, is left out of the
// acknowledged filter, and the rest of the listen goes on. The server
// delivers each listen's notifications itself (updated for its URIs,
// list_changed when asked), so that ending one listen never silences
// another (go-sdk v1.8.0 would: see listen.go), and it sends no answer to
// a request the client cancelled. A connection holds at most 256 listens
// open; the next is answered with -32603 naming the bound. Results that differ by principal (list,
// read and prompts/get, with a token file) or by client (tools/list, when
// -resource-blind names any) say cacheScope "private"; the others keep
// go-sdk's "public".
//
// # Figures
//
// With [Config.Figures] (a [FiguresStore]: package figures, SQLite), every
// session is counted under its client (clientInfo name and version, cut to
// 128 and 64 bytes; none: "unknown"): sessions, sessions that listed
// resources, sessions that read one, fetch_document calls, duplicate
// deliveries (a fetch_document of a URI the session already read or
// fetched), search_documents calls and links followed by a read. Counts are
// queued, never written on a request's path.
//
// Over the rolling window [Gate.Window]: read reach = reading sessions ÷
// sessions; list-without-read = listing sessions that never read ÷
// sessions (assuming every reading session listed: the figures count the
// reading sessions that did not, and /figures says whether the assumption
// holds); duplicate rate = duplicate deliveries ÷ fetch_document calls.
//
// The gate ([Gate.Decide]), re-derived in [New] and every [Gate.Every] by
// [Server.RunGate]: a client with at least [Gate.MinSessions] sessions gets
// fetch_document when its read reach is below [Gate.Reach] (mcphost's
// -gate-reach, 0.20), and loses it when its duplicate rate exceeds
// [Gate.Duplicates] (0.30; this rule wins) or its reach rises above
// Gate.Reach + [Hysteresis] (0.05). Fewer sessions: no change. Each change
// (and each client's first decision) is stored with the figures, the
// thresholds and the time; the latest decision per client is its state
// after a restart. [Config.ResourceBlind] names always get fetch_document,
// reported as "forced". [Server.FiguresHandler] serves it all as JSON or a
// page. docs/figures.md is the long form.
//
// # Principals
//
// A connection acts for a [Principal]: the teams it may read. Every door
// (list, template completion, search, subscribe, read, fetch) answers only
// from those teams, and a forbidden document gets the same answer, byte for
// byte, as a missing one. [ParseTokenFile] reads the -token-file format;
// without one, every connection is the local principal and reads every team.
//
// # Platforms
//
// The package is native only (its files are excluded from js/wasm builds).
// No URI can name a path outside the root. Give a folder as [Config.Dir], as
// mcphost does: its files are then read following no symlink on the path
// (openat2 RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH on Linux) and only when they
// are the file indexed (device and inode), so neither a symlink nor a swap
// between two scans reaches another team's folder or outside the root.
package docserver
