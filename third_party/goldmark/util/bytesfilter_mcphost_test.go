package util

import (
	"strings"
	"sync"
	"testing"
)

// The lazy filters (mcphost) answer as upstream's eager ones, are not built
// until first used, and are built once when first used from several
// goroutines.
func TestLazyBytesFilter(t *testing.T) {
	const base, more = "accesskey,class,id,lang,style,title", "cite,href,rel"
	lazy := NewBytesFilterString(base)
	if l := lazy.(*lazyBytesFilter); l.f != nil {
		t.Fatal("built at construction")
	}
	ext := lazy.ExtendString(more)
	if l := lazy.(*lazyBytesFilter); l.f != nil {
		t.Fatal("ExtendString built its parent")
	}
	eager := newBytesFilterString(base)
	eagerExt := eager.ExtendString(more)
	probes := append(strings.Split(base+","+more, ","), "", "a", "ac", "acc", "accesskeys", "clas", "hrefx", "data-x", "ID")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range probes {
				if got, want := lazy.Contains([]byte(p)), eager.Contains([]byte(p)); got != want {
					t.Errorf("lazy %q: %v, eager %v", p, got, want)
				}
				if got, want := ext.Contains([]byte(p)), eagerExt.Contains([]byte(p)); got != want {
					t.Errorf("extended lazy %q: %v, eager %v", p, got, want)
				}
			}
		}()
	}
	wg.Wait()
	if ext.Contains([]byte("cite")) == false || lazy.Contains([]byte("cite")) {
		t.Error("ExtendString changed its parent, or did not extend")
	}
	lazy.Add([]byte("draggable"))
	if !lazy.Contains([]byte("draggable")) || ext.Contains([]byte("draggable")) {
		t.Error("Add: the filter lacks the element, or a filter extended before it has it")
	}
	if e := lazy.Extend([]byte("x-y")); !e.Contains([]byte("x-y")) || !e.Contains([]byte("class")) || lazy.Contains([]byte("x-y")) {
		t.Error("Extend of a lazy filter")
	}
}
