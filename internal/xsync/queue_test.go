package xsync

import (
	"sync"
	"testing"
)

func TestQueueOrderAndClose(t *testing.T) {
	q := NewQueue()
	var got []int
	var mu sync.Mutex
	done := make(chan struct{})
	go func() { q.Run(); close(done) }()
	for i := range 1000 {
		q.Push(func() { mu.Lock(); got = append(got, i); mu.Unlock() })
	}
	q.Close()
	q.Push(func() { t.Error("ran after Close") })
	<-done
	if len(got) != 1000 {
		t.Fatalf("%d ran; want 1000", len(got))
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("out of order at %d: %d", i, v)
		}
	}
}
