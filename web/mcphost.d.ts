// Types of web/mcphost.js, the JavaScript API of mcphost: an MCP host for web
// chat frontends, running as Go compiled to WebAssembly. One ES module, no
// build step:
//
//   import { connect, MCPError } from "./mcphost.js"
//   const host = await connect("ws://127.0.0.1:8080/mcp", { clientInfo: { name: "my-chat", version: "1.0" } })
//   host.addEventListener("updated", e => render(e.detail.uri, e.detail.parts))
//   const parts = await host.attach("docs://team/platform/onboarding/welcome.md")
//
// The module loads wasm_exec.js and mcphost.wasm (both next to it, or
// options.wasmUrl) once per page; every host shares that one Go instance and
// has its own connection and context. Markdown is rendered in a Worker
// (render-worker.js, next to mcphost.js) running the same compiled module. See docs/embedding.md for the
// Content-Security-Policy a page needs and for Trusted Types.

/** Connects to an MCP server over WebSocket (subprotocol "mcp"), initializes,
 * and starts listing resources and templates into the picker index in the
 * background (progress arrives as `listprogress` events). Rejects with an
 * {@link MCPError} when the server cannot be reached or initialized within
 * connectTimeoutMs (retryable failures are retried inside it: the last one
 * rejects, e.g. kind "unavailable"), at once with kind "refused" when the
 * server refuses the connection (HTTP 401/403: origin, host or token). While
 * the module is still downloading or compiling (the first connect() of a
 * page), that wait ends too: by options.signal (kind "cancelled"), or after
 * connectTimeoutMs (kind "timeout"; the download goes on for the next call).
 * A bad argument (url not a string or URL, options.signal not an
 * AbortSignal) rejects with kind "invalid" naming it, as every method does. */
export function connect(url: string | URL, options?: ConnectOptions): Promise<Host>

/** Downloads, compiles and starts the runtime (mcphost.wasm, from
 * options.wasmUrl or next to this module) without connecting, so that a
 * page which connects later (when a chat opens, after sign-in) has it
 * ready: connect() then starts with its own work. A first visit's module
 * costs its download and compile (1.39 MB brotli) plus the Go runtime's
 * start (tens of ms on the main thread), so call it once the page has
 * rendered. The runtime is loaded once per page: a later preload() or
 * connect() shares it (the first call's wasmUrl wins). Resolves once it
 * runs; rejects with the {@link MCPError} connect() would give (kind
 * "unavailable" when the module cannot be fetched or compiled, after which
 * the next preload() or connect() tries again; "protocol" once the runtime
 * has exited). */
export function preload(options?: { wasmUrl?: string | URL }): Promise<void>

/** Options of {@link connect}. Every field is optional; defaults are shown. */
export interface ConnectOptions {
  /** Deadline of each request without its own timeoutMs (resources/*,
   * completion, listing; not connecting: see connectTimeoutMs). Default 5000. */
  timeoutMs?: number
  /** Time allowed to connect: dialling and the handshake (initialize, or
   * server/discover in 2026-07-28) together, for connect() and for each
   * reconnect window. The handshake request waits for what remains of it,
   * not timeoutMs, so a server that starts slowly (a cold `npx` behind
   * `mcphost -stdio`) is waited for. Retryable failures inside it (kind
   * "unavailable" or "timeout": refused socket, 1006 close, 503 cap) are
   * retried after a backoff of 100 ms doubling to 5 s (or the server's
   * Retry-After, at most 60 s, when longer); connect() rejects with the last
   * failure when it ends. Kind "refused" and errors whose data says
   * retryable false fail at once and are never retried. Default 30000. */
  connectTimeoutMs?: number
  /** Deadline of tools/call. Default 60000. */
  toolTimeoutMs?: number
  /** How long refresh() waits for re-reads before marking the rest stale. Default 800. */
  refreshDeadlineMs?: number
  /** Sniffed image types that may go to the model as images (forwardAsImage).
   * Default ["image/png", "image/jpeg", "image/gif", "image/webp"]; SVG never does. */
  acceptImages?: string[]
  /** Let rendered Markdown load http(s) images. Default false: they become links. */
  remoteImages?: boolean
  /** Time budget of rendering one Markdown part, in the page's render Worker.
   * A part still rendering after it keeps html: the escaped text in a `<pre>`,
   * with a warning naming the budget; the Worker is terminated and the next
   * part starts a new one. Worker start-up and time queued behind other
   * parts do not count. The same text under the same URI is not rendered
   * twice by a host, so such a part stays plain text until it changes.
   * Default 5000 (a 1.3 MB changelog renders in ~0.5-1 s there). */
  renderBudgetMs?: number
  /** Most estimated tokens of one part sent to the model: a part over it is
   * attached with forModel false, withheld "too_large" and a warning, until
   * host.include(uri). The estimate is the dedupe ledger's, provider-neutral:
   * ⌈decoded bytes / 4⌉ for text and images alike (a 1.3 MB document is
   * ≈325,000 tokens; a 70-byte PNG 18). Infinity (or any negative number)
   * means no bound. Default 100000. */
  maxModelTokens?: number
  /** Largest decoded part; bigger parts become error parts of kind "limit". Default 20 MiB. */
  maxPartBytes?: number
  /** Largest decoded size of all parts of one read together. Default 48 MiB. */
  maxReadBytes?: number
  /** The most resource and template descriptors one listing gathers (each).
   * A server that lists more stops at the bound: listprogress says
   * `truncated: true` with an error naming it. Listings also stop after
   * 64 MiB of pages. Default 100000. */
  maxDescriptors?: number
  /** Sent in initialize. Default { name: "mcphost", version: "0.1.0" }. */
  clientInfo?: Implementation
  /** Bearer-like token, sent only as the WebSocket subprotocol entry
   * "mcp.token.<token>" (never in the URL). Characters [A-Za-z0-9._~-] only;
   * anything else rejects with kind "invalid". Default none. */
  token?: string
  /** Where mcphost.wasm is. Default: "mcphost.wasm" next to mcphost.js. Only
   * the first connect() of a page loads the module; later values are ignored. */
  wasmUrl?: string | URL
  /** Reconnect after a lost connection, by the same policy as connect()
   * (see connectTimeoutMs): after the backoff, windows of connectTimeoutMs
   * until one connects; the backoff restarts from 100 ms once a connection
   * stayed up 10 s. A refusal (kind "refused", or data.retryable false) stops
   * reconnecting (a `disconnected` event says "not reconnecting"). Default true. */
  reconnect?: boolean
  /** The MCP revision to speak. "auto" (default) sends server/discover and
   * speaks 2026-07-28 when the server lists it, else initializes at
   * 2025-11-25 (any error of the probe falls back). "2026-07-28" refuses a
   * legacy-only server: connect() rejects with kind "unsupported".
   * "2025-11-25" skips the probe. The revision found is reused on reconnect.
   * host.protocolVersion says which one is spoken. */
  protocol?: "auto" | "2026-07-28" | "2025-11-25"
  /** Aborting it abandons connecting (rejects with kind "cancelled"). */
  signal?: AbortSignal
}

