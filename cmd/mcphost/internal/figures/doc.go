// Package figures keeps the documents server's figures (sessions per
// client and what they did, the gate's evaluations and decisions) in an
// embedded SQLite database: modernc.org/sqlite, pure Go, no cgo.
//
//	st, err := figures.Open(path, log) // "" is an in-memory database
//	defer st.Close()
//	s, err := docserver.New(docserver.Config{..., Figures: st, Gate: g})
//
// [Store] implements docserver.FiguresStore. This is the only package
// that imports SQLite, so that no other package's tests or fuzz builds link
// it (measured: +24 s of CPU to a cold build of mcphost, minutes of wall time
// on a loaded machine, and +9.7 MB to the binary; docs/figures.md).
//
// # Writes
//
// Record never waits for the disk: events go to a bounded queue that one
// goroutine writes in batches (a transaction every 250 ms or 512 events),
// so a resources/read's latency includes no disk write. A full queue drops
// the event and counts it. Reads of the figures write the queue first.
//
// # Schema
//
// The schema is versioned (PRAGMA user_version) and migrated forward at
// Open; a file written by a newer mcphost is refused with both versions
// named, and a file that cannot be written fails Open with the reason.
//
// # Platforms
//
// Native only: every file but this one is excluded from js/wasm builds.
package figures
