package bridge

import "strconv"

// ProbeResponseID finds the top-level "id" of a frame that did not decode
// (a number or a string, as it appears on the wire), scanning with the
// parser's depth bound: a relay uses it to answer the request whose answer
// it cannot pass on, rather than let the call wait for its timeout. A frame
// cut short (the first bytes of one over a limit) still yields an id that
// comes before the part cut off. ok is false when no id is found.
func ProbeResponseID(data []byte) (id []byte, ok bool) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	scanObject(data, i, 1, func(key []byte, vs, ve int) error {
		if keyIs(key, "id") && ve > vs {
			id = data[vs:ve]
		}
		return nil
	})
	if len(id) == 0 {
		return nil, false
	}
	if id[0] == '"' {
		if _, err := strconv.Unquote(string(id)); err != nil {
			return nil, false
		}
		return id, true
	}
	if _, err := strconv.ParseInt(string(id), 10, 64); err != nil {
		return nil, false
	}
	return id, true
}