/** The last argument of every async method. */
export interface CallOptions {
  /** Aborting cancels the request on the wire (notifications/cancelled) and
   * rejects with an MCPError of kind "cancelled" whose name is "AbortError". */
  signal?: AbortSignal
  /** Deadline of this call, overriding the connect() default. */
  timeoutMs?: number
}

/** Why a call failed; switch on this, not on messages.
 * - not_found: the resource does not exist (-32002, or -32602 with data.uri or a not-found message)
 * - invalid: the request was rejected (-32602, -32600, -32700), or a bad argument (template, token)
 * - unsupported: the server lacks the method (-32601) or the capability
 * - unavailable: internal error (-32603, -32003) or lost connection; retryable
 * - timeout: the deadline passed; retryable
 * - limit: a size limit was exceeded
 * - protocol: a malformed message, a panic in the module, or the Go runtime exited
 * - cancelled: the caller's signal aborted the call
 * - error: any other error the server returned
 * - refused: the server refused the connection (HTTP 401: missing or wrong
 *   token; 403: foreign Origin or Host). A configuration error: never
 *   retryable. code is the HTTP status, data is { reason, fix } and the
 *   message names both. (A full connection cap, 503, is "unavailable" with
 *   code 503 and data { reason, fix, retryAfterMs }.) */
export type ErrorKind =
  | "not_found" | "invalid" | "unsupported" | "unavailable" | "timeout"
  | "limit" | "protocol" | "cancelled" | "error" | "refused"

/** Every failure of this API. A real Error subclass. */
export class MCPError extends Error {
  constructor(message: string, init?: Partial<Pick<MCPError, "kind" | "code" | "data" | "uri" | "method" | "index" | "serverMessage">> | null)
  /** "MCPError", or "AbortError" when kind is "cancelled" (so code that checks
   * `err.name === "AbortError"` after aborting a signal keeps working). */
  name: "MCPError" | "AbortError"
  readonly kind: ErrorKind
  /** The JSON-RPC error code the server sent (e.g. -32002); for an error part
   * the attach code string ("too_large", "bad_base64", "neither_payload",
   * "both_payloads", "missing_uri", "malformed_part", "bad_contents");
   * the HTTP status for a refused connection (401, 403, 503);
   * 0 for local failures (timeouts, lost connection, cancellation). */
  readonly code: number | string
  /** The error's data exactly as the server sent it (parsed JSON), or undefined. */
  readonly data: unknown
  /** The resource URI the failure concerns, when there is one. */
  readonly uri: string | undefined
  /** The MCP method of the failed request ("resources/read", ...), when there is one. */
  readonly method: string | undefined
  /** For an error part: its index in the read's contents. */
  readonly index: number | undefined
  /** The JSON-RPC error's message exactly as the server sent it, when the
   * server answered with an error (message adds the method, URI and code). */
  readonly serverMessage: string | undefined
  /** Whether the same call may succeed later: kinds "unavailable" and
   * "timeout", unless data.retryable is false (a host that will not connect
   * again: reconnect off, or refused for good; connect() anew). */
  readonly retryable: boolean
}

