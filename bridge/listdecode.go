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

// scanPage finds the item array and the raw nextCursor of a list result. ok
// is false when the result is not a plain object of that shape; the caller
// then uses encoding/json, which reports what is wrong.
func scanPage(raw []byte, field string) (items, cursor []byte, ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, nil, false
	}
	odd := false
	end, err := scanObject(raw, i, 1, func(k []byte, vs, ve int) error {
		switch {
		case keyIs(k, field):
			items = raw[vs:ve]
		case keyIs(k, "nextCursor"):
			cursor = raw[vs:ve]
		case hasEscape(k) || foldsTo(k, field, "nextCursor"):
			odd = true // encoding/json would match it; let it decide
		}
		return nil
	})
	if err != nil || odd || checkEnd(raw, end) != nil || len(items) == 0 || items[0] != '[' {
		return nil, nil, false
	}
	if cursor != nil && string(cursor) == "null" {
		cursor = nil
	}
	return items, cursor, true
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
