package util

import "sync"

//go:generate go run ../_tools unicode-case-folding-map -o ../_tools/unicode-case-folding-map.json
//go:generate go run ../_tools emb-structs -i ../_tools/unicode-case-folding-map.json -o ./unicode_case_folding.gen.go

// unicodeCaseFoldings is built on first use (mcphost: upstream builds it in
// package init, ~2 ms and 82 KB in every wasm instance that never folds a
// link label). A sync.Once: sync.OnceValue's generic instance cost 5 KB
// of module.
var (
	caseFoldOnce sync.Once
	caseFoldMap  map[rune][]rune
)

func unicodeCaseFoldings() map[rune][]rune {
	caseFoldOnce.Do(buildCaseFoldings)
	return caseFoldMap
}

func buildCaseFoldings() {
	m := make(map[rune][]rune, _unicodeCaseFoldingLength)
	cTo := 0
	for i := range _unicodeCaseFoldingLength {
		tTo := cTo + int(_unicodeCaseFoldingToIndex[i])
		to := _unicodeCaseFoldingTo[cTo:tTo]
		m[_unicodeCaseFoldingFrom[i]] = to
		cTo = tTo
	}
	caseFoldMap = m
}