/** A connection to one MCP server, with its own context of attachments.
 * Events are CustomEvents; see {@link HostEventMap} for their detail shapes. */
export interface Host extends EventTarget {
  /** The WebSocket URL connect() dialled: the one given, resolved against
   * the page's URL, with http(s) turned into ws(s) (e.g. "/mcp" →
   * "ws://host/mcp"). */
  readonly url: string
  /** Protocol revision the server agreed to (e.g. "2025-11-25"). */
  readonly protocolVersion: string
  readonly serverInfo: Implementation
  /** The server's capabilities object, as it sent it. */
  readonly capabilities: Record<string, unknown>
  /** The server's instructions ("" when none). */
  readonly instructions: string

  /** Every resource descriptor, all pages: waits for the background listing.
   * At the page cap it resolves with what was gathered (the final
   * listprogress event says truncated). */
  resources(options?: CallOptions): Promise<Resource[]>
  /** Every resource template, all pages (like resources()). */
  templates(options?: CallOptions): Promise<ResourceTemplate[]>
  /** Every tool, all pages, each with its MCP Apps metadata (ui) and
   * whether it belongs in the model's tool list (modelVisible). */
  tools(options?: CallOptions): Promise<Tool[]>

  /** The server's prompts (every page): templates the user picks, like
   * slash commands — never offered to the model by themselves and never
   * mixed with resources. Listed on first use and again after a
   * promptslistchanged event or a reconnect. A server without the "prompts"
   * capability gets nothing sent: rejects with kind "unsupported". */
  prompts(options?: CallOptions): Promise<Prompt[]>
  /** prompts/get. The arguments are checked against the listing first: a
   * missing required one rejects with kind "invalid" naming it, as does a
   * prompt the server does not list. Each embedded resource becomes
   * attachments through the same path as attach() (sniffing, Markdown,
   * limits, forModel), in the message's `parts`; a message whose document
   * the context already holds is removed (listed in `dropped`), so a prompt
   * never puts a second copy in the conversation. */
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<PromptResult>
  /** completion/complete for one argument of a prompt (ref/prompt);
   * contextArgs are the arguments already chosen. */
  completePrompt(name: string, argName: string, value: string, contextArgs?: Record<string, string>, options?: CallOptions): Promise<Completion>

  /** Ranked fuzzy matches from the picker index, synchronously (no network;
   * fast enough per keystroke). An empty query lists by priority and name.
   * Only the first 256 characters of the query that are not spaces count (a
   * token pasted at the caret costs no more than a typed one). */
  mention(query: string, options?: MentionOptions): Match[]
  /** Expands an RFC 6570 URI template synchronously. A simple {var} and {/var}
   * percent-encode reserved characters (a value can never add path segments
   * or a query) and refuse a value that is exactly "." or ".."; {+var},
   * {#var}, {?var} and the other operators behave as the RFC says. Throws an
   * MCPError of kind "invalid" whose data is { template, offset, var }. */
  expand(uriTemplate: string, vars: Record<string, string>): string
  /** The variable names of a URI template, in order, each once ([] when malformed). */
  templateVars(uriTemplate: string): string[]
  /** Asks the server for completion values of a template argument
   * (completion/complete); contextArgs are the arguments already chosen. */
  complete(uriTemplate: string, argName: string, value: string,
    contextArgs?: Record<string, string>, options?: CallOptions): Promise<Completion>

  /** Reads uri and records every part in the context (replacing an earlier
   * copy of the same URI), subscribing to updates when the server supports
   * it (the subscription is acknowledged before the read, so no later change
   * goes unnoticed). Resolves to one Attachment per contents part; a bad part
   * is an error Attachment in its place. Rejects (e.g. kind "not_found") when
   * the read fails. A second attach of a URI still being attached joins the
   * first; detach() or close() meanwhile rejects it with kind "cancelled".
   * Attaching an attached URI re-reads it. An empty uri rejects with kind
   * "invalid", one over 8 KiB (UTF-8) with kind "limit", before anything is
   * sent. */
  attach(uri: string, options?: CallOptions): Promise<Attachment[]>
  /** Sends the withheld parts of the attached document uri to the model
   * after all (parts over maxModelTokens, MCP App views): they become
   * forModel true (withheld gone; their warning now says "sent to the model
   * anyway"), and count as in the context for the tool-result filter. It
   * lasts as long as the attachment: updates, re-reads and refresh() keep
   * it; detach() ends it (attached again, the parts are withheld again).
   * Resolves with the document's parts; fires no event. A URI still being
   * attached is included once attached (include joins the attach). A URI
   * not attached rejects with kind "invalid" naming it ("include
   * \"docs://…\": not attached; attach it first"). Idempotent. */
  include(uri: string, options?: CallOptions): Promise<Attachment[]>
  /** Removes uri from the context and unsubscribes. Returns whether it was
   * attached or being attached (a pending attach then rejects with kind "cancelled"). */
  detach(uri: string): boolean
  /** The context: every part of every attached document, in attach order, with its state. */
  attachments(): Attachment[]
  /** Re-reads every attachment in parallel before a turn. Reads not done by
   * refreshDeadlineMs are cancelled and their attachments marked stale (the
   * old copy is kept; a `stale` event fires) unless a newer copy was applied
   * meanwhile; it never replaces a copy with an older one. Resolves when all
   * are settled. An unchanged document fires no event. */
  refresh(options?: CallOptions): Promise<void>

