package bridge

import (
	stdjson "encoding/json"
	"strconv"
)

// The handshake's fast path, the list pages' (listdecode.go) for the
// initialize result, the server's capabilities and JSON-RPC error objects
// (a server that lacks a method the startup asks for answers with one). Why: in the page these
// were the first, and for most servers the only, users of encoding/json
// before the first listing, and a first use there costs more than the
// decoding: V8 compiles each of encoding/json's functions on its first call
// (62 functions, 133 KB of code in the startup trace) and its type caches
// are built (typeFields). Anything this path does not expect (a key with an
// escape or in another case, a repeated object key, a value of another
// type, icons) returns false, and the caller hands the whole value to
// encoding/json, which decides exactly as before and names what is wrong.
// FuzzInitializeFast holds every true answer to encoding/json's result.

var initializeKeys = []string{"protocolVersion", "capabilities", "serverInfo", "instructions"}

// decodeInitializeFast decodes raw, an initialize result, into res.
func decodeInitializeFast(raw []byte, res *InitializeResult) bool {
	seenInfo := false
	return fastObject(raw, func(k, v []byte) bool {
		switch {
		case keyIs(k, "protocolVersion"):
			return fastString(v, &res.ProtocolVersion)
		case keyIs(k, "capabilities"):
			res.RawCapabilities = stdjson.RawMessage(v) // null included, as encoding/json keeps it
			return true
		case keyIs(k, "serverInfo"):
			if seenInfo {
				return false // encoding/json merges a repeated object: let it
			}
			seenInfo = true
			return fastImplementation(v, &res.ServerInfo)
		case keyIs(k, "instructions"):
			return fastString(v, &res.Instructions)
		}
		return !hasEscape(k) && !foldsTo(k, initializeKeys...)
	})
}

var implementationKeys = []string{"name", "version", "title", "description", "icons", "websiteUrl"}

// fastImplementation decodes a serverInfo object; null leaves it as it is.
func fastImplementation(v []byte, im *Implementation) bool {
	if string(v) == "null" {
		return true
	}
	return fastObject(v, func(k, v []byte) bool {
		switch {
		case keyIs(k, "name"):
			return fastString(v, &im.Name)
		case keyIs(k, "version"):
			return fastString(v, &im.Version)
		case keyIs(k, "title"):
			return fastString(v, &im.Title)
		case keyIs(k, "description"):
			return fastString(v, &im.Description)
		case keyIs(k, "websiteUrl"):
			return fastString(v, &im.WebsiteURL)
		case keyIs(k, "icons"):
			return false // rare in a handshake: encoding/json decodes them
		}
		return !hasEscape(k) && !foldsTo(k, implementationKeys...)
	})
}

var capabilityKeys = []string{"resources", "tools", "prompts", "completions", "logging"}

// decodeCapabilitiesFast decodes raw, the capabilities object, into c.
func decodeCapabilitiesFast(raw []byte, c *ServerCapabilities) bool {
	var seen [5]bool
	once := func(i int) bool {
		if seen[i] {
			return false // a repeated object merges in encoding/json: let it
		}
		seen[i] = true
		return true
	}
	return fastObject(raw, func(k, v []byte) bool {
		null := string(v) == "null"
		switch {
		case keyIs(k, "resources"):
			if !once(0) {
				return false
			}
			if null {
				c.Resources = nil
				return true
			}
			var subscribe, listChanged bool
			if !fastFlags(v, &subscribe, &listChanged) {
				return false
			}
			c.Resources = &struct {
				Subscribe   bool `json:"subscribe,omitempty"`
				ListChanged bool `json:"listChanged,omitempty"`
			}{subscribe, listChanged}
			return true
		case keyIs(k, "tools"), keyIs(k, "prompts"):
			i, dst := 1, &c.Tools
			if keyIs(k, "prompts") {
				i, dst = 2, &c.Prompts
			}
			if !once(i) {
				return false
			}
			if null {
				*dst = nil
				return true
			}
			var listChanged bool
			if !fastFlags(v, nil, &listChanged) {
				return false
			}
			*dst = &struct {
				ListChanged bool `json:"listChanged,omitempty"`
			}{listChanged}
			return true
		case keyIs(k, "completions"), keyIs(k, "logging"):
			i, dst := 3, &c.Completions
			if keyIs(k, "logging") {
				i, dst = 4, &c.Logging
			}
			if !once(i) {
				return false
			}
			switch {
			case null:
				*dst = nil
			case v[0] == '{':
				*dst = &struct{}{} // its members match no field: skipped
			default:
				return false
			}
			return true
		}
		return !hasEscape(k) && !foldsTo(k, capabilityKeys...)
	})
}

// decodeCapabilities decodes raw capabilities (none when raw is empty) as
// encoding/json does, on the fast path when it can.
func decodeCapabilities(raw []byte, c *ServerCapabilities) error {
	if len(raw) == 0 || decodeCapabilitiesFast(raw, c) {
		return nil
	}
	*c = ServerCapabilities{}
	return stdjson.Unmarshal(raw, c)
}

// fastFlags decodes an object of the boolean members subscribe (when
// subscribe is not nil) and listChanged; null leaves a flag as it is.
func fastFlags(v []byte, subscribe, listChanged *bool) bool {
	known := []string{"listChanged"}
	if subscribe != nil {
		known = append(known, "subscribe")
	}
	return fastObject(v, func(k, v []byte) bool {
		var dst *bool
		switch {
		case keyIs(k, "listChanged"):
			dst = listChanged
		case subscribe != nil && keyIs(k, "subscribe"):
			dst = subscribe
		default:
			return !hasEscape(k) && !foldsTo(k, known...)
		}
		switch string(v) {
		case "true":
			*dst = true
		case "false":
			*dst = false
		case "null":
		default:
			return false
		}
		return true
	})
}

// fastObject walks the object d, validating it whole, and hands each
// member to field; false from field, or d not being one object, is false.
func fastObject(d []byte, field func(k, v []byte) bool) bool {
	i := skipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		return false
	}
	ok := true
	end, err := scanObject(d, i, 2, func(k []byte, vs, ve int) error {
		if ok {
			ok = field(k, d[vs:ve])
		}
		return nil
	})
	return err == nil && ok && checkEnd(d, end) == nil
}

var wireErrorKeys = []string{"code", "message", "data"}

// decodeWireErrorFast decodes raw, a JSON-RPC error object, into we.
func decodeWireErrorFast(raw []byte, we *wireError) bool {
	return fastObject(raw, func(k, v []byte) bool {
		switch {
		case keyIs(k, "code"):
			if string(v) == "null" {
				return true
			}
			n, err := strconv.ParseInt(string(v), 10, 64) // "1.0", "1e3": encoding/json's error
			if err != nil {
				return false
			}
			we.Code = n
			return true
		case keyIs(k, "message"):
			return fastString(v, &we.Message)
		case keyIs(k, "data"):
			we.Data = stdjson.RawMessage(v) // null included, as encoding/json keeps it
			return true
		}
		return !hasEscape(k) && !foldsTo(k, wireErrorKeys...)
	})
}
