// <mcp-mention>: an @-mention picker for MCP resources and resource
// templates, bound to a chat composer (a <textarea> or a contenteditable).
//
//   <textarea id="composer"></textarea>
//   <mcp-mention for="composer"></mcp-mention>
//   <script type="module">
//     import "./mention.js"
//     document.querySelector("mcp-mention").hosts = [await connect(url)]
//   </script>
//
// Plain ES module, light DOM, no framework, no dependencies. The keyboard and
// ARIA behaviour follows GitHub's auto-complete-element + combobox-nav: the
// composer is the combobox, the popup holds a role=listbox, Up/Down move,
// Enter/Tab commit only a selected option, Escape closes, IME composition is
// never interrupted. Every string that came from a server is written with
// textContent (or setAttribute), never as markup, through displayText (bidi
// controls and invisible characters shown as ⟨U+XXXX⟩ markers) and in its own
// bidi-isolated span; searching and events use the real strings. Icons are
// data: images unless remote-icons is set. See docs/ui.md.

import { displayText } from "./display.js"

export { displayText }

/** Image types a model provider accepts by default (mirrors connect()'s acceptImages). */
export const DEFAULT_ACCEPT_IMAGES = ["image/png", "image/jpeg", "image/gif", "image/webp"]

/** Most option nodes the listbox ever holds, however many matches there are. */
export const MAX_OPTION_NODES = 50

const TEXT_TYPES = /^(text\/|application\/(json|xml|yaml|x-yaml|javascript|ecmascript|toml|sql|graphql|x-sh)\b|application\/[^;]+\+(json|xml|yaml)\b)/i
const DEFAULT_ROW_HEIGHT = 56
const DEFAULT_GROUP_HEIGHT = 30
const OVERSCAN = 6
const ANNOUNCE_DELAY = 100
const COMPLETE_DEBOUNCE = 150

// ---- DOM-free helpers (exported for tests and for pages that want them) ----

/**
 * Finds the @-mention being typed at caret in text: an "@" at the start or
 * after whitespace or an opening bracket, followed by non-space characters up
 * to the caret. Returns { start, end, query } (start indexes the "@") or null.
 */