  /** Calls a tool and filters its result against the context: embedded
   * resources and resource links the context already holds are dropped.
   * Only forModel parts are "in the context": a result that embeds or links
   * a withheld part (over maxModelTokens, an MCP App view) keeps it. */
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<ToolCallResult>
  /** The same filter for a tools/call result obtained elsewhere. Throws an
   * MCPError of kind "invalid" when result is not an object with a content array. */
  filterToolResult(result: CallToolResult): ToolCallResult
  /** Dedupe figures of this host's session. */
  figures(): Figures

  // ---- workspace restore ----
  /** The attached documents (in context order, pending ones not yet) as a
   * plain JSON-serialisable object to save with a conversation: per URI its
   * descriptor fields, state and a stable SHA-256 digest of each part
   * (computed with the page's WebCrypto, so it needs a secure context:
   * https, or http on 127.0.0.1/localhost; elsewhere it rejects with kind
   * "unsupported"). With includeContent, the parts themselves too (text,
   * and bytes as base64 only inside the snapshot), so a document that is
   * gone or unreachable at restore keeps its copy. Reads nothing. */
  snapshot(options?: SnapshotOptions): Promise<Snapshot>
  /** Re-attaches every document of a snapshot taken on this server (any
   * protocol revision): in parallel (a few reads at a time), after one
   * subscription change for all of them, never from a cache; a URI already
   * attached is re-read, never duplicated. Resolves with one result per URI,
   * in snapshot order (see {@link RestoreResult}), and fires `restored` with
   * the same list. A snapshot of another server URL, of a newer version or
   * malformed rejects with kind "invalid" whose data.field names the field
   * ("snapshot.attachments[2].uri"), and changes nothing. timeoutMs
   * (default 30000) bounds the whole restore: a read still going is
   * "failed" (kind "timeout"), and suggestions still waiting for the
   * listing are empty with suggestionsIncomplete. An aborted signal rejects
   * with kind "cancelled" and leaves out what was not settled. */
  restore(snapshot: Snapshot, options?: CallOptions): Promise<RestoreResult[]>
  /** Swaps the attached document oldUri (typically gone, for one of its
   * suggestions) for newUri in the same position in the context and
   * resolves with newUri's parts. newUri is read as by attach(); when that
   * fails, oldUri stays as it was. An oldUri that is not attached, or
   * newUri equal to it, rejects with kind "invalid". */
  replace(oldUri: string, newUri: string, options?: CallOptions): Promise<Attachment[]>

  /** Ends the session and stops reconnecting; pending calls reject with kind
   * "cancelled", later calls with kind "unavailable". No event fires once
   * it was called, not even one that was on its way. Idempotent. */
  close(): Promise<void>

