package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"syscall/js"
	"testing"
	"time"
)

// TestRenderCollectsAfterJob: a render job answers its HTML without
// collecting on the way (the collection would delay the answer), and the
// Worker's heap is collected from a later task.
func TestRenderCollectsAfterJob(t *testing.T) {
	// As in renderMain: the Worker collects only at the memory limit.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	src := strings.Repeat("# Title\n\nSome *text* with a [link](https://example.com/).\n\n", 2000)
	var before, after, later runtime.MemStats
	runtime.ReadMemStats(&before)
	out := renderCall([]js.Value{js.ValueOf(src), js.ValueOf("bench://doc.md"), js.ValueOf(false)}).(js.Value)
	runtime.ReadMemStats(&after)
	if e := out.Index(2); !e.IsNull() {
		t.Fatalf("render error: %v", e)
	}
	html := out.Index(0)
	if n := html.Length(); n < len(src) {
		t.Fatalf("HTML is %d bytes for a %d-byte document", n, len(src))
	}
	head := make([]byte, 5)
	js.CopyBytesToGo(head, html)
	if string(head) != "<h1 i" && string(head) != "<h1>T" {
		t.Errorf("HTML starts %q, want a heading", head)
	}
	if after.NumGC != before.NumGC {
		t.Errorf("%d collection(s) ran inside the job: the answer waited for them", after.NumGC-before.NumGC)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		time.Sleep(10 * time.Millisecond) // a timer: the event loop runs meanwhile
		runtime.ReadMemStats(&later)
		if later.NumGC > after.NumGC {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no collection after the job")
		}
	}
}
