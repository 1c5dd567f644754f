// <mcp-mention>: an @-mention picker for MCP resources and resource
// templates, and a "/" list of the servers' prompts (slash commands), bound
// to a chat composer (a <textarea> or a contenteditable).
//
//   <textarea id="composer"></textarea>
//   <mcp-mention for="composer"></mcp-mention>
//   <script type="module">
//     import "./mention.js"
//     document.querySelector("mcp-mention").hosts = [await connect(url)]
//   </script>
//
// Plain ES modules, light DOM, no framework, no dependencies, no build step.
// This module is the element; its parts are in ./mention/: caret.js (the
// @token at the caret, inserting the chosen one), combobox.js (keyboard and
// composer ARIA, after GitHub's auto-complete-element + combobox-nav),
// list.js (the virtual listbox), option.js (one row, and the helpers that
// decide what it shows), template.js (template and prompt arguments),
// rank.js (the picker index's ranking, for prompts) and dom.js. Every
// string that came from a server is written with textContent (or
// setAttribute), never as markup, through displayText (bidi controls and
// invisible characters shown as ⟨U+XXXX⟩ markers) and in its own
// bidi-isolated span; searching and events use the real strings. Icons are
// data: images unless remote-icons is set. See docs/ui.md.

import { displayText } from "./display.js"
import { caretToken, insertToken, isTextControl, removeToken } from "./mention/caret.js"
import { ComposerAria, keyAction, moveActive } from "./mention/combobox.js"
import { adoptDefaultStyles, el } from "./mention/dom.js"
import { VirtualList, rowKey } from "./mention/list.js"
import { DEFAULT_ACCEPT_IMAGES, defaultAccepts, renderOption } from "./mention/option.js"
import { rankPrompts } from "./mention/rank.js"
import { TemplateArgs } from "./mention/template.js"

export { displayText }
export { findMention, findTrigger } from "./mention/caret.js"
export { rankPrompts } from "./mention/rank.js"
export { MAX_OPTION_NODES } from "./mention/list.js"
export {
  DEFAULT_ACCEPT_IMAGES, ICON_DATA_TYPES, MAX_ICON_DATA_URL, defaultAccepts, formatBytes, normalizeRanges, safeIconSrc,
} from "./mention/option.js"

const ANNOUNCE_DELAY = 100
const HOST_EVENTS = ["listprogress", "listchanged", "disconnected", "reconnected", "promptslistchanged"]
const KNOWN_TRIGGERS = ["@", "/"]
const DEFAULT_TRIGGERS = "@ /"

const HTMLElementBase = globalThis.HTMLElement || class {}
let uid = 0

// One formatter for the footer's counts: toLocaleString() builds a number
// format for every call, a tenth of a millisecond a keystroke.
const countFormat = typeof Intl !== "undefined" ? new Intl.NumberFormat() : null
function formatCount(n) {
  return countFormat ? countFormat.format(n) : String(n)
}

// sameGeo reports whether two #measure results place the popup alike.
function sameGeo(a, b) {
  if (!a || !b) return a === b
  return a.vw === b.vw && a.vh === b.vh && a.r.top === b.r.top && a.r.bottom === b.r.bottom && a.r.left === b.r.left && a.r.width === b.r.width
}

function serverLabel(host, i) {
  const info = host?.serverInfo || {}
  return info.title || info.name || `Server ${i + 1}`
}

/**
 * <mcp-mention for="composer-id">. Properties: hosts, accepts, limit,
 * triggers, open. Events (bubbling CustomEvents): mcp-attach (cancelable,
 * {uri, host, label, and template and vars when a template was filled in}),
 * mcp-attached ({uri, host, attachments}), mcp-prompt ({name, args,
 * description, messages, dropped, superseded, prompt, host}), mcp-error
 * ({uri?, host, error, stage}), mcp-rendered ({query, ms, matches, nodes}).
 */
