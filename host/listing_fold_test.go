package host

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcphost/mcphost/attach"
)

// TestListingFoldsIndexAfter: the first listing hands its descriptors over
// before the picker index folds them (AddResourcesLater), and the host
// folds them in the background without a query asking (one that comes
// first folds them itself: attach's TestIndexLaterMatchesEager).
func TestListingFoldsIndexAfter(t *testing.T) {
	f := newFake()
	for i := range 1200 {
		f.docs[fmt.Sprintf("mem://doc/%04d", i)] = &fakeDoc{ver: 1, exists: true}
	}
	h, err, _ := connectScripted(t, &scripted{f: f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rs, _, err := h.Resources(ctx)
	if err != nil || len(rs) != 1200 {
		t.Fatalf("listed %d, err %v", len(rs), err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.index.FoldPending(0) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d descriptors still unfolded", h.index.FoldPending(0))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := h.index.Len(); n != 1200 {
		t.Fatalf("index holds %d", n)
	}
	if got := h.Mention("doc 0042", attach.QueryOptions{Limit: 3}); len(got) == 0 || got[0].Resource.URI != "mem://doc/0042" {
		t.Fatalf("query after the fold: %+v", got)
	}
}
