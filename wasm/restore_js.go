package main

import (
	"context"
	"encoding/json"
	"errors"
	"syscall/js"

	"github.com/mcphost/mcphost/bridge"
	"github.com/mcphost/mcphost/host"
)

// Workspace restore (host.snapshot, host.restore, host.replace and the
// restored event): the host decides, this file only converts. Digests come
// from the page's WebCrypto, so crypto/sha256 is not linked into the module.

// restoreOp(..., op, ...args) is host.snapshot ("snapshot", includeContent),
// host.restore ("restore", snapshotJSON) and host.replace ("replace",
// oldURI, newURI).
func (a *api) restoreOp(ctx context.Context, h *host.Host, id int, args []js.Value) (js.Value, error) {
	rest := args[min(1, len(args)):]
	switch strArg(args, 0) {
	case "snapshot":
		return a.snapshot(ctx, h, id, rest)
	case "restore":
		return a.restore(ctx, h, id, rest)
	case "replace":
		return a.replace(ctx, h, id, rest)
	}
	return js.Undefined(), protocolError("bad call: unknown restore operation")
}

// snapshot(..., includeContent) returns the snapshot as a plain object.
func (a *api) snapshot(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	s, err := h.Snapshot(ctx, &host.SnapshotOptions{IncludeContent: len(args) > 0 && args[0].Truthy()})
	if err != nil {
		return js.Undefined(), err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return js.Undefined(), err
	}
	return parseJSON(b), nil
}

// restore(..., snapshotJSON) resolves with one result per URI.
func (a *api) restore(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	s, err := host.ParseSnapshot([]byte(strArg(args, 0)))
	if err != nil {
		return js.Undefined(), err
	}
	rs, err := h.Restore(ctx, s)
	if err != nil {
		return js.Undefined(), err
	}
	return resultsValue(rs), nil
}

// replace(..., oldURI, newURI) resolves with the new document's parts.
func (a *api) replace(ctx context.Context, h *host.Host, _ int, args []js.Value) (js.Value, error) {
	atts, err := h.Replace(ctx, strArg(args, 0), strArg(args, 1))
	if err != nil {
		return js.Undefined(), err
	}
	return attachmentsValue(atts), nil
}

// resultsValue converts restore results: {uri, outcome, parts?, error?,
// suggestions?, suggestionsIncomplete?}; errors as errValue objects, which
// mcphost.js turns into MCPErrors.
func resultsValue(rs []host.RestoreResult) js.Value {
	out := jsArray.New(len(rs))
	for i := range rs {
		r := &rs[i]
		o := jsObject.New()
		o.Set("uri", r.URI)
		o.Set("outcome", r.Outcome)
		if r.Parts != nil {
			o.Set("parts", attachmentsValue(r.Parts))
		}
		if r.Err != nil {
			o.Set("error", errValue(r.Err))
		}
		if r.Outcome == host.OutcomeGone {
			ss := jsArray.New(len(r.Suggestions))
			for j, s := range r.Suggestions {
				so := jsObject.New()
				so.Set("uri", s.Resource.URI)
				so.Set("name", s.Resource.Name)
				if s.Resource.Title != "" {
					so.Set("title", s.Resource.Title)
				}
				if s.Resource.MIMEType != "" {
					so.Set("mimeType", s.Resource.MIMEType)
				}
				so.Set("score", s.Score)
				ss.SetIndex(j, so)
			}
			o.Set("suggestions", ss)
			if r.SuggestionsIncomplete {
				o.Set("suggestionsIncomplete", true)
			}
		}
		out.SetIndex(i, o)
	}
	return out
}

// webCryptoDigest is the host's digest hook in the page: SHA-256 by
// crypto.subtle.digest, the calling goroutine (a host call's, never the
// event loop's) parked until the promise settles, which it always does.
func webCryptoDigest(_ context.Context, data []byte) (string, error) {
	subtle := js.Global().Get("crypto")
	if subtle.Type() == js.TypeObject {
		subtle = subtle.Get("subtle")
	}
	if subtle.Type() != js.TypeObject {
		return "", &bridge.Error{Kind: bridge.KindUnsupported, Message: "WebCrypto (crypto.subtle) is unavailable here: snapshots need a secure context (https, or http on localhost)"}
	}
	type answer struct {
		sum []byte
		err error
	}
	ch := make(chan answer, 1)
	ok := js.FuncOf(func(_ js.Value, args []js.Value) any {
		u := jsUint8Array.New(args[0])
		b := make([]byte, u.Length())
		js.CopyBytesToGo(b, u)
		ch <- answer{sum: b}
		return nil
	})
	fail := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- answer{err: errors.New("crypto.subtle.digest: " + js.Global().Get("String").Invoke(args[0]).String())}
		return nil
	})
	defer ok.Release()
	defer fail.Release()
	u := jsUint8Array.New(len(data))
	js.CopyBytesToJS(u, data)
	if err := digestCall(subtle, u, ok, fail); err != nil {
		return "", err
	}
	r := <-ch
	if r.err != nil {
		return "", r.err
	}
	const hexDigits = "0123456789abcdef"
	s := make([]byte, 0, 2*len(r.sum))
	for _, c := range r.sum {
		s = append(s, hexDigits[c>>4], hexDigits[c&15])
	}
	return string(s), nil
}

// digestCall starts crypto.subtle.digest, a synchronous exception (a
// TypeError) returned as an error.
func digestCall(subtle, data js.Value, ok, fail js.Func) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &bridge.Error{Kind: bridge.KindUnsupported, Message: "crypto.subtle.digest failed"}
		}
	}()
	subtle.Call("digest", "SHA-256", data).Call("then", ok, fail)
	return nil
}
