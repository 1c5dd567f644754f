//go:build !js

package pace

import "context"

// Resumed records that Go was entered from a task of the page's own; natively
// there is no page.
func Resumed() {}

// Yield returns at once: natively nothing holds a page's thread.
func Yield(context.Context) {}