  addEventListener<K extends keyof HostEventMap>(type: K,
    listener: (this: Host, ev: HostEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions): void
  removeEventListener<K extends keyof HostEventMap>(type: K,
    listener: (this: Host, ev: HostEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions): void
}

/** Events of a {@link Host}, all CustomEvents. */
export interface HostEventMap {
  /** An attached document's content changed (part count, or a part's uri,
   * mimeType, _meta or payload) and the new copy is applied; parts are its new
   * parts. Never fired by a re-read that found the same content. */
  updated: CustomEvent<{ uri: string; parts: Attachment[] }>
  /** An attachment that was stale, gone or superseded is current again with
   * the same content it had (its parts did not change; they are fresh). */
  fresh: CustomEvent<{ uri: string }>
  /** An attachment could not be re-read in time (or a tool result carried a
   * different copy); its old copy is kept, marked stale. */
  stale: CustomEvent<{ uri: string; reason: string }>
  /** An attached document no longer exists; its last copy is kept, marked
   * gone. Fires once per disappearance. */
  gone: CustomEvent<{ uri: string }>
  /** A tool result carried a newer copy of this attached part; it is marked superseded. */
  superseded: CustomEvent<{ uri: string }>
  /** The server's resource list changed; the picker index has been updated. */
  listchanged: CustomEvent<Record<string, never>>
  /** The server's prompts changed (a burst of notifications fires it once);
   * prompts() lists them anew. */
  promptslistchanged: CustomEvent<Record<string, never>>
  /** Listing progress: counts so far; done on the last event of a listing. */
  listprogress: CustomEvent<{ resources: number; templates: number; done: boolean; truncated: boolean; errors: string[] }>
  /** The connection was lost (pending calls reject with kind "unavailable");
   * reconnecting follows unless reconnect was false. Also fired, with kind
   * "protocol" failures, if the Go runtime ever exits. */
  disconnected: CustomEvent<{ reason: string }>
  /** Reconnected, re-initialized, re-subscribed and re-read; nothing in the context was lost. */
  reconnected: CustomEvent<Record<string, never>>
  /** A restore() settled: the same results it resolved with. */
  restored: CustomEvent<{ results: RestoreResult[] }>
}

/** Options of {@link Host.snapshot}. */
export interface SnapshotOptions extends CallOptions {
  /** Put each part's text or bytes (base64) in the snapshot. Default false. */
  includeContent?: boolean
}

/** A saved context, from {@link Host.snapshot}; plain JSON. */
export interface Snapshot {
  /** The snapshot format: 1. A newer one is refused by restore(). */
  version: 1
  /** The server URL the host was connected to (restore() accepts only its own). */
  server: string
  /** The revision spoken when it was taken (informative: any revision restores). */
  protocolVersion: string
  /** When it was taken, ISO 8601 UTC. */
  takenAt: string
  digestAlg: "sha-256"
  attachments: SnapshotAttachment[]
}

/** One attached document of a {@link Snapshot}. */
export interface SnapshotAttachment {
  uri: string
  /** Its listed descriptor's fields, when it was listed. */
  name?: string
  title?: string
  mimeType?: string
  /** The state its parts add up to (gone, stale or superseded when any part is). */
  state: AttachmentState
  parts: SnapshotPart[]
}

/** One part of a {@link SnapshotAttachment}. */
export interface SnapshotPart {
  uri: string
  kind: "text" | "binary" | "error"
  /** The mimeType the server declared. */
  mimeType?: string
  /** Lowercase hex SHA-256 of the payload (the text's UTF-8, a blob's
   * decoded bytes); absent for error parts. */
  digest?: string
  /** With includeContent: the text of a text part... */
  text?: string
  /** ...or the standard base64 of a binary part's bytes. */
  blob?: string
  _meta?: Record<string, unknown>
}

/** What restore() did with one URI of a snapshot:
 * - "unchanged": the digests are equal; its parts are fresh; no `updated` event.
 * - "changed": new parts (an `updated` event fires when the page held no copy).
 * - "gone": not found. The snapshot's copy, when it has one, is kept with
 *   state "gone" (not for the model); suggestions are the closest listed
 *   documents.
 * - "failed": retryable errors were retried with capped backoff, then the
 *   snapshot's copy, when it has one, is kept "stale" with the error as a
 *   warning; without one nothing is kept.
 * - "refused": the server refused the read (kind "invalid" or
 *   "unsupported"); nothing is kept. */
export interface RestoreResult {
  uri: string
  outcome: "unchanged" | "changed" | "gone" | "failed" | "refused"
  /** The copy now in the context; absent when nothing is kept. */
  parts?: Attachment[]
  /** Why it is gone, failed or refused. */
  error?: MCPError
  /** Gone only: up to 5 listed documents not already in the context, best first, ranked by word and
   * path-segment overlap with the old title, name and URI (a rename such as
   * on-call-escalation → oncall-escalation-policy ranks first); none below
   * a minimum score. Pass one to {@link Host.replace}. */
  suggestions?: Suggestion[]
  /** The listing did not complete within timeoutMs (suggestions are then
   * empty), or was truncated or failed (suggestions from what was listed). */
  suggestionsIncomplete?: boolean
}

/** A listed document close to a gone one. */
export interface Suggestion {
  uri: string
  name: string
  title?: string
  mimeType?: string
  /** In (0, 1]: 1 is the same words in the same folder. */
  score: number
}

export type AttachmentState = "fresh" | "stale" | "gone" | "superseded"

/** One part of a read, ready for a context window and a UI. */
export interface Attachment {
  /** The part's own uri (a read may return sub-resources). */
  uri: string
  /** Index of the part in the read's contents. */
  part: number
  kind: "text" | "binary" | "error"
  /** Effective type: what the bytes are (sniffed, reconciled with the
   * declaration). For an MCP App view whose bytes are HTML, the declared
   * type with its parameters ("text/html;profile=mcp-app"). */
  mimeType: string
  /** The mimeType the server declared ("" when none). */
  declaredMimeType: string
  /** What sniffing the bytes found. */
  sniffedMimeType: string
  /** Present exactly when the part carries text ("" for an empty document). */
  text?: string
  /** Sanitized HTML, only for Markdown; safe for innerHTML (see docs/embedding.md for Trusted Types).
   * Rendered off the main thread, in the render Worker (see docs/embedding.md).
   * Markdown nested over 100 levels, or shaped to make the renderer superlinear,
   * or past renderBudgetMs, or on which the render Worker crashed, is not
   * rendered: html is then `<pre>` of the escaped text, with a warning. */
  html?: string
  /**
   * A binary part's decoded bytes. A large blob (64 KiB of base64 or more)
   * of a read answer is decoded by the browser and never enters the module:
   * every attachment object of that part then shares one Uint8Array, so
   * treat it as read-only (copy it to change it). A re-read that brings the
   * same base64 as a part still held (an unchanged image) shares that part's
   * Uint8Array too, so `a.bytes === b.bytes` means nothing changed. Smaller
   * ones are copied once from the module.
   */
  bytes?: Uint8Array
  /** The bytes may go to the model as an image of type mimeType: the type is
   * accepted and its header parses with sane dimensions (a PNG signature
   * followed by anything else is not an image; mimeType is then
   * application/octet-stream with a warning naming the defect). */
  forwardAsImage: boolean
  /** The part can go to a model as it is (as text or an image). */
  presentable: boolean
  /** Whether the part belongs in the next model request: fresh and stale
   * parts do (stale ones with a warning); gone, superseded and error parts do
   * not, and neither do withheld parts (see withheld) until
   * host.include(uri): a part whose estimated tokens (⌈size / 4⌉, images
   * included) are over connect()'s maxModelTokens (default 100,000), and an
   * MCP App view (mcpApp). A withheld part is attached, read, updated and
   * shown like any other, with a warning saying why it is held back and
   * that host.include(uri) sends it anyway. Only forModel parts are "in
   * the context" for the tool-result filter (callTool, filterToolResult):
   * a tool result embedding or linking a withheld part keeps it. */
  forModel: boolean
  /** Set while the host keeps the part from the model: "too_large" (over
   * maxModelTokens) or "mcp_app" (an MCP App view; an app over the bound
   * says "mcp_app"). Absent once included, and for parts that go. */
  withheld?: "too_large" | "mcp_app"
  /** The part is an MCP App view (extension io.modelcontextprotocol/ui):
   * a ui:// URI, or a text/html type with profile=mcp-app (any case, among
   * other parameters). Interactive UI for an MCP Apps renderer (see
   * docs/embedding.md), not text for the model: withheld "mcp_app". */
  mcpApp: boolean
  /** An MCP App view's _meta.ui (csp: connectDomains, resourceDomains,
   * frameDomains, baseUriDomains; permissions: camera, microphone,
   * geolocation, clipboardWrite; domain; prefersBorder) as the server sent
   * it on the part, or on its resources/list descriptor when the part has
   * none. Absent otherwise. Untrusted: a renderer narrows, never widens. */
  ui?: Record<string, unknown>
  /** Every disagreement between declaration and bytes, and every decision not to forward. */
  warnings: string[]
  /** Decoded size in bytes (UTF-8 bytes for text). */
  size: number
  /** Payload size on the wire (base64 length for blobs). */
  wireSize: number
  /** Estimated model tokens of text (UTF-8 bytes / 4); 0 without text.
   * maxModelTokens compares ⌈size / 4⌉ instead, which counts images too. */
  tokens: number
  /** Freshness; error parts keep "fresh" only nominally and are never forModel. */
  state: AttachmentState
  /** Set exactly when kind is "error": why this part could not be used. */
  error?: MCPError
  /** The part's _meta, unchanged. */
  _meta?: Record<string, unknown>
}

export interface Implementation {
  name: string
  version: string
  title?: string
  description?: string
  icons?: Icon[]
  websiteUrl?: string
}

/** Untrusted: show only https: and data: sources. */
export interface Icon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: string
}

export interface Annotations {
  audience?: ("user" | "assistant" | string)[]
  priority?: number
  lastModified?: string
}

/** A resources/list descriptor. */
export interface Resource {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  /** Raw bytes, before base64, when the server said. */
  size?: number
  icons?: Icon[]
  annotations?: Annotations
  _meta?: Record<string, unknown>
}

/** A resources/templates/list descriptor; expand its uriTemplate with host.expand(). */
export interface ResourceTemplate {
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  icons?: Icon[]
  annotations?: Annotations
  _meta?: Record<string, unknown>
}

export interface Tool {
  name: string
  title?: string
  description?: string
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: Record<string, unknown>
  icons?: Icon[]
  _meta?: Record<string, unknown>
  /** The tool's MCP Apps metadata, _meta.ui as sent ({ resourceUri: the
   * ui:// view that renders its results, visibility }), or made from the
   * deprecated flat _meta["ui/resourceUri"]. Absent when it has neither. */
  ui?: { resourceUri?: string; visibility?: string[]; [key: string]: unknown }
  /** Whether the tool belongs in the model's tool list: false when
   * ui.visibility is a list without "model" (["app"]: callable by an MCP
   * App view only); true when visibility is absent (default ["model",
   * "app"]) or malformed. Leave false ones out of what the model is
   * offered; callTool() itself does not refuse them. */
  modelVisible: boolean
}

export interface MentionOptions {
  /** Most matches returned. Default 50. */
  limit?: number
  /** "user" or "assistant": drop descriptors whose annotations.audience excludes it. */
  audience?: string
}

/** A half-open [start, end) range of UTF-16 code units: what JavaScript strings index. */
export type Range = [number, number]

/** One ranked picker result: exactly one of resource and template is set. */
export interface Match {
  resource?: Resource
  template?: ResourceTemplate
  score: number
  /** The descriptor's estimated tokens, ⌈size / 4⌉ (the estimate
   * maxModelTokens is compared with); absent without a size (templates,
   * descriptors that do not say). */
  tokens?: number
  /** Set when choosing this entry would attach parts withheld from the
   * model (see Attachment.withheld), as far as the descriptor tells:
   * "mcp_app" for an MCP App view (a ui:// URI or uriTemplate, or a
   * text/html;profile=mcp-app mimeType), "too_large" when tokens is over
   * maxModelTokens. Each part read is judged again on its own bytes. */
  withheld?: "too_large" | "mcp_app"
  /** true for an MCP App view (withheld "mcp_app"); absent otherwise. */
  mcpApp?: true
  /** Matched ranges per field; a field without a match has no entry. */
  highlights: {
    name?: Range[]
    title?: Range[]
    /** Ranges in uri, or in uriTemplate for a template. */
    uri?: Range[]
    description?: Range[]
  }
}

/** A prompts/list entry. */
export interface Prompt {
  name: string
  title?: string
  description?: string
  arguments?: Array<{ name: string; title?: string; description?: string; required?: boolean }>
  icons?: Icon[]
  _meta?: Record<string, unknown>
}

/** What getPrompt() resolves with. */
export interface PromptResult {
  name: string
  description: string
  /** The messages, in order, minus those the context already holds. */
  messages: Array<{
    role: "user" | "assistant"
    /** The content block as the server sent it (text, image, audio,
     * resource, resource_link, or a type this module does not know). */
    content: { type: string; [key: string]: unknown }
    /** For an embedded resource: its attachments, as attach() makes them. */
    parts?: Attachment[]
  }>
  /** Messages removed because the context already holds their document
   * (index among the server's messages). */
  dropped: Array<{ index: number; uri: string; reason: string }>
  /** Attached URIs a newer embedded copy replaced (they are superseded). */
  superseded: string[]
}

export interface Completion {
  values: string[]
  total?: number
  hasMore?: boolean
}

/** A tools/call result as on the wire. */
export interface CallToolResult {
  content: Array<{ type: string; [key: string]: unknown }>
  structuredContent?: unknown
  isError?: boolean
  _meta?: Record<string, unknown>
  [key: string]: unknown
}

/** A tool result after the dedupe filter. */
export interface ToolCallResult {
  /** The result with duplicate blocks removed. */
  result: CallToolResult
  /** Every removed block: its index in the original content array, its uri and why. */
  dropped: { index: number; uri: string; reason: string }[]
  /** Attached URIs for which this result carried a newer copy (now marked superseded). */
  superseded: string[]
}

/** Dedupe counters of a host's session, with derived ratios (each 0..1). */
export interface Figures {
  sessions: number
  sessionsListed: number
  sessionsRead: number
  sessionsReadWithoutList: number
  sessionsListedWithoutRead: number
  lists: number
  reads: number
  attachments: number
  toolResults: number
  toolResultsWithAttachment: number
  toolResultsCarryingAttached: number
  duplicatesDropped: number
  linksDropped: number
  superseded: number
  bytesSaved: number
  tokensSaved: number
  ratios: {
    listShare: number
    readReach: number
    listWithoutRead: number
    duplicateDelivery: number
  }
}

// ---- Showing and wrapping server strings (web/display.js) ----
// display.js is a plain ES module next to mcphost.js (mention.js and the demo
// import it; it also runs in Node; mcphost.js carries it inlined and exports
// the same functions). These declarations describe its exports.

/**
 * The string to show a person for s, a string a server chose (a name, title,
 * URI, description, message): bidi controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069), zero-width and other invisible characters
 * (U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F,
 * U+200B–U+200D, U+2060–U+206F, U+3164, U+FEFF, U+FFA0, U+FFF0–U+FFFB, …),
 * variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF), tag characters
 * (U+E0000–U+E007F), C0/DEL/C1 controls, U+2028/U+2029 and lone surrogates
 * each become a marker "⟨U+202E⟩"; a run of more than four shows its first
 * three and "⟨+N more⟩". A zero-width joiner between two pictographs and one
 * U+FE0E/U+FE0F after an emoji are kept (emoji stay whole). With
 * `multiline: true`, tab, LF and CR are kept. Idempotent; null gives "".
 * For display only: search, compare and send the real string.
 */
export function displayText(s: unknown, options?: { multiline?: boolean }): string
/** The marker for one code point: "⟨U+XXXX⟩" (at least four upper-case hex digits). */
export function marker(codePoint: number): string
/** Whether displayText (single-line) would change s. */
export function hasHiddenText(s: unknown): boolean
/** A value for a double-quoted attribute: & < > " as entities, C0 controls and DEL as &#xN;. */
export function escapeAttribute(s: unknown): string
/**
 * Document text safe between <document …> and </document>: each "<" that
 * opens a `document` tag (open or close, any case, whitespace, "/" or
 * invisible characters between, fullwidth letters) becomes "&lt;"; nothing
 * else changes.
 */
export function escapeDocumentText(s: unknown): string
/**
 * `<document uri="…" mimeType="…"[ stale="true"]>\n…\n</document>` for a
 * text part, attributes escaped with escapeAttribute and the text with
 * escapeDocumentText: nothing a server chose can close the wrapper.
 */
export function wrapDocument(part: { uri?: string; mimeType?: string; text?: string }, options?: { stale?: boolean }): string

// ---- <mcp-mention> (web/mention.js) ----

/** The <mcp-mention> element; see docs/ui.md for its attributes and events. */
export interface MentionElement extends HTMLElement {
  /** Hosts whose resources are offered, grouped by server in this order.
   * Setting them (and every listprogress or listchanged of theirs) re-reads
   * the @token at the caret of a focused composer, so a query typed before
   * the hosts connected or listed shows without another key; while a host
   * has listed nothing yet the list shows a loading row. Listeners on the
   * hosts live only while the element is connected. */
  hosts: Host[]
  /** Whether the model provider can take a descriptor: true or a reason. */
  accepts: (descriptor: Resource | ResourceTemplate, context: { template: boolean; host: Host }) => true | string
  /** Most matches asked of each host per keystroke (attribute limit, default 200). */
  limit: number
  /** Attribute accept-images, space-separated; default png, jpeg, gif, webp. */
  readonly acceptImages: string[]
  /**
   * Attribute remote-icons (boolean), default false: only data: icons of a
   * raster type (png, jpeg, gif, webp, avif; at most 48 KiB of URL) are
   * shown, so opening the picker requests nothing. When true, https: icons
   * are shown too (fetched with referrerpolicy=no-referrer). SVG icons never.
   */
  remoteIcons: boolean
  /** What a chosen entry leaves in a textarea or input: "@<uri> " (default)
   * or "@<label> " (attribute token="label"). Events carry the URI either way. */
  token: "uri" | "label"
  /** The characters that open the popup (attribute triggers,
   * space-separated; default "@ /"): "@" lists resources and templates, "/"
   * the hosts' prompts. triggers="@" turns the prompt list off; other
   * characters are ignored. Reads back normalized ("@ /", "@", "/" or "");
   * set a string or an array. */
  triggers: string
  readonly open: boolean
  readonly input: HTMLElement | null
  readonly listbox: HTMLElement | null
  /** Closes the popup, abandoning a template or a prompt in progress. */
  close(): void
}

// ---- <mcp-mention>: prompts after "/" (issue 19) ----

/** The detail of mcp-prompt: a prompt was chosen, its arguments entered
 * and host.getPrompt resolved. The "/query" has been removed from the
 * composer and nothing was written in its place: what the messages become
 * is the page's choice. */
export interface MentionPromptDetail {
  /** The prompt's name. */
  name: string
  /** The values entered (an optional argument left empty is absent). */
  args: Record<string, string>
  description: string
  /** PromptResult.messages: content as the server sent it; an embedded
   * document's attachments in parts. */
  messages: PromptResult["messages"]
  /** Messages the host left out: the context already holds their document. */
  dropped: PromptResult["dropped"]
  superseded: string[]
  /** The listed descriptor that was chosen. */
  prompt: Prompt
  host: Host
}

/** What <mcp-mention> dispatches (bubbling CustomEvents); see docs/ui.md, Events. */
export interface MentionElementEventMap extends HTMLElementEventMap {
  "mcp-attach": CustomEvent<{ uri: string; host: Host; label: string; template?: ResourceTemplate; vars?: Record<string, string> }>
  "mcp-attached": CustomEvent<{ uri: string; host: Host; attachments: Attachment[] }>
  "mcp-prompt": CustomEvent<MentionPromptDetail>
  /** stage: "mention", "complete", "expand", "attach", "prompts" (listing
   * a host's prompts), "prompt-argument" (a required one left empty) or
   * "prompt" (getPrompt rejected); the last two are shown in the picker and
   * fire no mcp-prompt. */
  "mcp-error": CustomEvent<{ host: Host; error: Error; stage: string; uri?: string; name?: string; value?: string; template?: string; prompt?: string; args?: Record<string, string> }>
  "mcp-rendered": CustomEvent<{ query: string; ms: number; matches: number; nodes: number }>
}

export interface MentionElement {
  addEventListener<K extends keyof MentionElementEventMap>(type: K, listener: (this: MentionElement, ev: MentionElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void
  removeEventListener<K extends keyof MentionElementEventMap>(type: K, listener: (this: MentionElement, ev: MentionElementEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void
}

declare global {
  interface HTMLElementTagNameMap {
    "mcp-mention": MentionElement
  }
}
