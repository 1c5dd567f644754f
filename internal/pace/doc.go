// Package pace gives the browser's main thread back to the page while Go
// works through a backlog.
//
// Go under js/wasm runs on the page's main thread and returns to the event
// loop only when every goroutine is blocked. A listing whose pages are
// already queued (mcphost.js asks for each next page while the module
// loads, and goes on asking as each answer's event runs) was decoded and
// indexed in one task: in cold-start traces one task of 69 ms held the
// answer to the next page the whole time, so the page after it was not
// even asked for until the task ended (docs/bench-history.md, "Startup, stop 33").
//
// [Yield] ends the current task once Go has held it for [Slice] since it
// was last [Resumed] from a task of the page's own: the page's queued
// events run (the glue asks for the next page, the page paints), then Go
// goes on from a MessageChannel task. Natively both are no-ops.
package pace

import "time"

// Slice is how long Go may hold one task of the page before Yield gives
// it back (the socket reader's batch slice is the same).
const Slice = 8 * time.Millisecond
