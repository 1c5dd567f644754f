package bridge

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// slowPage decodes a page's entries the way the client did before the fast
// path: encoding/json entry by entry, then the same validation.
func slowPage[T any](t *testing.T, array []byte, valid func(*T) error) (good []T, bad int) {
	var items []json.RawMessage
	if err := json.Unmarshal(array, &items); err != nil {
		t.Fatalf("the scanner accepted an array encoding/json rejects: %v", err)
	}
	for _, it := range items {
		var v T
		if err := json.Unmarshal(it, &v); err != nil || valid(&v) != nil {
			bad++
			continue
		}
		good = append(good, v)
	}
	return good, bad
}

// normMeta treats "_meta": null as absent (the fast path drops it; the
// type's users never see the difference).
func normMeta(m json.RawMessage) json.RawMessage {
	if string(m) == "null" {
		return nil
	}
	return m
}

func checkPage(t *testing.T, raw []byte) {
	if items, array, _, ok := scanPage(raw, "resources"); ok {
		sameItems(t, raw, array, items)
		samePage(t, raw, array, items, validResource, func(r *Resource) *json.RawMessage { return &r.Meta })
	}
	if items, array, _, ok := scanPage(raw, "resourceTemplates"); ok {
		sameItems(t, raw, array, items)
		samePage(t, raw, array, items, validTemplate, func(r *ResourceTemplate) *json.RawMessage { return &r.Meta })
	}
}

// sameItems fails unless the items scanPage kept are the array's items.
func sameItems(t *testing.T, raw, array []byte, items [][]byte) {
	t.Helper()
	var want [][]byte
	if _, err := scanArray(array, 0, 1, func(_, vs, ve int) error {
		want = append(want, array[vs:ve])
		return nil
	}); err != nil {
		t.Fatalf("page %s: scanPage kept an array the scanner refuses: %v", raw, err)
	}
	if len(items) != len(want) {
		t.Fatalf("page %s: scanPage kept %d items, the array has %d", raw, len(items), len(want))
	}
	for i := range want {
		if string(items[i]) != string(want[i]) {
			t.Fatalf("page %s: item %d is %s, want %s", raw, i, items[i], want[i])
		}
	}
}

// samePage fails when the fast path and encoding/json disagree on a page.
func samePage[T any](t *testing.T, raw, array []byte, items [][]byte, valid func(*T) error, meta func(*T) *json.RawMessage) {
	good, bad := decodePage(array, items, "list", 1, valid)
	want, wantBad := slowPage(t, array, valid)
	for _, s := range [][]T{good, want} {
		for i := range s {
			*meta(&s[i]) = normMeta(*meta(&s[i]))
		}
	}
	if len(bad) != wantBad || !reflect.DeepEqual(nilIfEmpty(good), nilIfEmpty(want)) {
		t.Fatalf("page %s:\nfast %#v (%d bad)\nslow %#v (%d bad)", raw, good, len(bad), want, wantBad)
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestListPageFastPath pins the fast path to encoding/json's decisions on
// the shapes that must leave it (each row is one reason).
func TestListPageFastPath(t *testing.T) {
	for _, page := range []string{
		`{"resources":[{"uri":"a://1","name":"one","title":"T","description":"d","mimeType":"text/plain","size":12}]}`,
		`{"resources":[{"uri":"a://\u00e9","name":"esc\n"}],"nextCursor":"c"}`,
		`{"resources":[{"URI":"a://case","name":"folded key"}]}`,
		`{"resources":[{"ur\u0069":"a://escaped-key","name":"n"}]}`,
		`{"resources":[{"uri":"a://1","name":"n","size":1.5}]}`,
		`{"resources":[{"uri":"a://1","name":"n","size":"12"}]}`,
		`{"resources":[{"uri":"a://1","name":"n","size":null,"title":null}]}`,
		`{"resources":[{"uri":5,"name":"n"},{"uri":"a://ok","name":"n"}]}`,
		`{"resources":[{"uri":"a://1","name":"n","icons":[{"src":"data:image/png;base64,AA=="}],"annotations":{"priority":0.5,"audience":["user"]}}]}`,
		`{"resources":[{"uri":"a://1","name":"n","icons":"bad"}]}`,
		`{"resources":[{"uri":"a://1","name":"n","_meta":{"k":[1,2]}},{"uri":"a://2","name":"m","_meta":null}]}`,
		`{"resources":[{"uri":"a://1","name":"n","uri":"a://dup"}]}`,
		`{"resources":[{"uri":"","name":"missing uri"},{"uri":"a://x"},7,null,"s"]}`,
		`{"resourceTemplates":[{"uriTemplate":"a://{x}","name":"t","mimeType":"text/plain"},{"uriTemplate":"","name":"bad"}]}`,
		`{"resources":[{"uri":"a://1","name":"n","unknown":{"deep":[[[1]]]}}]}`,
		`{"resources":[{"uri":"a://first","name":"n"}],"resources":[{"uri":"a://last","name":"n"},{"uri":"a://2","name":"m"}]}`,
		`{"resources":[{"uri":"a://first","name":"n"}],"resources":[]}`,
		`{"resources":[{"uri":"a://first","name":"n"}],"resources":{"uri":"a://obj"}}`,
		`{"resources":"x","resources":[{"uri":"a://arr","name":"n"}]}`,
		`{"resources": [ ] , "nextCursor" : null }`,
		`{"resources":[{"uri":"a://1","name":"n"}],"resources":`,
	} {
		t.Run(page, func(t *testing.T) { checkPage(t, []byte(page)) })
	}
}

// FuzzListPage checks that the fast path decodes every page exactly as
// encoding/json would, entry for entry.
func FuzzListPage(f *testing.F) {
	f.Add([]byte(`{"resources":[{"uri":"a://1","name":"one","size":3}],"nextCursor":"x"}`))
	f.Add([]byte(`{"resourceTemplates":[{"uriTemplate":"a://{x}","name":"t"}]}`))
	f.Add([]byte(`{"resources":[{"uri":"a://1","Name":"n","icons":[{"src":"x","sizes":["1x1"]}]}]}`))
	for i := range 3 {
		f.Add([]byte(fmt.Sprintf(`{"resources":[{"uri":"a://%d","name":"n\u%04x","_meta":null}]}`, i, 0xd800+i)))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkPage(t, raw) })
}
