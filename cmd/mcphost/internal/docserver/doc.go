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
// (resource links), and, for the clients named in [Config.ResourceBlind],
// fetch_document.
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
// No URI can name a path outside the root; give a folder as an os.Root's FS,
// as mcphost does, so that no symlink reaches outside it either.
package docserver
