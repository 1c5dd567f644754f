package bridge

import (
	stdjson "encoding/json"
	"strconv"
	"strings"
)

// The list pages' fast path. A page is split with the validating scanner
// (fastjson.go) and resource and template descriptors are decoded field by
// field; anything the fast path does not expect (a key with an escape or in
// another case, a value of the wrong type, a fraction where an integer
// belongs) sends that one entry to encoding/json, which decides exactly as
// before and names what is wrong. Measured natively on a 100-entry page:
// encoding/json alone 735 µs, segmentio 108 µs (which the module no longer
// links: ~135 KB brotli with go-sdk's jsonrpc), this path — see
// BenchmarkListPageDecode.

// scanPage finds the item array, the bounds of its items and the raw
// nextCursor of a list result, validating the whole result in one pass
// (the items are not scanned again to be found). ok is false when the
// result is not a plain object of that shape; the caller then uses
// encoding/json, which reports what is wrong.
func scanPage(raw []byte, field string) (items [][]byte, array, cursor []byte, ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, nil, nil, false
	}
	odd := false
	end, err := scanMembers(raw, i, func(k []byte, vs int) (int, error) {
		if !keyIs(k, field) || raw[vs] != '[' {
			ve, err := skipValue(raw, vs, 1)
			switch {
			case err != nil:
			case keyIs(k, field):
				array = raw[vs:ve] // not an array: refused below
			case keyIs(k, "nextCursor"):
				cursor = raw[vs:ve]
			case hasEscape(k) || foldsTo(k, field, "nextCursor"):
				odd = true // encoding/json would match it; let it decide
			}
			return ve, err
		}
		// The item array (the last one counts, as in encoding/json):
		// skipValue's scanArray at its depth, keeping each item's bounds.
		items = items[:0]
		ve, err := scanArray(raw, vs, 2, func(_, s, e int) error {
			items = append(items, raw[s:e])
			return nil
		})
		if err == nil {
			array = raw[vs:ve]
		}
		return ve, err
	})
	if err != nil || odd || checkEnd(raw, end) != nil || len(array) == 0 || array[0] != '[' {
		return nil, nil, nil, false
	}
	if cursor != nil && string(cursor) == "null" {
		cursor = nil
	}
	return items, array, cursor, true
}

// scanMembers is scanObject for a caller that scans each member's value
// itself: value gets the raw key and where the value starts, and returns
// where it ends (scanObject(d, i, 1, fn) when value is skipValue(d, vs, 1)).
func scanMembers(d []byte, i int, value func(key []byte, vs int) (int, error)) (int, error) {
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	for {
		i = skipWS(d, i)
		if i >= len(d) || d[i] != '"' {
			return 0, errSyntax
		}
		ke, _, err := scanString(d, i)
		if err != nil {
			return 0, err
		}
		key := d[i:ke]
		i = skipWS(d, ke)
		if i >= len(d) || d[i] != ':' {
			return 0, errSyntax
		}
		vs := skipWS(d, i+1)
		if vs >= len(d) {
			return 0, errSyntax
		}
		ve, err := value(key, vs)
		if err != nil {
			return 0, err
		}
		i = skipWS(d, ve)
		if i >= len(d) {
			return 0, errSyntax
		}
		switch d[i] {
		case ',':
			i++
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// foldsTo reports whether the raw key k equals one of names ignoring case
// (encoding/json matches struct fields that way).
func foldsTo(k []byte, names ...string) bool {
	name := string(k[1 : len(k)-1])
	for _, n := range names {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// fastItem decodes one list entry on the fast path when T has one; false
// means "use encoding/json for this entry".
func fastItem[T any](d []byte, v *T) bool {
	switch p := any(v).(type) {
	case *Resource:
		return decodeResourceFast(d, p)
	case *ResourceTemplate:
		return decodeTemplateFast(d, p)
	}
	return false
}

// hasFastItem reports whether T has a fast decoder.
func hasFastItem[T any]() bool {
	var v T
	switch any(&v).(type) {
	case *Resource, *ResourceTemplate:
		return true
	}
	return false
}

var resourceKeys = []string{"uri", "name", "title", "description", "mimeType", "size", "icons", "annotations", "_meta"}

func decodeResourceFast(d []byte, r *Resource) bool {
	return decodeDescriptor(d, func(k, v []byte) bool {
		switch {
		case keyIs(k, "uri"):
			return fastString(v, &r.URI)
		case keyIs(k, "size"):
			return fastInt(v, &r.Size)
		}
		return commonField(k, v, &r.Name, &r.Title, &r.Description, &r.MIMEType, &r.Icons, &r.Annotations, &r.Meta, resourceKeys)
	})
}

var templateKeys = []string{"uriTemplate", "name", "title", "description", "mimeType", "icons", "annotations", "_meta"}

func decodeTemplateFast(d []byte, t *ResourceTemplate) bool {
	return decodeDescriptor(d, func(k, v []byte) bool {
		if keyIs(k, "uriTemplate") {
			return fastString(v, &t.URITemplate)
		}
		return commonField(k, v, &t.Name, &t.Title, &t.Description, &t.MIMEType, &t.Icons, &t.Annotations, &t.Meta, templateKeys)
	})
}

// decodeDescriptor walks the object d (already validated by scanPage) and
// hands each member to field; false from field stops the fast path.
func decodeDescriptor(d []byte, field func(k, v []byte) bool) bool {
	if len(d) == 0 || d[0] != '{' {
		return false
	}
	ok := true
	_, err := scanObject(d, 0, 3, func(k []byte, vs, ve int) error {
		if ok {
			ok = field(k, d[vs:ve])
		}
		return nil
	})
	return err == nil && ok
}

// commonField decodes the members resources and templates share. A key
// this decoder does not know is skipped, as encoding/json skips it, unless
// it would match a known one case-insensitively or after unescaping.
func commonField(k, v []byte, name, title, desc, mime *string, icons *[]Icon, ann **Annotations, meta *stdjson.RawMessage, known []string) bool {
	switch {
	case keyIs(k, "name"):
		return fastString(v, name)
	case keyIs(k, "title"):
		return fastString(v, title)
	case keyIs(k, "description"):
		return fastString(v, desc)
	case keyIs(k, "mimeType"):
		return fastString(v, mime)
	case keyIs(k, "icons"):
		return stdjson.Unmarshal(v, icons) == nil
	case keyIs(k, "annotations"):
		return stdjson.Unmarshal(v, ann) == nil
	case keyIs(k, "_meta"):
		if string(v) == "null" {
			*meta = nil
		} else {
			*meta = stdjson.RawMessage(v)
		}
		return true
	}
	return !hasEscape(k) && !foldsTo(k, known...)
}

// fastString sets *dst from a JSON string; null leaves it unchanged (as
// encoding/json does); any other type is for encoding/json to report.
func fastString(v []byte, dst *string) bool {
	switch v[0] {
	case '"':
		_, esc, _ := scanString(v, 0)
		*dst = decodeString(v, esc)
		return true
	case 'n':
		return true
	}
	return false
}

// fastInt sets *dst from a JSON integer; null sets it to nil.
func fastInt(v []byte, dst **int64) bool {
	if string(v) == "null" {
		*dst = nil
		return true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return false
	}
	*dst = &n
	return true
}