export class MentionElement extends HTMLElementBase {
  static observedAttributes = ["for", "limit", "accept-images", "anchor", "remote-icons", "triggers"]

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
  #aria = null // ComposerAria of the bound composer
  #ids = null
  #popup = null
  #list = null // the role=listbox element
  #view = null // its VirtualList
  #footer = null
  #live = null
  #args = null // TemplateArgs
  #error = null // the popup's role=alert line (a prompt without arguments that failed)
  #prompts = new Map() // host -> {list, error, loading} of its prompts/list
  #getting = null // {ac, tok} of the getPrompt in flight for a prompt without arguments
  #token = null // {start, end, query, trigger, node?}
  #suppressed = null // {start, query} of the token Escape closed; stays closed until typing changes it
  #composing = false
  #inputStamp = 0
  #progress = new Map() // host -> its last listprogress detail
  #hostListeners = new Map() // host -> the listener added for HOST_EVENTS while connected
  #announceTimer = 0
  #refreshRaf = 0
  #placeRaf = 0 // the frame that checks the popup's place (#checkPlace)
  #geo = null // the anchor's box when last measured (#measure)
  #ac = null // AbortController of the element's listeners on the composer, the popup and window

  constructor() {
    super()
    this.#ids = `mcp-mention-${++uid}`
  }