export function findMention(text, caret) {
  if (caret == null || caret < 1 || caret > text.length) return null
  for (let i = caret - 1; i >= 0; i--) {
    const c = text[i]
    if (c === "@") {
      const before = i === 0 ? "" : text[i - 1]
      if (i === 0 || /[\s([{"'“‘]/.test(before)) {
        return { start: i, end: caret, query: text.slice(i + 1, caret) }
      }
      return null
    }
    if (/\s/.test(c)) return null
  }
  return null
}

/** Normalizes highlight ranges: [[s, e], ...] or [{start, end}, ...] to sorted, clamped [s, e] pairs. */
export function normalizeRanges(ranges, length) {
  if (!Array.isArray(ranges)) return []
  const out = []
  for (const r of ranges) {
    let s, e
    if (Array.isArray(r)) [s, e] = r
    else if (r && typeof r === "object") ({ start: s, end: e } = r)
    if (!Number.isInteger(s) || !Number.isInteger(e)) continue
    s = Math.max(0, Math.min(s, length))
    e = Math.max(0, Math.min(e, length))
    if (e > s) out.push([s, e])
  }
  out.sort((a, b) => a[0] - b[0])
  const merged = []
  for (const r of out) {
    const last = merged[merged.length - 1]
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1])
    else merged.push(r)
  }
  return merged
}

/** Human-readable byte size: 0 B, 812 B, 4.2 KB, 1.3 MB. */
export function formatBytes(n) {
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return ""
  if (n < 1000) return `${n} B`
  const units = ["KB", "MB", "GB", "TB"]
  let v = n
  let u = -1
  do {
    v /= 1000
    u++
  } while (v >= 1000 && u < units.length - 1)
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`
}

/** Raster types an icon data: URL may have (no SVG: see safeIconSrc). */
export const ICON_DATA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]

/** Longest icon data: URL shown, in characters (48 KiB of base64 is a 36 KB image). */
export const MAX_ICON_DATA_URL = 49152

/**
 * The src to show for a server's icon, or null. By default only data: URLs of
 * a raster type (ICON_DATA_TYPES, base64 or not, at most MAX_ICON_DATA_URL
 * characters), so opening the picker makes no request at all: an https icon
 * would be fetched by every page that lists it (a tracking pixel where the
 * page has no image CSP). With { remote: true } (the remote-icons attribute),
 * https: URLs are shown too. SVG is never shown: in an <img> it can neither
 * script nor load anything, but it is a document format with a history of
 * renderer bugs, and an icon needs none of it.
 */
export function safeIconSrc(src, { remote = false } = {}) {
  if (typeof src !== "string") return null
  if (/^data:/i.test(src)) {
    if (src.length > MAX_ICON_DATA_URL) return null
    const m = /^data:([^;,]*)((?:;[^;,]*)*),/i.exec(src)
    if (!m || !ICON_DATA_TYPES.includes(m[1].trim().toLowerCase())) return null
    return src
  }
  if (!remote) return null
  let url
  try {
    url = new URL(src)
  } catch {
    return null
  }
  return url.protocol === "https:" ? url.href : null
}

/** The variable names of an RFC 6570 template, in order, each once (fallback when a host lacks templateVars). */
export function templateVars(uriTemplate) {
  const names = []
  for (const m of String(uriTemplate).matchAll(/\{([+#./;?&=,!@|]?)([^}]*)\}/g)) {
    for (let v of m[2].split(",")) {
      v = v.replace(/(\*|:\d+)$/, "").trim()
      if (v && !names.includes(v)) names.push(v)
    }
  }
  return names
}

/**
 * The default acceptance rule for a model provider: text-like types and the
 * accepted image types go to the model; other binaries would be withheld.
 * Returns true, or a short reason string. A descriptor without a mimeType is
 * accepted (its bytes are sniffed on attach).
 */
export function defaultAccepts(descriptor, acceptImages = DEFAULT_ACCEPT_IMAGES) {
  const mt = (typeof descriptor?.mimeType === "string" ? descriptor.mimeType : "").split(";")[0].trim().toLowerCase()
  if (!mt) return true
  if (TEXT_TYPES.test(mt)) return true
  if (mt.startsWith("image/")) return acceptImages.includes(mt) ? true : `${mt} is not an accepted image type`
  return `${mt} cannot be sent to the model`
}

// ---- the element ----

const HTMLElementBase = globalThis.HTMLElement || class {}
let uid = 0

const DEFAULT_CSS = `
:where(mcp-mention) { display: contents; }
:where(.mcp-mention-popup) { position: fixed; z-index: 1000; box-sizing: border-box; background: #fff; color: #1f2328;
  display: flex; flex-direction: column;
  border: 1px solid #d0d7de; border-radius: 10px; box-shadow: 0 12px 32px rgba(31,35,40,.16); overflow: hidden;
  font: 14px/1.35 system-ui, -apple-system, "Segoe UI", sans-serif; }
:where(.mcp-mention-list) { flex: 0 1 auto; min-height: 0; overflow-y: auto; overscroll-behavior: contain; margin: 0; padding: 0; position: relative; }
:where(.mcp-mention-spacer) { pointer-events: none; }
:where(.mcp-mention-group-header) { box-sizing: border-box; height: var(--mcp-mention-group-height, 30px); display: flex;
  align-items: center; padding: 0 12px; font-size: 12px; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: #59636e; }
:where(.mcp-mention-option) { box-sizing: border-box; height: var(--mcp-mention-row-height, 56px); display: grid;
  grid-template-columns: 28px 1fr auto; grid-template-rows: auto auto; column-gap: 10px; align-content: center; padding: 0 12px; cursor: pointer; }
:where(.mcp-mention-option[aria-selected="true"]) { background: #ddf4ff; box-shadow: inset 3px 0 0 #0969da; }
:where(.mcp-mention-option:hover) { background: #f6f8fa; }
:where(.mcp-mention-icon) { grid-row: 1 / span 2; align-self: center; width: 24px; height: 24px; border-radius: 6px; display: grid;
  place-items: center; font-size: 10px; font-weight: 700; background: #eef1f4; color: #59636e; overflow: hidden; }
:where(.mcp-mention-icon img) { width: 24px; height: 24px; object-fit: contain; }
:where(.mcp-mention-title) { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
:where(.mcp-mention-sub) { grid-column: 2; font-size: 12px; color: #59636e; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
:where(.mcp-mention-uri) { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
:where(.mcp-mention-meta) { grid-column: 3; grid-row: 1 / span 2; align-self: center; display: flex; gap: 6px; align-items: center; font-size: 11px; color: #59636e; }
:where(.mcp-mention-badge) { border: 1px solid #d0d7de; border-radius: 999px; padding: 1px 7px; white-space: nowrap; }
:where(.mcp-mention-badge.is-template) { border-color: #8250df; color: #6639ba; }
:where(.mcp-mention-badge.is-unsupported) { border-color: #bf8700; color: #7d4e00; background: #fff8c5; }
:where(.mcp-mention-option.is-unsupported .mcp-mention-title) { color: #59636e; }
:where(.mcp-mention-popup mark) { background: #fff1a8; color: inherit; border-radius: 2px; }
:where(.mcp-mention-footer) { border-top: 1px solid #eaeef2; padding: 6px 12px; font-size: 12px; color: #59636e; display: flex; justify-content: space-between; gap: 8px; }
:where(.mcp-mention-empty) { padding: 14px 12px; color: #59636e; }
:where(.mcp-mention-args) { padding: 12px; display: grid; gap: 8px; }
:where(.mcp-mention-args-template) { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; word-break: break-all; }
:where(.mcp-mention-args-template .is-current) { background: #ddf4ff; color: #0550ae; border-radius: 3px; font-weight: 700; }
:where(.mcp-mention-args label) { font-weight: 600; }
:where(.mcp-mention-args input) { font: inherit; padding: 6px 8px; border: 1px solid #8c959f; border-radius: 6px; }
:where(.mcp-mention-args input:focus) { outline: 2px solid #0969da; outline-offset: 0; border-color: #0969da; }
:where(.mcp-mention-args .mcp-mention-list) { max-height: 200px; border: 1px solid #eaeef2; border-radius: 6px; }
:where(.mcp-mention-args .mcp-mention-option) { height: auto; min-height: 32px; grid-template-columns: 1fr; padding: 4px 10px; }
:where(.mcp-mention-error) { color: #d1242f; font-weight: 600; }
:where(.mcp-mention-error:empty) { display: none; }
:where(.mcp-mention-hint) { font-size: 12px; color: #59636e; }
:where(.mcp-mention-sr) { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
:where(mcp-mention [hidden]) { display: none !important; }
:where(.mcp-mention-token) { background: #ddf4ff; color: #0550ae; border-radius: 4px; padding: 0 3px; white-space: nowrap; }
`

let sheetAdopted = false
function adoptDefaultStyles(doc) {
  if (sheetAdopted || !doc || typeof CSSStyleSheet === "undefined") return
  sheetAdopted = true
  try {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(DEFAULT_CSS)
    doc.adoptedStyleSheets = [sheet, ...doc.adoptedStyleSheets]
  } catch {
    /* old engines: the page styles the element itself */
  }
}

function el(tag, cls, attrs) {
  const e = document.createElement(tag)
  if (cls) e.className = cls
  if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  return e
}

/**
 * Appends text (a server's string) to parent with ranges wrapped in <mark>;
 * text nodes only, never markup. The ranges index the real string; each piece
 * is shown through displayText.
 */
function appendHighlighted(parent, text, ranges, opts) {
  text = String(text ?? "")
  let at = 0
  for (const [s, e] of normalizeRanges(ranges, text.length)) {
    if (s > at) parent.append(displayText(text.slice(at, s), opts))
    const m = document.createElement("mark")
    m.textContent = displayText(text.slice(s, e), opts)
    parent.append(m)
    at = e
  }
  if (at < text.length) parent.append(displayText(text.slice(at), opts))
}

function serverLabel(host, i) {
  const info = host?.serverInfo || {}
  return info.title || info.name || `Server ${i + 1}`
}

function mimeBadge(mt) {
  mt = (typeof mt === "string" ? mt : "").split(";")[0]
  if (!mt) return ""
  const short = { "text/markdown": "Markdown", "text/plain": "Text", "application/json": "JSON", "text/html": "HTML" }[mt]
  return short || mt
}

function glyphFor(d, isTemplate) {
  if (isTemplate) return "{ }"
  const mt = typeof d?.mimeType === "string" ? d.mimeType : ""
  if (mt.startsWith("image/")) return "IMG"
  if (mt === "text/markdown") return "MD"
  if (mt.startsWith("text/")) return "TXT"
  if (mt.includes("json")) return "{}"
  return "BIN"
}

/**
 * <mcp-mention for="composer-id">. Properties: hosts, accepts, limit, open.
 * Events (bubbling CustomEvents): mcp-attach (cancelable, {uri, host}),
 * mcp-attached ({uri, host, attachments}), mcp-error ({uri?, host, error,
 * stage}), mcp-rendered ({query, ms, matches, nodes}).
 */
export class MentionElement extends HTMLElementBase {
  static observedAttributes = ["for", "limit", "accept-images", "anchor", "remote-icons"]

  /** Registers the element (default tag mcp-mention); re-definition is ignored. */
  static define(tag = "mcp-mention", registry = globalThis.customElements) {
    if (!registry || registry.get(tag)) return this
    try {
      registry.define(tag, this)
    } catch (e) {
      if (e?.name !== "NotSupportedError") throw e
    }
    return this
  }

  #hosts = []
  #accepts = null
  #input = null
  #kind = "textarea" // or "editable"
  #ids = null
  #popup = null
  #list = null
  #footer = null
  #live = null
  #args = null
  #rows = [] // flattened: {type:"group", hostIndex, label, count} | {type:"option", match, host, hostIndex, pos, size, ordinal}
  #options = [] // indexes into #rows of option rows
  #active = -1 // index into #options
  #token = null // {start, end, query, node?}
  #suppressed = null // {start, query} of the token Escape closed; stays closed until typing changes it
  #composing = false
  #inputStamp = 0
  #rowHeight = DEFAULT_ROW_HEIGHT
  #groupHeight = DEFAULT_GROUP_HEIGHT
  #offsets = [0] // #offsets[i] = top of row i; #offsets[rows.length] = total height
  #renderedRange = [0, 0]
  #progress = new Map() // host -> listprogress detail
  #hostListeners = new Map()
  #announceTimer = 0
  #scrollRaf = 0
  #refreshRaf = 0
  #tmpl = null // template-argument step state
  #ac = null // AbortController of the element's listeners
  #attr = new Map() // attributes we set on the composer, to restore

  constructor() {
    super()
    this.#ids = `mcp-mention-${++uid}`
  }

  /** The MCP hosts (from connect()) whose resources are offered, grouped by server in this order. */
  get hosts() {
    return this.#hosts.slice()
  }
  set hosts(value) {
    const next = Array.isArray(value) ? value.filter(Boolean) : value ? [value] : []
    for (const [h, fn] of this.#hostListeners) {
      for (const t of ["listprogress", "listchanged", "disconnected", "reconnected"]) h.removeEventListener?.(t, fn)
    }
    this.#hostListeners.clear()
    this.#hosts = next
    for (const h of next) {
      const fn = (e) => this.#onHostEvent(h, e)
      for (const t of ["listprogress", "listchanged", "disconnected", "reconnected"]) h.addEventListener?.(t, fn)
      this.#hostListeners.set(h, fn)
    }
    if (this.open) this.#scheduleRefresh()
  }

  /**
   * Decides whether the configured model provider can take a descriptor:
   * a function (descriptor, {template, host}) => true | reason string.
   * Defaults to text-like types and the accept-images list.
   */
  get accepts() {
    return this.#accepts || ((d) => defaultAccepts(d, this.acceptImages))
  }
  set accepts(fn) {
    this.#accepts = typeof fn === "function" ? fn : null
    if (this.open) this.#scheduleRefresh()
  }

  /** Image types the provider accepts (attribute accept-images, space-separated). */
  get acceptImages() {
    const a = this.getAttribute("accept-images")
    return a == null ? DEFAULT_ACCEPT_IMAGES : a.split(/[\s,]+/).filter(Boolean)
  }

  /** Most matches asked of each host per keystroke (attribute limit, default 200). Only what is visible is rendered. */
  get limit() {
    const n = parseInt(this.getAttribute("limit") ?? "", 10)
    return Number.isFinite(n) && n > 0 ? n : 200
  }
  set limit(n) {
    this.setAttribute("limit", String(n))
  }

  /**
   * Whether icons from https: URLs are shown (attribute remote-icons). Off by
   * default: only data: icons of a raster type, so the picker fetches nothing.
   */
  get remoteIcons() {
    return this.hasAttribute("remote-icons")
  }
  set remoteIcons(on) {
    this.toggleAttribute("remote-icons", !!on)
  }

  /** Whether the popup is showing (reflected as the open attribute). */
  get open() {
    return this.hasAttribute("open")
  }

  /** The composer element the picker is bound to (resolved from for). */
  get input() {
    return this.#input
  }

  /** The listbox element (for styling and tests). */
  get listbox() {
    return this.#list
  }

  connectedCallback() {
    adoptDefaultStyles(this.ownerDocument)
    if (!this.#popup) this.#build()
    this.#bind()
  }

  disconnectedCallback() {
    this.#unbind()
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return
    if (name === "for" && this.isConnected && this.#popup) {
      this.#unbind()
      this.#bind()
    } else if (this.open) this.#scheduleRefresh()
  }

  /** Closes the popup (and abandons a template in progress). */
  close() {
    this.#endTemplate(false)
    this.#hide()
  }

  // ---- construction and binding ----

  #build() {
    const id = this.#ids
    this.#popup = el("div", "mcp-mention-popup", { id: `${id}-popup` })
    this.#popup.hidden = true
    this.#list = el("div", "mcp-mention-list", { id: `${id}-list`, role: "listbox", "aria-label": "Resources" })
    this.#footer = el("div", "mcp-mention-footer")
    this.#footer.hidden = true
    this.#args = this.#buildArgs()
    this.#popup.append(this.#list, this.#args.root, this.#footer)
    this.#live = el("div", "mcp-mention-sr", { role: "status", "aria-live": "polite", "aria-atomic": "true" })
    this.append(this.#popup, this.#live)
  }

  #buildArgs() {
    const id = this.#ids
    const root = el("div", "mcp-mention-args")
    root.hidden = true
    const tpl = el("div", "mcp-mention-args-template", { id: `${id}-tpl`, dir: "ltr" })
    const label = el("label", "", { for: `${id}-arg` })
    const input = el("input", "", {
      id: `${id}-arg`, type: "text", role: "combobox", autocomplete: "off", spellcheck: "false",
      "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": `${id}-sugg`,
      "aria-describedby": `${id}-tpl ${id}-err ${id}-hint`,
    })
    const list = el("div", "mcp-mention-list", { id: `${id}-sugg`, role: "listbox", "aria-label": "Suggestions" })
    list.hidden = true
    const err = el("div", "mcp-mention-error", { id: `${id}-err`, role: "alert" })
    const hint = el("div", "mcp-mention-hint", { id: `${id}-hint` })
    hint.textContent = "Enter accepts · Backspace on empty goes back · Esc cancels"
    root.append(tpl, label, input, list, err, hint)
    return { root, tpl, label, input, list, err, hint }
  }

  #bind() {
    const target = this.#resolveFor()
    if (!target) return
    this.#input = target
    this.#kind = target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement ? "textarea" : "editable"
    const set = (k, v) => {
      if (!this.#attr.has(k)) this.#attr.set(k, target.getAttribute(k))
      target.setAttribute(k, v)
    }
    set("role", "combobox")
    set("aria-autocomplete", "list")
    set("aria-haspopup", "listbox")
    set("aria-expanded", "false")
    set("aria-controls", this.#list.id)
    if (this.#kind === "editable") set("aria-multiline", "true")
    this.#ac = new AbortController()
    const o = { signal: this.#ac.signal }
    target.addEventListener("input", (e) => this.#onInput(e), o)
    target.addEventListener("keydown", (e) => this.#onKeydown(e), { ...o, capture: true })
    target.addEventListener("compositionstart", () => (this.#composing = true), o)
    target.addEventListener("compositionend", (e) => {
      this.#composing = false
      this.#onInput(e)
    }, o)
    target.addEventListener("click", () => this.#evaluate(performance.now()), o)
    target.addEventListener("keyup", (e) => {
      if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key) && !this.#composing) this.#evaluate(e.timeStamp)
    }, o)
    target.addEventListener("focusout", (e) => this.#onFocusOut(e), o)
    this.#popup.addEventListener("focusout", (e) => this.#onFocusOut(e), o)
    this.#popup.addEventListener("mousedown", (e) => {
      if (e.target !== this.#args.input) e.preventDefault() // keep focus where it is
    }, o)
    this.#list.addEventListener("click", (e) => {
      const opt = e.target.closest?.("[role=option]")
      if (!opt) return
      const i = Number(opt.dataset.ordinal)
      this.#setActive(i, false)
      this.#commitActive()
    }, o)
    this.#list.addEventListener("scroll", () => {
      if (this.#scrollRaf) return
      this.#scrollRaf = requestAnimationFrame(() => {
        this.#scrollRaf = 0
        this.#renderWindow()
      })
    }, o)
    const a = this.#args
    a.input.addEventListener("input", () => this.#argInput(), o)
    a.input.addEventListener("keydown", (e) => this.#argKeydown(e), o)
    a.list.addEventListener("click", (e) => {
      const opt = e.target.closest?.("[role=option]")
      if (opt) this.#acceptArg(opt.dataset.value)
    }, o)
    const reposition = () => this.open && this.#position()
    window.addEventListener("resize", reposition, o)
    window.addEventListener("scroll", reposition, { ...o, capture: true, passive: true })
  }

  #unbind() {
    this.#ac?.abort()
    this.#ac = null
    this.#hide()
    const t = this.#input
    if (t) {
      for (const [k, v] of this.#attr) v == null ? t.removeAttribute(k) : t.setAttribute(k, v)
      t.removeAttribute("aria-activedescendant")
    }
    this.#attr.clear()
    this.#input = null
  }

  #resolveFor() {
    const id = this.getAttribute("for")
    if (!id) return null
    const root = this.getRootNode?.() || document
    return root.getElementById ? root.getElementById(id) : document.getElementById(id)
  }

  // ---- reading the composer ----

  #caretToken() {
    const t = this.#input
    if (!t) return null
    if (this.#kind === "textarea") {
      if (t.selectionStart !== t.selectionEnd) return null
      return findMention(t.value, t.selectionStart)
    }
    const sel = t.ownerDocument.getSelection()
    if (!sel || sel.rangeCount === 0 || !sel.isCollapsed) return null
    const node = sel.anchorNode
    if (!node || node.nodeType !== Node.TEXT_NODE || !t.contains(node)) return null
    const m = findMention(node.data, sel.anchorOffset)
    return m && { ...m, node }
  }

  #onInput(e) {
    if (this.#composing || e?.isComposing) return
    this.#evaluate(e?.timeStamp || performance.now(), true)
  }

  /** Re-reads the token at the caret and opens, updates or closes the list. */
  #evaluate(stamp, typed = false) {
    if (this.#tmpl) return
    const tok = this.#caretToken()
    if (!tok || !this.#hosts.length) {
      this.#suppressed = null
      this.#hide()
      return
    }
    const sup = this.#suppressed
    if (sup && sup.start === tok.start && (!typed || sup.query === tok.query)) {
      this.#hide()
      return
    }
    this.#suppressed = null
    this.#token = tok
    this.#inputStamp = stamp
    this.#query(tok.query, true)
  }

  // ---- querying and rendering ----

  #query(q, resetActive) {
    const rows = []
    const options = []
    let total = 0
    const limit = this.limit
    this.#hosts.forEach((host, hostIndex) => {
      let matches = []
      try {
        matches = host.mention(q, { limit }) || []
      } catch (error) {
        this.#emit("mcp-error", { host, error, stage: "mention" })
      }
      if (!matches.length) return
      rows.push({ type: "group", hostIndex, host, label: displayText(serverLabel(host, hostIndex)), count: matches.length })
      matches.forEach((match, i) => {
        options.push(rows.length)
        rows.push({ type: "option", match, host, hostIndex, pos: i + 1, size: matches.length, ordinal: options.length - 1 })
      })
      total += matches.length
    })
    const prevKey = !resetActive && this.#active >= 0 ? this.#optionKey(this.#active) : null
    this.#rows = rows
    this.#options = options
    this.#active = -1
    if (prevKey) {
      const i = options.findIndex((_, k) => this.#optionKey(k) === prevKey)
      this.#active = i
    }
    this.#show()
    if (resetActive) this.#list.scrollTop = 0
    this.#renderAll()
    this.#announce(total)
    const ms = performance.now() - this.#inputStamp
    try {
      performance.measure("mcp-mention-render", { start: this.#inputStamp, end: performance.now(), detail: { query: q } })
    } catch {
      /* older engines */
    }
    this.#emit("mcp-rendered", { query: q, ms, matches: total, nodes: this.#list.querySelectorAll("[role=option]").length })
  }

  #optionKey(i) {
    const r = this.#rows[this.#options[i]]
    if (!r) return null
    return `${r.hostIndex}|${r.match.resource?.uri ?? ""}|${r.match.template?.uriTemplate ?? ""}`
  }

  #renderAll() {
    const empty = this.#rows.length === 0
    this.#list.hidden = false
    if (empty) {
      this.#list.replaceChildren()
      const none = el("div", "mcp-mention-empty", { role: "option", "aria-disabled": "true", id: `${this.#ids}-none` })
      none.textContent = this.#anyListing() ? "No matches yet: still listing…" : "No matching resources"
      this.#list.append(none)
      this.#list.style.height = ""
      this.#renderedRange = [0, 0]
    } else {
      this.#measureRow()
      const off = (this.#offsets = new Array(this.#rows.length + 1))
      off[0] = 0
      this.#rows.forEach((r, i) => (off[i + 1] = off[i] + (r.type === "group" ? this.#groupHeight : this.#rowHeight)))
      this.#list.style.height = `${off[Math.min(this.#rows.length, 7)]}px`
      this.#renderWindow(true)
    }
    this.#renderFooter()
    this.#syncActiveDescendant()
    this.#position()
  }

  #measureRow() {
    const cs = getComputedStyle(this.#list)
    const num = (name, dflt) => {
      const n = parseFloat(cs.getPropertyValue(name).trim())
      return Number.isFinite(n) && n > 0 ? n : dflt
    }
    this.#rowHeight = num("--mcp-mention-row-height", DEFAULT_ROW_HEIGHT)
    this.#groupHeight = num("--mcp-mention-group-height", DEFAULT_GROUP_HEIGHT)
  }

  /** The index of the row at y pixels from the top of the list. */
  #rowAt(y) {
    const off = this.#offsets
    let lo = 0
    let hi = off.length - 2
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (off[mid] <= y) lo = mid
      else hi = mid - 1
    }
    return Math.max(0, lo)
  }

  /** Renders only the rows in view (plus overscan): never more than MAX_OPTION_NODES options. */
  #renderWindow(force = false) {
    const rows = this.#rows
    if (!rows.length) return
    const off = this.#offsets
    const top = this.#list.scrollTop
    const view = this.#list.clientHeight || 7 * this.#rowHeight
    let first = Math.max(0, this.#rowAt(top) - OVERSCAN)
    let last = Math.min(rows.length, this.#rowAt(top + view) + 1 + OVERSCAN)
    // cap option nodes
    let count = 0
    for (let i = first; i < last; i++) {
      if (rows[i].type === "option" && ++count > MAX_OPTION_NODES) {
        last = i
        break
      }
    }
    if (!force && first === this.#renderedRange[0] && last === this.#renderedRange[1]) return
    this.#renderedRange = [first, last]
    const frag = document.createDocumentFragment()
    const above = el("div", "mcp-mention-spacer", { "aria-hidden": "true" })
    above.style.height = `${off[first]}px`
    frag.append(above)
    let group = null
    for (let i = first; i < last; i++) {
      const r = rows[i]
      if (r.type === "group" || !group || group.dataset.host !== String(r.hostIndex)) {
        const g = r.type === "group" ? r : rows.find((x) => x.type === "group" && x.hostIndex === r.hostIndex)
        group = el("div", "mcp-mention-group", { role: "group", "aria-label": g.label, "data-host": String(r.hostIndex) })
        frag.append(group)
        if (r.type === "group") {
          const hd = el("div", "mcp-mention-group-header", { "aria-hidden": "true" })
          hd.append(Object.assign(el("bdi", "mcp-mention-server"), { textContent: r.label }), ` · ${r.count}`)
          group.append(hd)
          continue
        }
      }
      group.append(this.#renderOption(r))
    }
    const bottom = el("div", "mcp-mention-spacer", { "aria-hidden": "true" })
    bottom.style.height = `${off[rows.length] - off[last]}px`
    frag.append(bottom)
    this.#list.replaceChildren(frag)
    this.#syncActiveDescendant()
  }

  #renderOption(r) {
    const { match } = r
    const isTemplate = !match.resource && !!match.template
    const d = match.resource || match.template || {}
    const hl = match.highlights || {}
    const opt = el("div", "mcp-mention-option", {
      role: "option",
      id: `${this.#ids}-opt-${r.ordinal}`,
      "aria-selected": String(this.#active === r.ordinal),
      "aria-setsize": String(r.size),
      "aria-posinset": String(r.pos),
      "data-ordinal": String(r.ordinal),
    })
    if (isTemplate) opt.classList.add("is-template")
    const icon = el("span", "mcp-mention-icon", { "aria-hidden": "true" })
    const remote = this.remoteIcons
    const src = (Array.isArray(d.icons) ? d.icons : []).map((i) => safeIconSrc(i?.src, { remote })).find(Boolean)
    if (src) {
      const img = el("img", "", { alt: "", referrerpolicy: "no-referrer", loading: "lazy", width: "24", height: "24" })
      img.src = src
      icon.append(img)
    } else icon.textContent = glyphFor(d, isTemplate)
    // each server string in its own isolated span: a right-to-left name cannot reorder the row
    const title = el("span", "mcp-mention-title", { dir: "auto" })
    if (d.title) appendHighlighted(title, d.title, hl.title)
    else appendHighlighted(title, d.name, hl.name)
    const sub = el("span", "mcp-mention-sub")
    const uri = el("span", "mcp-mention-uri", { dir: "ltr" })
    appendHighlighted(uri, isTemplate ? d.uriTemplate : d.uri, hl.uri)
    sub.append(uri)
    if (d.description) {
      sub.append(" · ")
      const desc = el("span", "mcp-mention-desc", { dir: "auto" })
      appendHighlighted(desc, d.description, hl.description)
      sub.append(desc)
    }
    const meta = el("span", "mcp-mention-meta")
    if (isTemplate) meta.append(Object.assign(el("span", "mcp-mention-badge is-template"), { textContent: "template" }))
    const mb = mimeBadge(d.mimeType)
    if (mb) meta.append(Object.assign(el("span", "mcp-mention-badge mcp-mention-mime", { dir: "ltr" }), { textContent: displayText(mb) }))
    if (!isTemplate && typeof d.size === "number") {
      meta.append(Object.assign(el("span", "mcp-mention-size"), { textContent: formatBytes(d.size) }))
    }
    let verdict = true
    try {
      verdict = this.accepts(d, { template: isTemplate, host: r.host })
    } catch {
      verdict = true
    }
    if (verdict !== true) {
      opt.classList.add("is-unsupported")
      const b = el("span", "mcp-mention-badge is-unsupported")
      b.textContent = "not sent to model"
      b.title = typeof verdict === "string" ? displayText(verdict) : "The model provider cannot accept this type"
      meta.append(b)
    }
    opt.append(icon, title, meta, sub)
    return opt
  }

  #renderFooter() {
    const listing = [...this.#progress.values()].filter((p) => p && !p.done)
    const f = this.#footer
    f.replaceChildren()
    if (!listing.length && !this.#rows.length) {
      f.hidden = true
      return
    }
    f.hidden = false
    const left = el("span")
    const n = this.#options.length
    left.textContent = `${n.toLocaleString()} ${n === 1 ? "result" : "results"}`
    const right = el("span")
    if (listing.length) {
      const count = listing.reduce((s, p) => s + (p.resources || 0), 0)
      right.textContent = `Listing… ${count.toLocaleString()} resources so far`
      right.className = "mcp-mention-listing"
    } else right.textContent = "↑↓ move · Enter attach · Esc close"
    f.append(left, right)
  }

  #anyListing() {
    return [...this.#progress.values()].some((p) => p && !p.done)
  }

  #announce(total) {
    clearTimeout(this.#announceTimer)
    this.#announceTimer = setTimeout(() => {
      const servers = new Set(this.#rows.filter((r) => r.type === "group").map((r) => r.hostIndex)).size
      this.#live.textContent = total === 0
        ? "No results"
        : `${total} ${total === 1 ? "result" : "results"}${servers > 1 ? ` from ${servers} servers` : ""}`
    }, ANNOUNCE_DELAY)
  }

  // ---- showing, positioning, active option ----

  #show() {
    if (!this.open) {
      this.setAttribute("open", "")
      this.#popup.hidden = false
      this.#input?.setAttribute("aria-expanded", "true")
      this.#emit("mcp-open", {})
    }
  }

  #hide() {
    clearTimeout(this.#announceTimer)
    if (!this.open) return
    this.removeAttribute("open")
    this.#popup.hidden = true
    this.#list.replaceChildren()
    this.#rows = []
    this.#options = []
    this.#active = -1
    this.#token = null
    this.#input?.setAttribute("aria-expanded", "false")
    this.#input?.removeAttribute("aria-activedescendant")
    this.#live.textContent = ""
    this.#emit("mcp-close", {})
  }

  #position() {
    const t = this.#input
    if (!t || this.#popup.hidden) return
    const anchorId = this.getAttribute("anchor")
    const anchor = (anchorId && (this.getRootNode?.() || document).getElementById?.(anchorId)) || t
    const r = anchor.getBoundingClientRect()
    const vw = document.documentElement.clientWidth
    const vh = document.documentElement.clientHeight
    const width = Math.min(Math.max(r.width, 320), 640, vw - 16)
    const left = Math.max(8, Math.min(r.left, vw - width - 8))
    const p = this.#popup.style
    p.width = `${width}px`
    p.left = `${left}px`
    const above = r.top
    const below = vh - r.bottom
    if (above > below) {
      p.top = ""
      p.bottom = `${vh - r.top + 6}px`
      p.maxHeight = `${Math.max(120, above - 14)}px`
    } else {
      p.bottom = ""
      p.top = `${r.bottom + 6}px`
      p.maxHeight = `${Math.max(120, below - 14)}px`
    }
  }

  #setActive(i, scroll = true) {
    const n = this.#options.length
    if (!n) return
    this.#active = i < 0 ? -1 : Math.min(i, n - 1)
    if (scroll && this.#active >= 0) {
      const rowIndex = this.#options[this.#active]
      // keep the group header in view for a group's first option
      const topRow = this.#rows[rowIndex - 1]?.type === "group" ? rowIndex - 1 : rowIndex
      const y0 = this.#offsets[topRow]
      const y1 = this.#offsets[rowIndex + 1]
      const L = this.#list
      if (y0 < L.scrollTop) L.scrollTop = y0
      else if (y1 > L.scrollTop + L.clientHeight) L.scrollTop = y1 - L.clientHeight
    }
    this.#renderWindow()
    this.#syncActiveDescendant()
  }

  #syncActiveDescendant() {
    for (const o of this.#list.querySelectorAll("[role=option][aria-selected=true]")) o.setAttribute("aria-selected", "false")
    const id = `${this.#ids}-opt-${this.#active}`
    const opt = this.#active >= 0 ? this.#list.querySelector(`#${CSS.escape(id)}`) : null
    if (opt) {
      opt.setAttribute("aria-selected", "true")
      this.#input?.setAttribute("aria-activedescendant", id)
    } else this.#input?.removeAttribute("aria-activedescendant")
  }

  #onKeydown(e) {
    if (this.#composing || e.isComposing || e.keyCode === 229) return
    if (e.altKey && e.key === "ArrowDown" && !this.open) {
      this.#suppressed = null
      this.#evaluate(e.timeStamp)
      if (this.open) e.preventDefault()
      return
    }
    if (!this.open || this.#tmpl) return
    if (e.altKey && e.key === "ArrowUp") {
      this.#escape(e)
      return
    }
    if (e.shiftKey || e.metaKey || e.altKey) return
    const mac = /Mac|iPhone|iPad/.test(navigator.platform || "")
    let key = e.key
    if (e.ctrlKey) {
      if (mac && key === "n") key = "ArrowDown"
      else if (mac && key === "p") key = "ArrowUp"
      else return
    }
    const n = this.#options.length
    const page = Math.max(1, Math.floor((this.#list.clientHeight || 7 * this.#rowHeight) / this.#rowHeight) - 1)
    const stop = () => {
      e.preventDefault()
      e.stopImmediatePropagation()
    }
    switch (key) {
      case "ArrowDown":
        stop()
        if (n) this.#setActive(this.#active + 1 >= n ? -1 : this.#active + 1)
        break
      case "ArrowUp":
        stop()
        if (n) this.#setActive(this.#active <= -1 ? n - 1 : this.#active - 1)
        break
      case "PageDown":
        if (n) {
          stop()
          this.#setActive(Math.min(n - 1, Math.max(0, this.#active) + page))
        }
        break
      case "PageUp":
        if (n) {
          stop()
          this.#setActive(Math.max(0, this.#active - page))
        }
        break
      case "Enter":
      case "Tab":
        if (this.#active >= 0) {
          stop()
          this.#commitActive()
        }
        break
      case "Escape":
        this.#escape(e)
        break
    }
  }

  #escape(e) {
    e.preventDefault()
    e.stopImmediatePropagation()
    const tok = this.#token
    this.#suppressed = tok ? { start: tok.start, query: tok.query } : null
    this.#hide()
  }

  #onFocusOut(e) {
    const to = e.relatedTarget
    if (to && (to === this.#input || this.#popup.contains(to))) return
    // a click inside the popup keeps focus via mousedown.preventDefault; anything else closes
    queueMicrotask(() => {
      const a = document.activeElement
      if (a && (a === this.#input || this.#popup.contains(a))) return
      this.close()
    })
  }

  #onHostEvent(host, e) {
    if (e.type === "listprogress") this.#progress.set(host, e.detail)
    if (this.open && !this.#tmpl) this.#scheduleRefresh()
  }

  #scheduleRefresh() {
    if (this.#refreshRaf) return
    this.#refreshRaf = requestAnimationFrame(() => {
      this.#refreshRaf = 0
      if (this.open && this.#token && !this.#tmpl) {
        this.#inputStamp = performance.now()
        this.#query(this.#token.query, false)
      }
    })
  }

  #emit(type, detail, cancelable = false) {
    return this.dispatchEvent(new CustomEvent(type, { bubbles: true, cancelable, detail }))
  }

  // ---- committing ----

  #commitActive() {
    const r = this.#rows[this.#options[this.#active]]
    if (!r) return
    const { match, host } = r
    if (match.resource) {
      const d = match.resource
      this.#commitURI(d.uri, host, d.title || d.name || d.uri, this.#token)
      this.#hide()
    } else if (match.template) {
      this.#beginTemplate(match.template, host, this.#token)
    }
  }

  /** Fires mcp-attach; unless cancelled, inserts the token and attaches via the host. */
  #commitURI(uri, host, label, tok) {
    const go = this.#emit("mcp-attach", { uri, host }, true)
    if (!go) return false
    this.#insertToken(tok, uri, label)
    this.#hide()
    Promise.resolve()
      .then(() => host.attach(uri))
      .then(
        (attachments) => this.#emit("mcp-attached", { uri, host, attachments }),
        (error) => this.#emit("mcp-error", { uri, host, error, stage: "attach" }),
      )
    return true
  }

  #insertToken(tok, uri, label) {
    const t = this.#input
    if (!t || !tok) return
    if (this.#kind === "textarea") {
      // shown as displayText: a URI with bidi controls must not reorder the composer (the event details keep the real URI)
      const text = `@${displayText(uri)} `
      t.focus()
      t.setSelectionRange(tok.start, tok.end)
      // setRangeText keeps the undo-free path simple and works in every engine
      t.setRangeText(text, tok.start, tok.end, "end")
      t.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertReplacementText", data: text }))
      return
    }
    const node = tok.node
    if (!node || !node.isConnected) return
    const after = node.splitText(tok.end)
    node.data = node.data.slice(0, tok.start)
    const chip = document.createElement("span")
    chip.className = "mcp-mention-token"
    chip.contentEditable = "false"
    chip.dataset.uri = uri
    chip.dir = "auto"
    chip.textContent = `@${displayText(label)}`
    const space = document.createTextNode("\u00a0")
    after.before(chip, space)
    t.focus()
    const sel = t.ownerDocument.getSelection()
    const range = t.ownerDocument.createRange()
    range.setStart(space, 1)
    range.collapse(true)
    sel.removeAllRanges()
    sel.addRange(range)
    t.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertReplacementText" }))
  }

  // ---- template arguments ----

  #beginTemplate(template, host, tok) {
    const names = typeof host.templateVars === "function" ? host.templateVars(template.uriTemplate) : templateVars(template.uriTemplate)
    if (!names.length) {
      // nothing to fill in: the template is a URI
      let uri
      try {
        uri = host.expand(template.uriTemplate, {})
      } catch (error) {
        this.#emit("mcp-error", { host, error, stage: "expand" })
        return
      }
      this.#commitURI(uri, host, template.title || template.name, tok)
      return
    }
    this.#tmpl = { template, host, tok, names, step: 0, values: {}, suggestions: [], active: -1, timer: 0, ac: null }
    this.#list.hidden = true
    this.#footer.hidden = true
    this.#input?.removeAttribute("aria-activedescendant")
    this.#args.root.hidden = false
    this.#position()
    this.#showStep()
    this.#args.input.focus()
    this.#emit("mcp-template", { template, host, vars: names })
  }

  #showStep() {
    const s = this.#tmpl
    const a = this.#args
    const name = s.names[s.step]
    a.tpl.replaceChildren()
    // the template with the current variable highlighted
    const text = s.template.uriTemplate
    let at = 0
    for (const m of text.matchAll(/\{[^}]*\}/g)) {
      if (m.index > at) a.tpl.append(displayText(text.slice(at, m.index)))
      const span = el("span")
      span.textContent = displayText(m[0])
      const vars = templateVars(m[0])
      if (vars.includes(name)) span.className = "is-current"
      a.tpl.append(span)
      at = m.index + m[0].length
    }
    if (at < text.length) a.tpl.append(displayText(text.slice(at)))
    a.label.textContent = `${displayText(name)} (${s.step + 1} of ${s.names.length})`
    a.input.value = s.values[name] ?? ""
    a.err.textContent = ""
    s.ac?.abort()
    s.suggestions = []
    s.active = -1
    a.list.replaceChildren()
    a.list.hidden = true
    a.input.setAttribute("aria-expanded", "false")
    a.input.removeAttribute("aria-activedescendant")
    this.#live.textContent = `${displayText(s.template.title || s.template.name)}: enter ${displayText(name)}, ${s.step + 1} of ${s.names.length}`
    this.#requestCompletion()
  }

  #argInput() {
    this.#args.err.textContent = ""
    this.#requestCompletion()
  }

  #requestCompletion() {
    const s = this.#tmpl
    if (!s) return
    clearTimeout(s.timer)
    s.ac?.abort()
    s.timer = setTimeout(() => {
      if (this.#tmpl !== s || typeof s.host.complete !== "function") return
      const name = s.names[s.step]
      const value = this.#args.input.value
      const ctx = {}
      for (const n of s.names.slice(0, s.step)) if (s.values[n] != null) ctx[n] = s.values[n]
      const ac = (s.ac = new AbortController())
      Promise.resolve()
        .then(() => s.host.complete(s.template.uriTemplate, name, value, ctx, { signal: ac.signal }))
        .then((c) => {
          if (ac.signal.aborted || this.#tmpl !== s || s.names[s.step] !== name) return
          this.#renderSuggestions(Array.isArray(c?.values) ? c.values : [], c)
        })
        .catch((error) => {
          if (ac.signal.aborted || error?.kind === "cancelled") return
          if (this.#tmpl === s) this.#renderSuggestions([], null)
          this.#emit("mcp-error", { host: s.host, error, stage: "complete" })
        })
    }, COMPLETE_DEBOUNCE)
  }

  #renderSuggestions(values, completion) {
    const s = this.#tmpl
    const a = this.#args
    s.suggestions = values.slice(0, MAX_OPTION_NODES).map(String)
    s.active = -1
    a.list.replaceChildren()
    s.suggestions.forEach((v, i) => {
      const o = el("div", "mcp-mention-option", {
        role: "option", id: `${this.#ids}-sugg-${i}`, "aria-selected": "false",
        "aria-setsize": String(s.suggestions.length), "aria-posinset": String(i + 1),
      })
      o.dataset.value = v
      o.dir = "auto"
      o.textContent = displayText(v)
      a.list.append(o)
    })
    const open = s.suggestions.length > 0
    a.list.hidden = !open
    a.input.setAttribute("aria-expanded", String(open))
    a.input.removeAttribute("aria-activedescendant")
    const more = completion?.hasMore ? " (more available, keep typing)" : ""
    this.#live.textContent = open ? `${s.suggestions.length} suggestions${more}` : "No suggestions"
    this.#emit("mcp-suggestions", { name: s.names[s.step], values: s.suggestions.slice() })
  }

  #setSuggestion(i) {
    const s = this.#tmpl
    const a = this.#args
    const n = s.suggestions.length
    if (!n) return
    s.active = i < -1 ? n - 1 : i >= n ? -1 : i
    for (const o of a.list.children) o.setAttribute("aria-selected", "false")
    if (s.active >= 0) {
      const o = a.list.children[s.active]
      o.setAttribute("aria-selected", "true")
      o.scrollIntoView?.({ block: "nearest" })
      a.input.setAttribute("aria-activedescendant", o.id)
    } else a.input.removeAttribute("aria-activedescendant")
  }

  #argKeydown(e) {
    const s = this.#tmpl
    if (!s || e.isComposing || e.keyCode === 229) return
    if (e.metaKey || e.altKey || e.ctrlKey) return
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault()
        this.#setSuggestion(s.active + 1)
        break
      case "ArrowUp":
        e.preventDefault()
        this.#setSuggestion(s.active - 1)
        break
      case "Enter":
      case "Tab":
        if (e.key === "Tab" && e.shiftKey) return
        e.preventDefault()
        this.#acceptArg(s.active >= 0 ? s.suggestions[s.active] : this.#args.input.value)
        break
      case "Backspace":
        if (this.#args.input.value === "" && s.step > 0) {
          e.preventDefault()
          s.step--
          this.#showStep()
        }
        break
      case "Escape":
        e.preventDefault()
        e.stopPropagation()
        this.#endTemplate(true)
        break
    }
  }

  /** Takes value for the current variable; validates with expand(); steps on or attaches. */
  #acceptArg(value) {
    const s = this.#tmpl
    if (!s) return
    const name = s.names[s.step]
    const values = { ...s.values, [name]: String(value ?? "") }
    let uri
    try {
      uri = s.host.expand(s.template.uriTemplate, values)
    } catch (error) {
      const msg = error?.message || String(error)
      this.#args.err.textContent = `Refused ${displayText(name)} = “${displayText(values[name])}”: ${displayText(msg, { multiline: true })}`
      this.#args.input.focus()
      this.#args.input.select()
      this.#emit("mcp-error", { host: s.host, error, stage: "expand", name, value: values[name], template: s.template.uriTemplate })
      return
    }
    s.values = values
    if (s.step + 1 < s.names.length) {
      s.step++
      this.#showStep()
      return
    }
    const { host, tok, template } = s
    this.#endTemplate(false)
    this.#commitURI(uri, host, template.title || template.name, tok)
    this.#input?.focus()
  }

  #endTemplate(refocus) {
    const s = this.#tmpl
    if (!s) return
    clearTimeout(s.timer)
    s.ac?.abort()
    this.#tmpl = null
    const a = this.#args
    a.root.hidden = true
    a.list.replaceChildren()
    a.list.hidden = true
    a.err.textContent = ""
    a.input.value = ""
    a.input.setAttribute("aria-expanded", "false")
    a.input.removeAttribute("aria-activedescendant")
    this.#list.hidden = false
    if (refocus) {
      const t = this.#input
      t?.focus()
      if (t && this.#kind === "textarea" && s.tok) t.setSelectionRange(s.tok.end, s.tok.end)
      this.#suppressed = s.tok ? { start: s.tok.start, query: s.tok.query } : null
      this.#hide()
    }
  }
}

MentionElement.define()
