// Package blob keeps a binary payload where it arrived.
//
// In the browser a resources/read answer is a JavaScript string. Copying a
// 2.4 MB frame into the module's linear memory, decoding its base64 in Go and
// copying the bytes back out cost an image read ~3× the time the WebSocket
// needed to deliver it, and a 10 MB blob grew the page by 3.6× the message
// (docs/bench-history.md). So web/socket.js decodes a large "blob" of a
// resources/read answer itself (Uint8Array.fromBase64, strict), keeps the
// bytes in JavaScript, and hands Go the frame with the blob replaced by a
// token, plus a [Ref] per token: the size, the ledger's digest ([Hash],
// computed in JavaScript with the same seeds) and a way to copy any prefix
// of the bytes (sniffing and image header checks need the first bytes only).
//
// A Ref is offered by the socket that took its frame ([Offer]) and claimed
// by the decoder of that frame's result ([Claim]); a token that was never
// offered (a server cannot guess the per-socket nonce in it) claims nothing
// and stays what it is: a string that is not base64. Whoever holds a claimed
// Ref releases it ([Ref.Release]) when the part it belongs to leaves the
// context; a Ref nobody released is released when Go collects it.
//
// Natively (tests, the gateway) there is no JavaScript: [Hold] makes a Ref
// over Go bytes, so every path that handles a Ref is tested with go test.
package blob
