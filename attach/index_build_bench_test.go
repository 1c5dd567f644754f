package attach

import "testing"

// BenchmarkIndexListing is the startup row's index work: the bench peer's
// 1,000 descriptors added to a new index in pages of 100, as the listing
// streams them.
func BenchmarkIndexListing(b *testing.B) {
	rs := benchPeerResources(1000)
	b.ReportAllocs()
	for b.Loop() {
		x := NewIndex()
		for off := 0; off < len(rs); off += 100 {
			x.AddResources(rs[off : off+100]...)
		}
	}
}

// BenchmarkIndexListingLater is BenchmarkIndexListing with the pages added
// later (what the listing itself pays) and then folded in pieces.
func BenchmarkIndexListingLater(b *testing.B) {
	rs := benchPeerResources(1000)
	b.ReportAllocs()
	for b.Loop() {
		x := NewIndex()
		for off := 0; off < len(rs); off += 100 {
			x.AddResourcesLater(rs[off : off+100]...)
		}
		for x.FoldPending(500) > 0 {
		}
	}
}