  /**
   * The MCP hosts (from connect()) whose resources are offered, grouped by
   * server in this order. Setting them re-evaluates the @token at the caret
   * of a focused composer, so a query typed before the hosts arrived shows.
   */
  get hosts() {
    return this.#hosts.slice()
  }
  set hosts(value) {
    const next = Array.isArray(value) ? value.filter(Boolean) : value ? [value] : []
    this.#unlistenHosts()
    this.#hosts = next
    for (const h of this.#progress.keys()) if (!next.includes(h)) this.#progress.delete(h)
    for (const h of this.#prompts.keys()) if (!next.includes(h)) this.#prompts.delete(h)
    if (this.isConnected) this.#listenHosts()
    this.#scheduleRefresh()
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

  /**
   * What a chosen entry leaves in a textarea or input (attribute token):
   * "uri" (the default) writes `@<uri> `, "label" writes `@<label> ` (its
   * title, else name), for composers that show people names rather than
   * addresses. The events carry the URI either way; a contenteditable
   * composer always gets a token showing the label.
   */
  get token() {
    return this.getAttribute("token") === "label" ? "label" : "uri"
  }
  set token(v) {
    this.setAttribute("token", v === "label" ? "label" : "uri")
  }

  /**
   * The characters that open the popup (attribute triggers, space-separated;
   * default "@ /"): "@" lists resources and templates, "/" lists the
   * servers' prompts. triggers="@" turns the prompt list off; others are
   * ignored. Reads back normalized ("@ /", "@", "/" or "").
   */
  get triggers() {
    const a = this.getAttribute("triggers")
    const set = (a == null ? DEFAULT_TRIGGERS : a).split(/[\s,]+/)
    return KNOWN_TRIGGERS.filter((t) => set.includes(t)).join(" ")
  }
  set triggers(v) {
    this.setAttribute("triggers", Array.isArray(v) ? v.join(" ") : String(v ?? ""))
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
    this.#listenHosts()
  }

  /** Lets go of the composer and of every host: a removed picker is referenced by neither. */
  disconnectedCallback() {
    this.#unbind()
    this.#unlistenHosts()
    cancelAnimationFrame(this.#refreshRaf)
    this.#refreshRaf = 0
    cancelAnimationFrame(this.#placeRaf)
    this.#placeRaf = 0
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return
    if (name === "for" && this.isConnected && this.#popup) {
      this.#unbind()
      this.#bind()
    } else if (name === "triggers" && this.#token && !this.triggers.split(" ").includes(this.#token.trigger)) {
      this.close()
    } else if (this.open) this.#scheduleRefresh()
  }

  /** Closes the popup (and abandons a template or a prompt in progress). */
  close() {
    this.#endTemplate(false)
    this.#abandonPrompt()
    this.#hide()
  }

  // ---- construction and binding ----

  #build() {
    const id = this.#ids
    this.#popup = el("div", "mcp-mention-popup", { id: `${id}-popup` })
    this.#popup.hidden = true
    this.#list = el("div", "mcp-mention-list", { id: `${id}-list`, role: "listbox", "aria-label": "Resources" })
    this.#view = new VirtualList(this.#list, id, (r, reuse) =>
      renderOption(r, id, { active: this.#view.active, remoteIcons: this.remoteIcons, accepts: this.accepts }, reuse))
    this.#footer = el("div", "mcp-mention-footer")
    this.#footer.hidden = true
    this.#args = new TemplateArgs(id, {
      announce: (text) => (this.#live.textContent = text),
      emit: (type, detail) => this.#emit(type, detail),
      done: (uri, s) => {
        this.#afterTemplate(s, false)
        this.#commitURI(uri, s.host, s.template.title || s.template.name, s.tok, { template: s.template, vars: { ...s.values } })
        this.#input?.focus()
      },
      cancel: (s) => {
        s?.getting?.abort()
        this.#afterTemplate(s, true)
      },
      prompt: (args, s) => this.#getPrompt(s.prompt, s.host, s.tok, args, s),
    })
    this.#error = el("div", "mcp-mention-error", { id: `${id}-error`, role: "alert" })
    this.#popup.append(this.#error, this.#list, this.#args.root, this.#footer)
    this.#live = el("div", "mcp-mention-sr", { role: "status", "aria-live": "polite", "aria-atomic": "true" })
    this.append(this.#popup, this.#live)
  }

  #bind() {
    const target = this.#resolveFor()
    if (!target) return
    this.#input = target
    this.#aria = new ComposerAria(target, this.#list.id, !isTextControl(target))
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
      if (!opt || !opt.dataset.ordinal) return
      this.#setActive(Number(opt.dataset.ordinal), false)
      this.#commitActive()
    }, o)
    this.#list.addEventListener("scroll", () => this.#view.scrolled((id) => (this.#aria.activeDescendant = id)), o)
    this.#args.bind(this.#ac.signal)
    const reposition = () => this.open && this.#position()
    window.addEventListener("resize", reposition, o)
    window.addEventListener("scroll", reposition, { ...o, capture: true, passive: true })
  }

  #unbind() {
    this.#ac?.abort()
    this.#ac = null
    this.#endTemplate(false)
    this.#abandonPrompt()
    this.#hide()
    this.#aria?.restore()
    this.#aria = null
    this.#input = null
  }

  #listenHosts() {
    for (const h of this.#hosts) {
      if (this.#hostListeners.has(h)) continue
      const fn = (e) => this.#onHostEvent(h, e)
      for (const t of HOST_EVENTS) h.addEventListener?.(t, fn)
      this.#hostListeners.set(h, fn)
    }
  }

  #unlistenHosts() {
    for (const [h, fn] of this.#hostListeners) for (const t of HOST_EVENTS) h.removeEventListener?.(t, fn)
    this.#hostListeners.clear()
  }

  #resolveFor() {
    const id = this.getAttribute("for")
    if (!id) return null
    const root = this.getRootNode?.() || document
    return root.getElementById ? root.getElementById(id) : document.getElementById(id)
  }

  // ---- reading the composer ----

  #onInput(e) {
    if (this.#composing || e?.isComposing) return
    this.#evaluate(e?.timeStamp || performance.now(), true)
  }

  /** Re-reads the token at the caret and opens, updates or closes the list. */
  #evaluate(stamp, typed = false) {
    if (this.#args.active) return
    const tok = caretToken(this.#input, this.triggers.split(" "))
    if (!tok) this.#suppressed = null
    if (!tok || !this.#hosts.length) {
      this.#hide()
      return
    }
    const sup = this.#suppressed
    if (sup && sup.start === tok.start && (!typed || sup.query === tok.query)) {
      this.#hide()
      return
    }
    this.#suppressed = null
    if (this.#getting && (this.#token?.start !== tok.start || this.#token?.query !== tok.query)) this.#abandonPrompt()
    this.#token = tok
    this.#inputStamp = stamp
    this.#query(tok.query, true)
  }

  /** Whether the composer has focus (so a token at its caret is being typed). */
  #focused() {
    const t = this.#input
    const a = t?.getRootNode().activeElement ?? document.activeElement
    return !!t && !!a && (a === t || t.contains(a))
  }

  // ---- querying and rendering ----

  #query(q, resetActive) {
    const rows = []
    const options = []
    let total = 0
    const limit = this.limit
    const prompts = this.#token?.trigger === "/"
    if (prompts && !this.#offersPrompts()) {
      this.#hide() // no server offers prompts: "/" is only a character
      return
    }
    // The anchor's box: measured when the list opens, before anything
    // below changes the DOM (read after the list was rebuilt, it made the
    // browser lay the new list out inside the keystroke, and the popup's new
    // position then cost a second style and layout pass). While the list is
    // open a keystroke places it by the box measured last and checks the box
    // in the next animation frame, before that frame is drawn: measuring
    // here would lay out the composer's new text inside the keystroke, a
    // layout pass of its own, and the frame's layout is needed anyway.
    const geo = this.open && this.#geo ? this.#geo : this.#measure()
    this.#list.setAttribute("aria-label", prompts ? "Prompts" : "Resources")
    this.#hosts.forEach((host, hostIndex) => {
      let matches = []
      try {
        matches = prompts ? this.#promptMatches(host, q, limit) : host.mention(q, { limit }) || []
      } catch (error) {
        this.#emit("mcp-error", { host, error, stage: prompts ? "prompts" : "mention" })
      }
      if (!matches.length) return
      rows.push({ type: "group", hostIndex, host, label: displayText(serverLabel(host, hostIndex)), count: matches.length })
      matches.forEach((match, i) => {
        options.push(rows.length)
        rows.push({ type: "option", match, host, hostIndex, pos: i + 1, size: matches.length, ordinal: options.length - 1 })
      })
      total += matches.length
    })
    const v = this.#view
    const prevKey = !resetActive && v.active >= 0 ? rowKey(v.optionRow(v.active)) : null
    v.rows = rows
    v.options = options
    v.active = prevKey ? options.findIndex((_, k) => rowKey(v.optionRow(k)) === prevKey) : -1
    this.#show()
    this.#aria.activeDescendant = v.render(rows.length ? "" : this.#emptyText(), resetActive)
    this.#renderFooter()
    this.#place(geo)
    this.#checkPlace()
    this.#announce(total)
    const ms = performance.now() - this.#inputStamp
    try {
      performance.measure("mcp-mention-render", { start: this.#inputStamp, end: performance.now(), detail: { query: q } })
    } catch {
      /* older engines */
    }
    this.#emit("mcp-rendered", { query: q, ms, matches: total, nodes: this.#list.querySelectorAll("[role=option]").length })
  }

  // ---- prompts: listed per host on first "/", again after promptslistchanged or a reconnect ----

  /** The host's prompts ranked for q (./mention/rank.js); starts listing them on first use. */
  #promptMatches(host, q, limit) {
    const p = this.#loadPrompts(host)
    return p.list ? rankPrompts(p.list, q, { limit }) : []
  }

