// Package attach turns the contents of a resources/read (and the embedded
// resources of tool results) into attachments that a chat model can safely
// receive and a host page can safely show. It is pure Go, tested natively,
// and compiled into the mcphost wasm module.
//
// Nothing here fails silently. A read's "contents" becomes one [Attachment]
// per part, in order; a part that cannot be used stands in its place as an
// error attachment naming its URI and index, and never hides the others:
//
//	atts, err := attach.FromReadResult(rawResult, nil) // err: result unusable as a whole
//	for _, a := range atts {
//		switch a.Kind {
//		case attach.KindError:   // a.Error.Code, a.Error.Message
//		case attach.KindText:    // a.Text, a.HTML (Markdown), a.Tokens
//		case attach.KindBinary:  // a.Bytes, a.ForwardAsImage, a.MIMEType
//		}
//	}
//
// [FromContents] does the same from already decoded [Contents].
//
// # Types
//
// Every part carries three media types. DeclaredMIMEType is what the server
// said ("" when it said nothing). SniffedMIMEType is what
// github.com/gabriel-vasile/mimetype finds in the bytes. MIMEType is the
// effective type: the sniffed type when the bytes contradict the
// declaration (with a warning such as "declared image/png, but the bytes are
// image/jpeg"), the more specific of the two when they agree, and the
// declaration when the sniffer knows nothing specific. The URI's extension
// is never consulted. An image goes to the model (ForwardAsImage) only when
// its sniffed type is in [Options.AcceptImages] and its header checks out:
// mimetype decides from a magic number alone, so the bytes must also parse
// as far as a decoder needs to start (PNG's IHDR with its CRC, JPEG's frame
// header however much EXIF precedes it, GIF's screen descriptor, WebP's
// RIFF size and VP8/VP8L/VP8X header) and declare non-zero dimensions of at
// most 65,535 per side and 2^27 pixels. A part that fails becomes bytes of
// type application/octet-stream with a warning naming the defect ("not a
// valid image/png: PNG signature but no valid IHDR chunk; not forwarded as
// an image"). No pixel is decoded. An accepted type the package has no
// check for is not forwarded. SVG never is.
//
// # Markdown
//
// text/markdown parts get HTML from [RenderMarkdown]: GFM with raw HTML
// dropped, a scheme allowlist on every URL, rel="noopener noreferrer
// nofollow" on links, and remote images turned into links unless
// [Options.RemoteImages]. The output is meant for innerHTML; under Trusted
// Types, wrap it in a policy that passes it through unchanged.
//
// A linear pre-scan runs first. A document nesting lists, block quotes,
// emphasis or brackets more than 100 levels deep (which would overflow the
// browser's stack inside the module), or one on which goldmark would do
// superlinear work (unclosed link destinations, unmatched emphasis
// delimiters, thousands of reference definitions in one paragraph), is not
// rendered: HTML is its escaped text in a <pre> and a warning says why.
//
// # Suggestions
//
// [Suggest] ranks listed descriptors against one that is gone (a restored
// conversation names a document the server renamed): by word overlap of
// titles, names and last URI segments, compounds and prefixes included,
// and by shared folders, top [MaxSuggestions] with a score, none below
// [MinSuggestionScore]. The picker's subsequence matcher only breaks ties:
// a rename that changes letters ("on-call-escalation" to
// "oncall-escalation-policy") defeats it.
//
// # Limits
//
// Parts over [Options.MaxPartBytes] (20 MiB decoded) and parts that would
// take a read over [Options.MaxReadBytes] (48 MiB) become CodeTooLarge
// errors suggesting a resource_link. Sizes are computed from the base64
// length (4·⌈n/3⌉) before anything is decoded.
//
// # Picker and templates
//
// [Index] is the engine of the @-mention picker: ranked fuzzy matching over
// name, title, URI and description with UTF-16 highlight ranges, updated
// incrementally on list_changed. [Expand] expands RFC 6570 URI templates
// with the path-safety rules the picker needs; [TemplateVars] lists their
// variables.
//
// # MCP Apps
//
// A part that is an MCP App view ([IsMCPApp]: a ui:// URI, or text/html
// with profile=mcp-app) is marked MCPApp, keeps its full declared type as
// MIMEType when the bytes are HTML, and its _meta.ui in UI ([UIMeta]).
// Keeping it from the model is the host's policy (Withheld).
//
// # Browser
//
// Under GOOS=js the package behaves the same; it imports no syscall/js and
// not the go-sdk mcp package (wasm size). Markdown rendering of a 1 MB
// document takes about half a second in a browser (much less natively), and
// the pre-scan bounds nesting and the shapes it knows, not time. So
// [Options.Markdown] lets the caller render elsewhere: the wasm module
// renders in a Web Worker the page terminates past a time budget, and
// [DefaultMarkdown] is what runs there. A renderer that fails leaves the
// part its escaped text in a <pre>, with the error as a warning.
//
// # Caveats
//
// A go-sdk server cannot send an empty text document ("text": "" is
// dropped by omitempty), so such a part arrives with neither payload and is
// reported as CodeNeitherPayload. Tokens is an estimate (UTF-8 bytes / 4),
// not a tokenizer. State and forModel belong to the freshness engine.
package attach