  #loadPrompts(host) {
    let p = this.#prompts.get(host)
    if (p) return p
    p = { list: null, error: null, loading: null }
    this.#prompts.set(host, p)
    const caps = host.capabilities
    if (typeof host.prompts !== "function" || (caps && typeof caps === "object" && !caps.prompts)) {
      // nothing to ask: the server declared no prompts (host.prompts() would reject "unsupported" without sending)
      p.error = Object.assign(new Error("the server offers no prompts"), { kind: "unsupported" })
      return p
    }
    p.loading = Promise.resolve()
      .then(() => host.prompts())
      .then(
        (list) => (p.list = Array.isArray(list) ? list : []),
        (error) => {
          p.error = error
          // a server without the prompts capability is no failure: it just offers none
          if (error?.kind !== "unsupported") this.#emit("mcp-error", { host, error, stage: "prompts" })
        },
      )
      .finally(() => {
        p.loading = null
        if (this.#prompts.get(host) === p) this.#scheduleRefresh()
      })
    return p
  }

  /** Whether any host offers prompts (or may: its listing is still running). */
  #offersPrompts() {
    return this.#hosts.some((h) => {
      const p = this.#loadPrompts(h)
      return p.loading || p.list?.length || (p.error && p.error.kind !== "unsupported")
    })
  }

  /**
   * The text of the row shown without matches: loading while a host has
   * listed nothing yet (no listprogress seen and an empty index), still
   * listing while a listing runs, else no matches.
   */
  #emptyText() {
    if (this.#token?.trigger === "/") {
      const ps = this.#hosts.map((h) => this.#prompts.get(h))
      if (ps.some((p) => p?.loading)) return "Loading prompts…"
      const failed = ps.find((p) => p?.error && p.error.kind !== "unsupported")
      if (failed && !ps.some((p) => p?.list?.length)) return `Prompts could not be listed: ${displayText(failed.error.message || String(failed.error))}`
      return "No matching prompts"
    }
    let listing = false
    for (const h of this.#hosts) {
      const p = this.#progress.get(h)
      if (p && !p.done) listing = true
      else if (!p) {
        let empty = false
        try {
          empty = !(h.mention("", { limit: 1 }) || []).length
        } catch {
          /* reported by the query */
        }
        if (empty) return "Loading resources…"
      }
    }
    return listing ? "No matches yet: still listing…" : "No matching resources"
  }

  #renderFooter() {
    const listing = [...this.#progress.values()].filter((p) => p && !p.done)
    const f = this.#footer
    if (!listing.length && !this.#view.rows.length) {
      f.hidden = true
      return
    }
    f.hidden = false
    // two spans, kept: a keystroke changes their text, not the elements
    if (f.childElementCount !== 2) f.replaceChildren(el("span"), el("span"))
    const [left, right] = f.children
    const n = this.#view.options.length
    const count = `${formatCount(n)} ${n === 1 ? "result" : "results"}`
    if (left.textContent !== count) left.textContent = count
    let text
    if (listing.length) {
      const resources = listing.reduce((s, p) => s + (p.resources || 0), 0)
      text = `Listing… ${formatCount(resources)} resources so far`
    } else text = this.#token?.trigger === "/" ? "↑↓ move · Enter choose · Esc close" : "↑↓ move · Enter attach · Esc close"
    if (right.textContent !== text) right.textContent = text
    const cls = listing.length ? "mcp-mention-listing" : ""
    if (right.className !== cls) right.className = cls
  }

  #announce(total) {
    clearTimeout(this.#announceTimer)
    this.#announceTimer = setTimeout(() => {
      const servers = new Set(this.#view.rows.filter((r) => r.type === "group").map((r) => r.hostIndex)).size
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
      if (this.#aria) this.#aria.expanded = true
      this.#emit("mcp-open", {})
    }
  }

  #hide() {
    clearTimeout(this.#announceTimer)
    if (!this.open) return
    this.removeAttribute("open")
    this.#popup.hidden = true
    this.#view.clear()
    this.#error.textContent = ""
    this.#token = null
    if (this.#aria) this.#aria.expanded = false
    this.#live.textContent = ""
    this.#emit("mcp-close", {})
  }

  #position() {
    this.#place(this.#measure())
  }

  /** The anchor's box and the viewport's size (kept as the last measured), or null without a composer. */
  #measure() {
    const t = this.#input
    if (!t) return (this.#geo = null)
    const anchorId = this.getAttribute("anchor")
    const anchor = (anchorId && (this.getRootNode?.() || document).getElementById?.(anchorId)) || t
    const r = anchor.getBoundingClientRect()
    const { clientWidth: vw, clientHeight: vh } = document.documentElement
    return (this.#geo = { r: { top: r.top, bottom: r.bottom, left: r.left, width: r.width }, vw, vh })
  }

  /** In the next animation frame: measures the anchor again and moves the popup if it moved. */
  #checkPlace() {
    if (this.#placeRaf) return
    this.#placeRaf = requestAnimationFrame(() => {
      this.#placeRaf = 0
      if (!this.open) return
      const was = this.#geo
      const geo = this.#measure()
      if (!sameGeo(was, geo)) this.#place(geo)
    })
  }

  /** Places the open popup by geo (#measure) next to its anchor. */
  #place(geo) {
    if (!geo || this.#popup.hidden) return
    const { r, vw, vh } = geo
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
    this.#aria.activeDescendant = this.#view.setActive(i, scroll)
  }

  #onKeydown(e) {
    if (this.#composing) return
    const action = keyAction(e, this.open && !this.#args.active)
    if (action === "open") {
      if (this.#args.active) return
      this.#suppressed = null
      this.#evaluate(e.timeStamp)
      if (this.open) e.preventDefault()
      return
    }
    if (!action) return
    if (action === "close" || action === "escape") {
      this.#escape(e)
      return
    }
    const v = this.#view
    const n = v.options.length
    const stop = () => {
      e.preventDefault()
      e.stopImmediatePropagation()
    }
    if (action === "commit") {
      if (v.active >= 0) {
        stop()
        this.#commitActive()
      }
      return
    }
    // the arrows always stay in the picker; PageDown/PageUp only when there are options
    if (action === "next" || action === "prev" || n) stop()
    if (n) this.#setActive(moveActive(action, v.active, n, v.page))
  }

  #escape(e) {
    e.preventDefault()
    e.stopImmediatePropagation()
    const tok = this.#token
    this.#suppressed = tok ? { start: tok.start, query: tok.query } : null
    this.#abandonPrompt()
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
    // the host lists its prompts anew after either: so does the picker
    if (e.type === "promptslistchanged" || e.type === "reconnected") this.#prompts.delete(host)
    this.#scheduleRefresh()
  }

  /**
   * Once per frame after the hosts or their listings changed: an open list
   * queries again (keeping the selected option); a closed one re-reads the
   * token at the caret of a focused composer, so a query typed before
   * anything was listed shows without another key.
   */
  #scheduleRefresh() {
    if (this.#refreshRaf || !this.isConnected) return
    this.#refreshRaf = requestAnimationFrame(() => {
      this.#refreshRaf = 0
      if (this.#args.active || !this.#input) return
      if (this.open && this.#token && this.#hosts.length) {
        this.#inputStamp = performance.now()
        this.#query(this.#token.query, false)
      } else if (this.open || this.#focused()) this.#evaluate(performance.now())
    })
  }

  #emit(type, detail, cancelable = false) {
    return this.dispatchEvent(new CustomEvent(type, { bubbles: true, cancelable, detail }))
  }

  // ---- committing ----

  #commitActive() {
    const r = this.#view.optionRow(this.#view.active)
    if (!r) return
    const { match, host } = r
    if (match.prompt) {
      this.#beginPrompt(match.prompt, host, this.#token)
    } else if (match.resource) {
      const d = match.resource
      this.#commitURI(d.uri, host, d.title || d.name || d.uri, this.#token)
      this.#hide()
    } else if (match.template) {
      this.#beginTemplate(match.template, host, this.#token)
    }
  }

  /**
   * Fires mcp-attach; unless cancelled, inserts the token and attaches via
   * the host. The popup closes either way: the choice is made.
   */
  #commitURI(uri, host, label, tok, from = {}) {
    const go = this.#emit("mcp-attach", { uri, host, label, ...from }, true)
    this.#hide()
    if (!go) return false
    insertToken(this.#input, tok, uri, label, this.token)
    Promise.resolve()
      .then(() => host.attach(uri))
      .then(
        (attachments) => this.#emit("mcp-attached", { uri, host, attachments }),
        (error) => this.#emit("mcp-error", { uri, host, error, stage: "attach" }),
      )
    return true
  }

  // ---- prompts (arguments in ./mention/template.js) ----

  /** A prompt was chosen: its arguments one at a time, or, without any, straight to getPrompt. */
  #beginPrompt(prompt, host, tok) {
    this.#error.textContent = ""
    const args = Array.isArray(prompt.arguments) ? prompt.arguments.filter((a) => a && typeof a.name === "string") : []
    if (!args.length) {
      this.#getPrompt(prompt, host, tok, {}, null)
      return
    }
    this.#list.hidden = true
    this.#footer.hidden = true
    this.#aria.activeDescendant = null
    this.#args.beginPrompt(prompt, host, tok)
    this.#position()
    this.#args.input.focus()
  }

  /**
   * prompts/get through the host (which checks the arguments against the
   * listing first). On success the "/query" is removed from the composer,
   * the popup closes and mcp-prompt fires with the messages; nothing is
   * written into the composer. On failure the reason shows in the popup
   * (under the argument, or above the list) and no event fires.
   * s: the argument session, or null for a prompt without arguments.
   */
  #getPrompt(prompt, host, tok, args, s) {
    const ac = new AbortController()
    if (s) s.getting = ac
    else {
      this.#abandonPrompt()
      this.#getting = { ac, tok }
      this.#live.textContent = `Getting ${displayText(prompt.title || prompt.name)}…`
    }
    Promise.resolve()
      .then(() => host.getPrompt(prompt.name, args, { signal: ac.signal }))
      .then(
        (r) => {
          if (ac.signal.aborted) return
          if (s) {
            if (this.#args.session !== s) return
            this.#args.end()
            this.#list.hidden = false
          } else this.#getting = null
          removeToken(this.#input, tok)
          this.#suppressed = null
          this.#hide()
          this.#input?.focus()
          this.#emit("mcp-prompt", {
            name: prompt.name, args: { ...args }, description: r?.description ?? "", messages: r?.messages ?? [],
            dropped: r?.dropped ?? [], superseded: r?.superseded ?? [], prompt, host,
          })
        },
        (error) => {
          if (ac.signal.aborted || error?.kind === "cancelled") return
          const message = error?.message || String(error)
          this.#emit("mcp-error", { host, error, stage: "prompt", prompt: prompt.name, args: { ...args } })
          if (s) {
            if (this.#args.session === s) this.#args.fail(message)
            return
          }
          this.#getting = null
          if (this.open) this.#error.textContent = `${displayText(prompt.title || prompt.name)}: ${displayText(message, { multiline: true })}`
        },
      )
  }

  /** Cancels a getPrompt in flight for a prompt without arguments. */
  #abandonPrompt() {
    this.#getting?.ac.abort()
    this.#getting = null
  }

  // ---- template arguments (./mention/template.js) ----

  #beginTemplate(template, host, tok) {
    let names
    try {
      names = host.templateVars(template.uriTemplate) // Go's RFC 6570 parser (attach.TemplateVars)
    } catch (error) {
      this.#emit("mcp-error", { host, error, stage: "expand", template: template.uriTemplate })
      return
    }
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
    this.#list.hidden = true
    this.#footer.hidden = true
    this.#aria.activeDescendant = null
    this.#args.begin(template, host, tok, names)
    this.#position()
    this.#args.input.focus()
    this.#emit("mcp-template", { template, host, vars: names })
  }

  /** Abandons a template in progress; refocus returns to the composer and closes the popup. */
  #endTemplate(refocus) {
    const s = this.#args?.end()
    s?.getting?.abort()
    this.#afterTemplate(s, refocus)
  }

  #afterTemplate(s, refocus) {
    if (!s) return
    this.#list.hidden = false
    if (refocus) {
      const t = this.#input
      t?.focus()
      if (t && isTextControl(t) && s.tok) t.setSelectionRange(s.tok.end, s.tok.end)
      this.#suppressed = s.tok ? { start: s.tok.start, query: s.tok.query } : null
      this.#hide()
    }
  }
}

MentionElement.define()
