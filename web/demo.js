// The demo chat page served at / by mcphost: a composer with <mcp-mention>,
// live attachment chips, a sandboxed preview, the assembled model request,
// a tools panel with the dedupe filter, a resource-blind switch and the
// session's figures. Every server string is written with textContent, shown
// through displayText (bidi controls and invisible characters as ⟨U+XXXX⟩
// markers) in a bidi-isolated element; the only HTML assigned is an
// attachment's `html`, which mcphost sanitized in Go, and it goes into an
// <iframe sandbox> (no scripts) under the page's CSP. What goes to the model
// is wrapped with wrapDocument, which escapes everything a server chose.
import { connect } from "./mcphost.js"
import { defaultAccepts, formatBytes } from "./mention.js"
import { displayText, escapeAttribute, wrapDocument } from "./display.js"

const $ = (id) => document.getElementById(id)
const wsUrl = new URL("mcp", location.href).href.replace(/^http/, "ws")
const CLIENT = { name: "mcphost-demo", version: "1.0" }
const BLIND = { name: "resource-blind-demo", version: "1.0" }

const state = {
  host: null,
  blind: false,
  docs: new Map(), // attached uri -> { parts, flash }
  selected: null,
  descriptors: new Map(), // uri -> resource descriptor
  urls: [], // object URLs of the current preview
  lastTool: null,
  lastRequest: null, // the last assembled model request: { content, withheld, tokens }
  titles: new Map(), // uri -> title of a document no listing names (a template expansion: "Team policy: platform, access-control.md")
  liveTitles: new Map(), // uri -> { title, listed }: a heading changed by a live update while the listing still says `listed`
  pendingTemplate: null, // { template, host } while the picker asks for a template's arguments
  pendingMention: null, // { uri, label } between the picker's mcp-attach and its insertion into the composer
  prompt: null, // the prompt chosen with "/" for the next Send: the picker's mcp-prompt detail
  restoring: false, // while the last visit's snapshot is being restored (nothing is saved meanwhile)
}

const picker = document.querySelector("mcp-mention")
const composer = $("composer")

// ---- small DOM helpers ----

// Attributes a person reads: shown through displayText like text (data-*, value and the rest keep the real string).
const SHOWN_ATTRIBUTES = new Set(["title", "aria-label", "alt", "placeholder"])

/**
 * An element. props.text becomes its textContent and the shown attributes
 * their values through displayText (multiline), so every string on the page
 * passes it, whoever chose it; strings of strings in kids are appended as
 * they are (pass them through displayText first if a server chose them).
 */
function h(tag, props = {}, ...kids) {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(props)) {
    if (v == null || v === false) continue
    if (k === "class") e.className = v
    else if (k === "text") e.textContent = displayText(v, { multiline: true })
    else if (SHOWN_ATTRIBUTES.has(k) && typeof v === "string") e.setAttribute(k, displayText(v, { multiline: true }))
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v)
    else if (k in e && typeof v !== "string") e[k] = v
    else e.setAttribute(k, v === true ? "" : v)
  }
  for (const k of kids.flat()) if (k != null && k !== false) e.append(k)
  return e
}

const MAX_TOASTS = 3

/**
 * A notice in the bar under the header (in the page's flow, so it covers
 * nothing): at most MAX_TOASTS at once, each gone after 4.7 s or on its ×.
 */
function toast(text, kind = "info") {
  const box = $("toasts")
  const t = h("div", { class: `toast toast-${kind}` },
    h("span", { class: "toast-text", title: text, text }),
    h("button", { type: "button", class: "toast-x", "aria-label": "Dismiss", text: "×", onclick: () => t.remove() }))
  box.append(t)
  while (box.children.length > MAX_TOASTS) box.firstElementChild.remove()
  setTimeout(() => t.classList.add("out"), 4200)
  setTimeout(() => t.remove(), 4700)
}

/**
 * The connection pill: a word or two (label), the rest (details: a
 * transport error, the server) on hover and focus, and for screen readers.
 */
function setStatus(kind, label, details = "") {
  const s = $("status")
  s.className = `pill pill-${kind}`
  s.replaceChildren(h("span", { class: "pill-label", text: label }),
    details ? h("span", { class: "visually-hidden", text: `: ${details}` }) : null)
  if (details) s.dataset.details = displayText(details, { multiline: true })
  else delete s.dataset.details
  document.body.dataset.state = kind
}

const fmtPct = (x) => `${(100 * (x || 0)).toFixed(x > 0 && x < 0.1 ? 1 : 0)}%`
const fmtNum = (n) => (n || 0).toLocaleString("en")

/**
 * The name to show for a URI, through displayText: a title a live update
 * brought, else the listing's title or name, else the title made from the
 * template it was expanded from, else its last path segment.
 */
function shortName(uri) {
  const d = state.descriptors.get(uri)
  const live = state.liveTitles.get(uri)
  if (live && live.listed === (d?.title || d?.name || "")) return displayText(live.title)
  if (d && (d.title || d.name)) return displayText(d.title || d.name)
  if (state.titles.has(uri)) return displayText(state.titles.get(uri))
  const seg = uri.split("/").filter(Boolean).pop() || uri
  try {
    return displayText(decodeURIComponent(seg))
  } catch {
    return displayText(seg)
  }
}

function glyph(mt) {
  if (!mt) return "DOC"
  if (mt.startsWith("image/")) return "IMG"
  if (mt === "text/markdown") return "MD"
  if (mt.startsWith("text/")) return "TXT"
  return "BIN"
}

// ---- connection ----

async function connectHost(blind) {
  setStatus("wait", "Connecting…", `${blind ? "As a resource-blind host (clientInfo resource-blind-demo), to" : "To"} ${wsUrl}`)
  const host = await connect(wsUrl, { clientInfo: blind ? BLIND : CLIENT })
  host.addEventListener("listprogress", (e) => showListing(e.detail))
  host.addEventListener("listchanged", async () => {
    // a reconnect re-lists too: say so only when the list did change
    const before = listingKey()
    await loadDescriptors(host)
    if (host === state.host && listingKey() !== before) toast("The server's resource list changed")
  })
  host.addEventListener("updated", (e) => onUpdated(e.detail))
  host.addEventListener("stale", (e) => {
    syncStates()
    toast(`Stale: ${shortName(e.detail.uri)} (${e.detail.reason})`, "warn")
  })
  host.addEventListener("gone", (e) => {
    syncStates()
    toast(`Gone from the server: ${shortName(e.detail.uri)}`, "warn")
  })
  host.addEventListener("superseded", (e) => {
    syncStates()
    toast(`Superseded by a tool result: ${shortName(e.detail.uri)}`, "warn")
  })
  host.addEventListener("disconnected", (e) =>
    setStatus("wait", "Reconnecting…", `Connection lost (${e.detail.reason || "no reason given"}). Reconnecting by itself; the attached documents are kept.`))
  host.addEventListener("reconnected", () => {
    setConnected(host)
    syncStates()
  })
  return host
}

function setConnected(host) {
  const info = host.serverInfo || {}
  setStatus("ok", "Connected", `${info.title || info.name || "server"} · MCP ${host.protocolVersion} · ${wsUrl}`)
  $("server").replaceChildren(h("bdi", { text: displayText(info.title || info.name || "server") }), ` · MCP ${displayText(host.protocolVersion)}`)
}

function showListing(p) {
  const bar = $("listing")
  if (p.done) {
    bar.hidden = true
    document.body.dataset.listed = "true"
    if (p.truncated) toast(`Listing stopped at the page cap: ${fmtNum(p.resources)} resources`, "warn")
    return
  }
  bar.hidden = false
  $("listing-text").textContent = `Listing resources… ${fmtNum(p.resources)} so far`
}

/** What of the listing the page shows: URIs and titles. */
const listingKey = () => JSON.stringify([...state.descriptors.values()].map((d) => [d.uri, d.title || d.name]))

async function loadDescriptors(host) {
  try {
    const list = await host.resources()
    if (host !== state.host) return
    state.descriptors = new Map(list.map((r) => [r.uri, r]))
    $("listing").hidden = true
    document.body.dataset.listed = "true"
    renderChips()
  } catch (e) {
    toast(`Listing failed: ${e.message}`, "error")
  }
}

async function start(blind) {
  clearPrompt() // a prompt belongs to the session that got it
  const uris = [...state.docs.keys()]
  const old = state.host
  state.host = null
  picker.hosts = []
  if (old) await old.close().catch(() => {})
  let host
  try {
    $("listing").hidden = false
    $("listing-text").textContent = "Connecting…"
    host = await connectHost(blind)
  } catch (e) {
    setStatus("err", "Offline", `Could not connect to ${wsUrl}: ${e.message}`)
    $("listing").hidden = true
    toast(`Could not connect to ${wsUrl}: ${e.message}`, "error")
    return
  }
  state.host = host
  state.blind = blind
  setConnected(host)
  picker.hosts = [host]
  loadDescriptors(host)
  loadTools()
  if (!old) await restoreSaved(host) // workspace restore: the chips of the last visit
  // carry the chips over: the new session gets the same context
  for (const uri of uris) {
    try {
      state.docs.set(uri, { parts: await host.attach(uri) })
    } catch (e) {
      state.docs.delete(uri)
      toast(`Could not re-attach ${shortName(uri)}: ${e.message}`, "error")
    }
  }
  renderChips()
  if (state.selected) renderPreview()
  renderFigures()
  document.body.dataset.ready = blind ? "blind" : "normal"
}

// ---- attachments ----

picker.addEventListener("mcp-attached", (e) => {
  if (e.detail.host !== state.host) return
  addDoc(e.detail.uri, e.detail.attachments)
})

// ---- documents by title in the composer ----
//
// The picker writes "@<uri> " into a textarea (docs/ui.md, "Inline token")
// and fires an input event (insertReplacementText) right after mcp-attach.
// The demo lets it (so the picker still attaches, and reports), and then
// puts "@<title> " where the URI went: people read titles, and the message
// the model gets names documents as their <document title="…"> does.

// A badge "not sent to model" for a declared application/octet-stream would
// be a guess: that type says "unknown bytes", and the bytes, sniffed on
// attach, decide (server-everything's blob template declares it and reads as
// text/plain). The rest is the picker's own rule.
picker.accepts = (d) => (d?.mimeType === "application/octet-stream" ? true : defaultAccepts(d, picker.acceptImages))

picker.addEventListener("mcp-template", (e) => {
  state.pendingTemplate = { template: e.detail.template, host: e.detail.host }
})
picker.addEventListener("mcp-close", () => {
  state.pendingTemplate = null
})
picker.addEventListener("mcp-attach", (e) => {
  const { uri, host } = e.detail
  const t = state.pendingTemplate
  if (t && t.host === host && !state.descriptors.has(uri)) {
    const title = templateTitle(t.template, host, uri)
    if (title) state.titles.set(uri, title)
  }
  state.pendingMention = { uri, label: shortName(uri) }
})
composer.addEventListener("input", (e) => {
  const m = state.pendingMention
  if (!m || e.inputType !== "insertReplacementText") return
  state.pendingMention = null
  const token = `@${displayText(m.uri)} `
  const end = composer.selectionStart
  const start = end - token.length
  if (start < 0 || composer.value.slice(start, end) !== token) return
  composer.setRangeText(`@${m.label} `, start, end, "end")
})

/**
 * The title of uri, expanded from template: the template's title (or name)
 * and the values of its variables, e.g. "Dynamic Text Resource: 1". The
 * values are read back from uri against the template as host.expand()
 * expands it (with a marker for each variable), so the demo parses no
 * template syntax itself. Null when uri does not match.
 */
function templateTitle(template, host, uri) {
  const name = template.title || template.name || template.uriTemplate
  let names
  let shape
  try {
    names = host.templateVars(template.uriTemplate)
    shape = host.expand(template.uriTemplate, Object.fromEntries(names.map((n, i) => [n, `mcphostvar${i}x`])))
  } catch {
    return null
  }
  const order = []
  const source = shape.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/mcphostvar(\d+)x/g, (_, i) => {
    order.push(Number(i))
    return "(.+?)"
  })
  const m = new RegExp(`^${source}$`).exec(uri)
  if (!m || !order.length) return null
  const values = []
  order.forEach((i, k) => {
    try {
      values[i] ??= decodeURIComponent(m[k + 1])
    } catch {
      values[i] ??= m[k + 1]
    }
  })
  return `${name}: ${values.filter((v) => v != null).join(", ")}`
}

/** The message as the model gets it: an attached document's "@<uri>" (typed or pasted) becomes "@<title>". */
function messageText(text) {
  for (const uri of [...state.docs.keys()].sort((a, b) => b.length - a.length)) {
    const title = shortName(uri)
    for (const form of new Set([uri, displayText(uri)])) text = text.split(`@${form}`).join(`@${title}`).split(form).join(title)
  }
  return text
}
picker.addEventListener("mcp-error", (e) => {
  const { stage, error, uri } = e.detail
  if (stage === "expand" || stage === "complete" || stage === "prompt" || stage === "prompt-argument") return // the picker reports these in place
  toast(`${stage === "attach" ? `Could not attach ${displayText(uri)}` : stage}: ${error?.message || error}`, "error")
})

function addDoc(uri, parts) {
  state.docs.set(uri, { parts, flash: false })
  state.selected = uri
  renderChips()
  renderPreview()
  renderFigures()
  selectTab("preview")
}

function sameBytes(a, b) {
  if (!a || !b) return a === b
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Whether a re-read brought the same content (refresh() re-reads everything before a turn). */
function sameContent(a, b) {
  return a.length === b.length && a.every((p, i) =>
    p.kind === b[i].kind && p.uri === b[i].uri && p.text === b[i].text && p.size === b[i].size && sameBytes(p.bytes, b[i].bytes))
}

function onUpdated({ uri, parts }) {
  const d = state.docs.get(uri)
  if (!d) return
  const changed = !sameContent(d.parts, parts)
  noteLiveTitle(uri, d.parts, parts)
  d.parts = parts
  if (!changed) {
    renderChips()
    if (state.selected === uri) renderPreview()
    return
  }
  d.flash = true
  renderChips()
  if (state.selected === uri) renderPreview()
  toast(`Updated live: ${shortName(uri)}`)
  setTimeout(() => {
    d.flash = false
    renderChips()
  }, 2500)
}

/** The first Markdown heading of a document's text parts, or "". */
function heading(parts) {
  for (const p of parts) {
    const m = p.text != null && /^text\/markdown\b/.test(p.mimeType || "") ? /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(p.text) : null
    if (m) return m[1]
  }
  return ""
}

/**
 * A listing titles a Markdown document after its heading (the documents
 * server does), and an edit changes the heading without a list_changed: the
 * new heading is then the title until the listing says otherwise.
 */
function noteLiveTitle(uri, before, after) {
  const d = state.descriptors.get(uri)
  const listed = d?.title || d?.name || ""
  const was = state.liveTitles.get(uri)?.title ?? listed
  const old = heading(before)
  const now = heading(after)
  if (now && old && now !== old && old === was) state.liveTitles.set(uri, { title: now, listed })
}

function syncStates() {
  const host = state.host
  if (!host) return
  const byKey = new Map(host.attachments().map((a) => [`${a.uri}#${a.part}`, a]))
  for (const d of state.docs.values()) {
    d.parts = d.parts.map((p) => {
      const n = byKey.get(`${p.uri}#${p.part}`)
      return n ? { ...p, state: n.state, warnings: n.warnings, forModel: n.forModel } : p
    })
  }
  renderChips()
  if (state.selected) renderPreview()
  renderFigures()
}

function docState(parts) {
  const order = ["gone", "superseded", "stale", "fresh"]
  for (const s of order) if (parts.some((p) => p.state === s)) return s
  return "fresh"
}

function detach(uri) {
  if (state.docs.get(uri)?.prompt) {
    dropPromptDoc(uri)
    return
  }
  state.host?.detach(uri)
  state.docs.delete(uri)
  if (state.selected === uri) state.selected = [...state.docs.keys()].pop() || null
  renderChips()
  renderPreview()
  renderFigures()
  composer.focus()
}

function renderChips() {
  const ul = $("chips")
  ul.replaceChildren()
  for (const [uri, d] of state.docs) {
    const st = docState(d.parts)
    const warnings = d.parts.flatMap((p) => p.warnings || [])
    const errors = d.parts.filter((p) => p.kind === "error")
    const first = d.parts.find((p) => p.kind !== "error") || d.parts[0] || {}
    const name = shortName(uri)
    if (d.prompt) {
      ul.append(promptDocChip(uri, d, name, first))
      continue
    }
    const li = h("li", { class: `chip state-${st}${state.selected === uri ? " is-selected" : ""}${d.flash ? " flash" : ""}`, "data-uri": uri },
      h("button", { type: "button", class: "chip-main", "aria-pressed": String(state.selected === uri), title: displayText(uri), onclick: () => selectChip(uri) },
        h("span", { class: "chip-glyph", "aria-hidden": "true", text: glyph(first.mimeType) }),
        h("span", { class: "chip-title", text: name }),
        h("span", { class: `badge badge-${st}`, text: d.flash ? "updated" : st }),
        warnings.length ? h("span", { class: "badge badge-warn", title: warnings.join("\n"), text: `⚠ ${warnings.length}` }) : null,
        errors.length ? h("span", { class: "badge badge-error", text: `${errors.length} failed` }) : null,
        h("span", { class: "visually-hidden", text: warnings.length ? `, warnings: ${warnings.join("; ")}` : "" })),
      h("button", { type: "button", class: "chip-x", "aria-label": `Remove ${name}`, title: "Detach", onclick: () => detach(uri), text: "×" }))
    movedOffer(li, uri, d, st) // workspace restore
    ul.append(li)
  }
  if (state.prompt) ul.prepend(promptChip(state.prompt))
  ul.hidden = state.docs.size === 0 && !state.prompt
  renderEstimate()
  scheduleSave() // workspace restore
}

function renderEstimate() {
  const host = state.host
  const est = $("estimate")
  if (!host || (!state.docs.size && !state.prompt)) {
    est.textContent = ""
    return
  }
  const parts = host.attachments().filter((p) => p.forModel && p.presentable)
  const tokens = parts.reduce((s, p) => s + (p.tokens || 0), 0) + promptTokens()
  est.textContent = `${state.docs.size} attached · ≈ ${fmtNum(tokens)} text tokens`
}

// ---- preview ----

function revokePreview() {
  for (const u of state.urls) URL.revokeObjectURL(u)
  state.urls = []
}

const FRAME_CSS = `
:root{color-scheme:light}
body{margin:0;padding:20px 22px;font:15px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;word-wrap:break-word}
h1,h2,h3{line-height:1.25;margin:1.2em 0 .5em}h1{font-size:1.6em;margin-top:0}h2{font-size:1.3em;border-bottom:1px solid #eaeef2;padding-bottom:.25em}
a{color:#0969da}code{font:0.9em ui-monospace,SFMono-Regular,Menlo,monospace;background:#f3f4f6;padding:.1em .35em;border-radius:4px}
pre{background:#f6f8fa;padding:12px 14px;border-radius:8px;overflow:auto}pre code{background:none;padding:0}
blockquote{margin:0;padding:0 1em;color:#57606a;border-left:4px solid #d0d7de}
table{border-collapse:collapse;display:block;overflow:auto}th,td{border:1px solid #d0d7de;padding:6px 12px}th{background:#f6f8fa}
img{max-width:100%}hr{border:0;border-top:1px solid #d0d7de}li+li{margin-top:.25em}`

function markdownFrame(part) {
  const frame = h("iframe", {
    class: "md-frame",
    title: `Rendered Markdown of ${shortName(part.uri)}`,
    // no allow-scripts: nothing in the document can run, whatever it holds.
    // allow-same-origin only lets this page size the frame and fix up links.
    sandbox: "allow-same-origin allow-popups allow-popups-to-escape-sandbox",
    referrerpolicy: "no-referrer",
  })
  frame.srcdoc = `<!doctype html><html lang="en"><head><meta charset="utf-8"><style>${FRAME_CSS}</style></head><body>${part.html}</body></html>`
  frame.addEventListener("load", () => {
    const doc = frame.contentDocument
    if (!doc) return
    for (const a of doc.querySelectorAll("a[href]")) {
      a.target = "_blank"
      a.rel = "noopener noreferrer"
    }
    // the rendered text is shown like every server string: invisible characters as markers
    const walk = doc.createTreeWalker(doc.body, 4 /* NodeFilter.SHOW_TEXT */)
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const shown = displayText(n.data, { multiline: true })
      if (shown !== n.data) n.data = shown
    }
    frame.style.height = `${Math.min(Math.max(doc.documentElement.scrollHeight, 120), 20000)}px`
    frame.dataset.loaded = "true"
  })
  return frame
}

function renderPreview() {
  revokePreview()
  const d = state.selected && state.docs.get(state.selected)
  $("preview-empty").hidden = !!d
  $("preview").hidden = !d
  if (!d) return
  const uri = state.selected
  const parts = d.parts
  const st = docState(parts)
  $("preview-title").textContent = shortName(uri)
  $("preview-uri").textContent = displayText(uri)
  const meta = $("preview-meta")
  meta.replaceChildren()
  const first = parts.find((p) => p.kind !== "error") || parts[0]
  const add = (k, v, cls) => meta.append(h("div", { class: cls }, h("dt", { text: k }), h("dd", { text: v })))
  add("State", st, `state state-${st}`)
  if (first) {
    add("Type", first.mimeType || "unknown")
    if (first.declaredMimeType && first.declaredMimeType !== first.mimeType) add("Declared", first.declaredMimeType)
    if (first.sniffedMimeType) add("Sniffed", first.sniffedMimeType)
  }
  add("Size", formatBytes(parts.reduce((s, p) => s + (p.size || 0), 0)))
  const toks = parts.reduce((s, p) => s + (p.tokens || 0), 0)
  if (toks) add("Tokens", `≈ ${fmtNum(toks)}`)
  if (parts.length > 1) add("Parts", String(parts.length))
  add("To model", parts.some((p) => p.forModel && p.presentable) ? "yes" : "withheld")

  const wl = $("preview-warnings")
  wl.replaceChildren()
  const warnings = [...new Set(parts.flatMap((p) => p.warnings || []))]
  if (st === "stale") warnings.unshift("Stale: the last re-read did not finish in time; this is the previous copy.")
  if (st === "gone") warnings.unshift("Gone: the server no longer has this document; this is the last copy.")
  if (st === "superseded") warnings.unshift("Superseded: a tool result carried a newer copy.")
  for (const w of warnings) wl.append(h("li", { class: "warning", text: w }))
  wl.hidden = warnings.length === 0

  const body = $("preview-body")
  body.replaceChildren()
  for (const p of parts) body.append(renderPart(p, parts.length > 1))
}

function renderPart(p, labelled) {
  const box = h("div", { class: `part part-${p.kind}`, "data-part": String(p.part) })
  if (labelled) box.append(h("p", { class: "part-label mono muted", text: `part ${p.part} · ${displayText(p.uri)}` }))
  if (p.kind === "error") {
    box.append(h("p", { class: "error", text: `This part could not be used: ${p.error?.message || "unknown error"}` }))
    return box
  }
  const isImage = p.bytes && /^image\//.test(p.sniffedMimeType || "") && p.sniffedMimeType !== "image/svg+xml"
  if (p.html != null && p.html !== "") {
    box.append(markdownFrame(p))
  } else if (p.text != null) {
    box.append(h("pre", { class: "text-part", tabindex: "0", "aria-label": `Text of ${shortName(p.uri)}`, text: p.text.length > 200000 ? `${p.text.slice(0, 200000)}\n… (${fmtNum(p.text.length - 200000)} more characters)` : p.text }))
  } else if (isImage) {
    const blob = new Blob([p.bytes], { type: p.sniffedMimeType })
    const type = blob.type
    const url = URL.createObjectURL(blob)
    state.urls.push(url)
    const img = h("img", { class: "image-part", src: url, alt: `Image ${shortName(p.uri)} (${type})`, "data-type": type })
    const cap = h("figcaption", { class: "muted" },
      h("span", { class: "mono", text: type }),
      ` · ${formatBytes(p.size)} · `,
      p.forwardAsImage ? "forwarded to the model as an image" : "not forwarded to the model")
    img.addEventListener("load", () => cap.append(` · ${img.naturalWidth}×${img.naturalHeight}`), { once: true })
    box.append(h("figure", {}, img, cap))
  } else {
    const head = p.bytes ? Array.from(p.bytes.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join(" ") : ""
    box.append(h("div", { class: "binary-summary" },
      h("p", { text: "Binary content, summarised (not rendered):" }),
      h("dl", { class: "meta" },
        h("div", {}, h("dt", { text: "Type" }), h("dd", { text: p.mimeType || "unknown" })),
        h("div", {}, h("dt", { text: "Size" }), h("dd", { text: formatBytes(p.size) })),
        head ? h("div", {}, h("dt", { text: "First bytes" }), h("dd", { class: "mono", text: head })) : null)))
  }
  return box
}

// ---- send: the assembled model request ----

const approxImageTokens = (w, h) => Math.min(1600, Math.ceil((w * h) / 750))

async function imageTokens(p) {
  try {
    const bmp = await createImageBitmap(new Blob([p.bytes], { type: p.mimeType }))
    const t = approxImageTokens(bmp.width, bmp.height)
    bmp.close()
    return t
  } catch {
    return 1600
  }
}

function withheldReason(p) {
  if (p.kind === "error") return `failed: ${p.error?.message || "error"}`
  if (p.state === "gone") return "gone: the server no longer has it"
  if (p.state === "superseded") return "superseded: a tool result carries a newer copy"
  if (!p.presentable) {
    const w = (p.warnings || []).join("; ")
    return w || `${p.mimeType || "binary"} cannot be sent to the model`
  }
  return "not for the model"
}

async function assemble(text) {
  const host = state.host
  const content = []
  const withheld = []
  text = messageText(text)
  if (text) content.push({ type: "text", typed: true, text, tokens: Math.ceil(new TextEncoder().encode(text).length / 4) })
  content.push(...promptParts(state.prompt))
  for (const p of host.attachments()) {
    if (!p.forModel || !p.presentable || p.kind === "error") {
      withheld.push({ uri: p.uri, part: p.part, reason: withheldReason(p) })
    } else if (p.forwardAsImage && p.bytes) {
      content.push({ type: "image", uri: p.uri, title: shortName(p.uri), mimeType: p.mimeType, bytes: p.size, base64Chars: 4 * Math.ceil(p.size / 3), tokens: await imageTokens(p), stale: p.state === "stale" })
    } else if (p.text != null) {
      // escaped: neither the URI, the type nor the text can close the wrapper (see docs/embedding.md)
      // the title (the name the message uses) goes in as an escaped attribute after the URI
      const title = shortName(p.uri)
      const wrapped = wrapDocument(p, { stale: p.state === "stale" }).replace(/^<document uri="[^"]*"/, (m) => `${m} title="${escapeAttribute(title)}"`)
      content.push({ type: "text", uri: p.uri, title, text: wrapped, tokens: p.tokens, stale: p.state === "stale" })
    } else {
      withheld.push({ uri: p.uri, part: p.part, reason: withheldReason(p) })
    }
  }
  const tokens = content.reduce((s, c) => s + (c.tokens || 0), 0)
  return { content, withheld, tokens }
}

function requestJSON(req) {
  const clip = (s) => (s.length > 360 ? `${s.slice(0, 360)}… [+${fmtNum(s.length - 360)} chars]` : s)
  const block = (c) =>
    c.type === "image"
      ? { type: "image", source: { type: "base64", media_type: c.mimeType, data: `<${fmtNum(c.base64Chars)} base64 chars>` } }
      : { type: "text", text: clip(c.text) }
  const own = req.content.filter((c) => !c.prompt)
  if (!req.content.some((c) => c.prompt)) return JSON.stringify({ role: "user", content: own.map(block) }, null, 2)
  // a prompt's messages keep their roles and order, ahead of the user's own message
  const messages = []
  for (const c of req.content.filter((c) => c.prompt)) {
    const last = messages[messages.length - 1]
    if (last && last.index === c.message) last.content.push(block(c))
    else messages.push({ index: c.message, role: c.role, content: [block(c)] })
  }
  const out = messages.map(({ role, content }) => ({ role, content }))
  if (own.length) out.push({ role: "user", content: own.map(block) })
  return JSON.stringify({ messages: out }, null, 2)
}

async function send() {
  const host = state.host
  if (!host) return
  const typed = composer.value.trim()
  if (!typed && !state.docs.size && !state.prompt) {
    toast("Write a message or attach a document first")
    return
  }
  const btn = $("send")
  btn.disabled = true
  btn.textContent = "Refreshing…"
  try {
    await host.refresh()
  } catch (e) {
    toast(`Refresh before the turn failed: ${e.message}`, "warn")
  }
  syncStates()
  const req = await assemble(typed)
  state.lastRequest = req
  const text = req.content.find((c) => c.typed)?.text ?? ""
  btn.disabled = false
  btn.textContent = "Send"
  const t = $("transcript")
  if (text) t.append(h("article", { class: "msg msg-user" }, h("p", { text })))
  const parts = h("ol", { class: "req-parts" })
  for (const c of req.content) {
    const label = c.prompt
      ? `Prompt /${c.prompt} · ${c.role}${c.uri ? ` · ${c.title}` : ""}`
      : c.type === "image" ? `${c.title} · ${c.mimeType} · ${formatBytes(c.bytes)}` : c.uri ? c.title : "Your message"
    const snippet = c.type === "image" ? "forwarded as an image (base64)" : c.uri && c.text.startsWith("<document") ? c.text.split("\n").slice(1, 3).join(" ").slice(0, 140) : c.text.slice(0, 140)
    parts.append(h("li", { class: `req-part req-${c.type}${c.prompt ? " req-prompt" : ""}` },
      h("span", { class: `badge badge-type`, text: c.type }),
      h("span", { class: "req-label", text: label }),
      c.stale ? h("span", { class: "badge badge-stale", text: "stale" }) : null,
      h("span", { class: "req-tokens", text: `≈ ${fmtNum(c.tokens)} tok` }),
      c.uri ? h("span", { class: "req-uri mono muted", dir: "ltr", text: displayText(c.uri) }) : null,
      h("span", { class: "req-snippet muted", text: snippet })))
  }
  const card = h("article", { class: "msg msg-request", "aria-label": "Assembled model request" },
    h("header", { class: "req-head" },
      h("h3", { text: "Model request" }),
      h("span", { class: "req-total", text: `${req.content.length} ${req.content.length === 1 ? "part" : "parts"} · ≈ ${fmtNum(req.tokens)} tokens` })),
    parts,
    req.withheld.length
      ? h("section", { class: "withheld" },
        h("h4", { text: `Withheld (${req.withheld.length})` }),
        h("ul", {}, req.withheld.map((w) => h("li", {}, h("span", { class: "mono", text: displayText(w.uri) }), h("span", { text: ` — ${w.reason}` })))))
      : null,
    h("details", { class: "req-json" }, h("summary", { text: "Request JSON" }), h("pre", { tabindex: "0", "aria-label": "Request JSON", text: requestJSON(req) })))
  t.append(card)
  card.scrollIntoView({ block: "end", behavior: "smooth" })
  clearPrompt() // its messages went with this turn
  renderChips()
  composer.value = ""
  renderFigures()
  renderEstimate()
  composer.focus()
}

$("composer-form").addEventListener("submit", (e) => {
  e.preventDefault()
  send()
})
composer.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !e.defaultPrevented && !picker.open) {
    e.preventDefault()
    send()
  }
})

// ---- prompts: "/" in the composer (issue 19) ----
//
// The picker lists the server's prompts after "/", walks their arguments and
// fires mcp-prompt with the messages (the "/query" is removed; nothing is
// written into the composer). The demo stages the prompt for the next Send:
// a chip names it, each of its messages becomes its own part of the
// assembled request (in order, with its role), and each document a message
// embeds is shown as an attachment chip unless a chip for that URI is
// already there (the host has already dropped messages whose document the
// context holds: host.getPrompt's `dropped`). Those chips are the prompt's:
// removing one removes its message; they go with the turn that sends them.

picker.addEventListener("mcp-prompt", (e) => {
  const p = e.detail
  if (p.host !== state.host) return
  clearPrompt()
  state.prompt = p
  for (const m of p.messages) {
    const uri = m.parts?.find((x) => x.uri)?.uri
    if (uri && !state.docs.has(uri)) state.docs.set(uri, { parts: m.parts, flash: false, prompt: p.name })
  }
  renderChips()
  const kept = p.dropped?.length ? `; ${p.dropped.length} already attached, not repeated` : ""
  toast(`Prompt /${p.name}: ${p.messages.length} ${p.messages.length === 1 ? "message" : "messages"} for the next Send${kept}`)
})

/** The request parts of prompt p's messages, in order; a document is wrapped like an attachment. */
function promptParts(p) {
  if (!p) return []
  const out = []
  const est = (t) => Math.ceil(new TextEncoder().encode(t).length / 4)
  p.messages.forEach((m, message) => {
    const base = { prompt: p.name, role: m.role, message }
    const c = m.content || {}
    if (m.parts) {
      for (const part of m.parts) {
        if (part.kind === "error" || !part.forModel || part.text == null) continue
        const title = shortName(part.uri)
        const text = wrapDocument(part, {}).replace(/^<document uri="[^"]*"/, (x) => `${x} title="${escapeAttribute(title)}"`)
        out.push({ ...base, type: "text", uri: part.uri, title, text, tokens: part.tokens ?? est(text) })
      }
    } else if (c.type === "text") {
      out.push({ ...base, type: "text", text: String(c.text ?? ""), tokens: est(String(c.text ?? "")) })
    } else if (c.type === "image" && typeof c.data === "string") {
      out.push({ ...base, type: "image", title: `/${p.name}`, mimeType: c.mimeType, bytes: Math.floor((c.data.length * 3) / 4), base64Chars: c.data.length, tokens: 0 })
    } else if (c.type === "resource_link") {
      const text = `[resource link: ${c.uri}]`
      out.push({ ...base, type: "text", uri: c.uri, title: c.title || c.name || shortName(c.uri), text, tokens: est(text) })
    } else {
      const text = `[${c.type} content]`
      out.push({ ...base, type: "text", text, tokens: est(text) })
    }
  })
  return out
}

function promptTokens() {
  return promptParts(state.prompt).reduce((s, c) => s + (c.tokens || 0), 0)
}

function promptChip(p) {
  const args = Object.entries(p.args || {}).map(([k, v]) => `${k}=${v}`).join(", ")
  const title = p.prompt?.title || p.name
  return h("li", { class: "chip chip-prompt", "data-prompt": p.name },
    h("span", { class: "chip-main", title: displayText(p.description || p.name) },
      h("span", { class: "chip-glyph", "aria-hidden": "true", text: "/" }),
      h("span", { class: "chip-title", text: displayText(title) }),
      args ? h("span", { class: "badge badge-prompt-args mono", dir: "ltr", text: displayText(args) }) : null,
      h("span", { class: "badge badge-prompt", text: `prompt · ${p.messages.length}` })),
    h("button", { type: "button", class: "chip-x", "aria-label": `Remove prompt ${displayText(title)}`, title: "Remove the prompt", onclick: () => {
      clearPrompt()
      renderChips()
      composer.focus()
    }, text: "×" }))
}

// selectChip shows a chip's document in the preview.
function selectChip(uri) {
  state.selected = uri
  renderChips()
  renderPreview()
  selectTab("preview")
}

function promptDocChip(uri, d, name, first) {
  return h("li", { class: `chip chip-from-prompt${state.selected === uri ? " is-selected" : ""}`, "data-uri": uri, "data-prompt": d.prompt },
    h("button", { type: "button", class: "chip-main", "aria-pressed": String(state.selected === uri), title: displayText(uri), onclick: () => selectChip(uri) },
      h("span", { class: "chip-glyph", "aria-hidden": "true", text: glyph(first.mimeType) }),
      h("span", { class: "chip-title", text: name }),
      h("span", { class: "badge badge-prompt", text: `from /${d.prompt}` })),
    h("button", { type: "button", class: "chip-x", "aria-label": `Remove ${name}`, title: "Leave it out of the prompt", onclick: () => detach(uri), text: "×" }))
}

/** Leaves the document uri out of the staged prompt (its message and its chip). */
function dropPromptDoc(uri) {
  const p = state.prompt
  if (p) p.messages = p.messages.filter((m) => !m.parts?.some((x) => x.uri === uri))
  state.docs.delete(uri)
  if (state.selected === uri) state.selected = [...state.docs.keys()].pop() || null
  renderChips()
  renderPreview()
  composer.focus()
}

/** Drops the staged prompt and its document chips. */
function clearPrompt() {
  if (!state.prompt) return
  for (const [uri, d] of state.docs) if (d.prompt) state.docs.delete(uri)
  if (state.selected && !state.docs.has(state.selected)) state.selected = [...state.docs.keys()].pop() || null
  state.prompt = null
  renderPreview()
}

// ---- tools ----

async function loadTools() {
  const host = state.host
  const box = $("tools")
  box.replaceChildren(h("p", { class: "muted", text: "Loading tools…" }))
  let tools = []
  try {
    tools = await host.tools()
  } catch (e) {
    box.replaceChildren(h("p", { class: "error", text: `tools/list failed: ${e.message}` }))
    return
  }
  if (host !== state.host) return
  if (!Array.isArray(tools)) tools = []
  $("tools-count").textContent = String(tools.length)
  box.replaceChildren()
  if (!tools.length) box.append(h("p", { class: "muted", text: "This server offers no tools." }))
  // one card per tool, each on its own: a malformed tool gets a note, never the others' cards
  tools.forEach((tool, i) => {
    let card
    try {
      card = toolCard(tool, i)
    } catch (e) {
      card = h("article", { class: "tool tool-broken", "data-tool": toolName(tool) ?? "" },
        h("h3", { class: "tool-name mono", text: toolName(tool) ?? `tool ${i + 1}` }),
        h("p", { class: "tool-note", text: `This tool's description could not be shown: ${e?.message || e}` }))
    }
    box.append(card)
  })
  document.body.dataset.tools = tools.map(toolName).filter(Boolean).join(" ")
}

/** A tool's name if it has a usable one, else null. */
function toolName(tool) {
  return tool && typeof tool === "object" && typeof tool.name === "string" && tool.name !== "" ? tool.name : null
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v)
const kindOf = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`)

/**
 * What of a tool's inputSchema the form can use: { name, props, required,
 * notes }. Whatever the server sent, this returns; each part that is not of
 * the shape the form needs is left out with a short note.
 */
function toolForm(tool) {
  const notes = []
  const name = toolName(tool)
  if (!isObject(tool)) return { name: null, props: [], required: new Set(), notes: [`The server listed ${kindOf(tool)} as a tool.`] }
  if (!name) notes.push("It has no name, so it cannot be called.")
  let schema = tool.inputSchema
  if (schema === undefined) {
    notes.push("It has no inputSchema: called without arguments.")
    schema = {}
  } else if (!isObject(schema)) {
    notes.push(`Its inputSchema is ${kindOf(schema)}, not an object: called without arguments.`)
    schema = {}
  }
  let props = schema.properties ?? {}
  if (!isObject(props)) {
    notes.push(`Its inputSchema.properties is ${kindOf(props)}, not an object: no fields.`)
    props = {}
  }
  let required = schema.required ?? []
  if (!Array.isArray(required)) {
    notes.push(`Its inputSchema.required is ${kindOf(required)}, not an array: ignored.`)
    required = []
  }
  return { name, props: Object.entries(props), required: new Set(required.filter((r) => typeof r === "string")), notes }
}

/** Whether v can be an option of a select (enum and const values). */
const scalar = (v) => v === null || ["string", "number", "boolean"].includes(typeof v)

/**
 * The form field a property's schema asks for: { kind, schema, options?,
 * json?, strings? } where kind is "boolean" (a checkbox), "integer" or
 * "number" (a number input), "enum" (a select of options), "json" (a
 * textarea, validated as JSON: json says "object", "array" or "any"; strings
 * says a union with string takes text that is not JSON as it is) or
 * "string".
 */
function fieldSpec(schema) {
  const s = isObject(schema) ? schema : {}
  const types = (Array.isArray(s.type) ? s.type : s.type != null ? [s.type] : []).filter((t) => typeof t === "string" && t !== "null")
  if (Array.isArray(s.enum) && s.enum.length && s.enum.every(scalar)) return { kind: "enum", schema: s, options: s.enum }
  if ("const" in s && scalar(s.const)) return { kind: "enum", schema: s, options: [s.const] }
  if (types.length === 1) {
    const t = types[0]
    if (["boolean", "integer", "number", "string"].includes(t)) return { kind: t, schema: s }
    if (t === "object" || t === "array") return { kind: "json", schema: s, json: t }
  }
  if (!types.length) {
    if (isObject(s.properties)) return { kind: "json", schema: s, json: "object" }
    if (s.items !== undefined) return { kind: "json", schema: s, json: "array" }
    if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return { kind: "json", schema: s, json: "any", strings: true }
    return { kind: "string", schema: s }
  }
  return { kind: "json", schema: s, json: "any", strings: types.includes("string") }
}

const FIELD_TYPES = { boolean: "true / false", integer: "integer", number: "number", string: "text" }
const show = (v) => (typeof v === "string" ? v : JSON.stringify(v))

/** The input element of a field, with its default shown (a placeholder, a checked box, a first option). */
function fieldInput(spec, id, prop, required) {
  const s = spec.schema
  const hasDefault = "default" in s
  switch (spec.kind) {
    case "boolean":
      return h("input", { id, name: prop, type: "checkbox", checked: s.default === true })
    case "enum": {
      const sel = h("select", { id, name: prop, required })
      const at = hasDefault ? spec.options.findIndex((o) => o === s.default) : -1
      if (!required) sel.append(h("option", { value: "", text: hasDefault ? `(server default: ${show(s.default)})` : "(not set)" }))
      else if (at < 0) sel.append(h("option", { value: "", text: "Choose…" }))
      spec.options.forEach((o, i) => sel.append(h("option", { value: String(i), text: show(o) })))
      if (required && at >= 0) sel.value = String(at)
      return sel
    }
    case "integer":
    case "number": {
      const input = h("input", { id, name: prop, type: "number", required, step: spec.kind === "integer" ? "1" : "any", inputmode: spec.kind === "integer" ? "numeric" : "decimal", autocomplete: "off" })
      if (typeof s.minimum === "number") input.min = String(s.minimum)
      if (typeof s.maximum === "number") input.max = String(s.maximum)
      if (hasDefault) input.placeholder = `default: ${show(s.default)}`
      return input
    }
    case "json":
      return h("textarea", { id, name: prop, rows: 3, required, spellcheck: "false", autocomplete: "off",
        placeholder: hasDefault ? `default: ${show(s.default)}` : spec.json === "object" ? '{"key": "value"}' : spec.json === "array" ? "[1, 2, 3]" : "a JSON value" })
    default: {
      const input = h("input", { id, name: prop, type: "text", required, autocomplete: "off", spellcheck: "false" })
      if (hasDefault) input.placeholder = `default: ${show(s.default)}`
      return input
    }
  }
}

/**
 * A field's value for the call: { value }, { omit: true } (an optional field
 * left empty, so the server's default applies) or { error } (shown inline).
 */
function readField({ spec, input, required }) {
  const s = spec.schema
  if (spec.kind === "boolean") return { value: input.checked }
  if (spec.kind === "enum") {
    if (input.value === "") return required ? { error: "Choose a value." } : { omit: true }
    return { value: spec.options[Number(input.value)] }
  }
  const raw = input.value
  if (spec.kind === "integer" || spec.kind === "number") {
    const what = spec.kind === "integer" ? "a whole number" : "a number"
    if (input.validity.badInput) return { error: `Enter ${what}.` }
    if (raw.trim() === "") return required ? { error: `Required: enter ${what}.` } : { omit: true }
    const n = Number(raw)
    if (!Number.isFinite(n) || (spec.kind === "integer" && !Number.isInteger(n))) return { error: `Enter ${what}.` }
    if (typeof s.minimum === "number" && n < s.minimum) return { error: `At least ${s.minimum}.` }
    if (typeof s.maximum === "number" && n > s.maximum) return { error: `At most ${s.maximum}.` }
    if (typeof s.exclusiveMinimum === "number" && n <= s.exclusiveMinimum) return { error: `More than ${s.exclusiveMinimum}.` }
    if (typeof s.exclusiveMaximum === "number" && n >= s.exclusiveMaximum) return { error: `Less than ${s.exclusiveMaximum}.` }
    return { value: n }
  }
  if (spec.kind === "json") {
    if (raw.trim() === "") return required ? { error: "Required: enter JSON." } : { omit: true }
    let v
    try {
      v = JSON.parse(raw)
    } catch (e) {
      if (spec.strings) return { value: raw }
      return { error: `Not valid JSON: ${e.message}` }
    }
    if (spec.json === "object" && !isObject(v)) return { error: `Expected a JSON object ({…}), not ${kindOf(v)}.` }
    if (spec.json === "array" && !Array.isArray(v)) return { error: `Expected a JSON array ([…]), not ${kindOf(v)}.` }
    return { value: v }
  }
  if (raw === "") return required ? { error: "Required." } : { omit: true }
  return { value: raw }
}

/** Shows (or, with "", clears) a field's inline error. */
function fieldError(f, message) {
  f.error.textContent = displayText(message, { multiline: true })
  f.error.hidden = !message
  if (message) f.input.setAttribute("aria-invalid", "true")
  else f.input.removeAttribute("aria-invalid")
}

function toolCard(tool, index) {
  const { name, props, required, notes } = toolForm(tool)
  const fields = []
  const form = h("form", { class: "tool-form", "data-tool": name ?? "", novalidate: true })
  props.forEach(([prop, schema], j) => {
    const id = `tool-${index}-${j}`
    const listId = `${id}-list`
    const spec = fieldSpec(schema)
    const req = required.has(prop) && spec.kind !== "boolean"
    const input = fieldInput(spec, id, prop, req)
    const isURI = spec.kind === "string" && (/uri/i.test(prop) || spec.schema.format === "uri")
    if (isURI) {
      input.setAttribute("list", listId)
      if (!input.placeholder) input.placeholder = "docs://…"
      input.value = state.selected || ""
      input.addEventListener("focus", () => {
        const dl = document.getElementById(listId)
        dl?.replaceChildren(...[...state.docs.keys()].map((u) => h("option", { value: u })))
      })
    }
    const hint = typeof spec.schema.description === "string" && spec.schema.description
      ? h("p", { class: "field-hint muted", id: `${id}-hint`, text: spec.schema.description.slice(0, 200) }) : null
    const error = h("p", { class: "field-error", id: `${id}-error`, hidden: true })
    input.setAttribute("aria-describedby", [hint?.id, error.id].filter(Boolean).join(" "))
    const type = spec.kind === "enum" ? `one of ${spec.options.length}` : spec.kind === "json" ? (spec.json === "any" ? "JSON" : `JSON ${spec.json}`) : FIELD_TYPES[spec.kind]
    const label = h("label", { for: id },
      h("span", { class: "field-name", text: displayText(prop) }),
      req ? h("span", { class: "field-req", "aria-hidden": "true", text: "*" }) : null,
      h("span", { class: "field-type", text: type }))
    const f = { prop, spec, input, required: req, error }
    input.addEventListener(spec.kind === "boolean" || spec.kind === "enum" ? "change" : "input", () => fieldError(f, ""))
    fields.push(f)
    form.append(h("div", { class: `field field-${spec.kind}`, "data-field": prop, "data-kind": spec.kind },
      spec.kind === "boolean" ? [input, label] : [label, input],
      hint, error,
      isURI ? h("datalist", { id: listId }) : null))
  })
  const btn = h("button", { type: "submit", class: "btn", text: "Call", disabled: !name })
  const summary = h("p", { class: "form-error", role: "alert" })
  form.append(h("div", { class: "tool-actions" }, summary, btn))
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    if (!name) return
    const args = {}
    const bad = []
    for (const f of fields) {
      const r = readField(f)
      fieldError(f, r.error || "")
      if (r.error) bad.push(f)
      else if (!r.omit) args[f.prop] = r.value
    }
    summary.textContent = bad.length ? `Not sent: ${bad.length === 1 ? "1 field needs" : `${bad.length} fields need`} fixing.` : ""
    if (bad.length) {
      bad[0].input.focus()
      return
    }
    btn.disabled = true
    btn.textContent = "Calling…"
    try {
      const res = await state.host.callTool(name, args)
      renderToolResult(name, args, res)
    } catch (err) {
      renderToolResult(name, args, null, err)
    } finally {
      btn.disabled = false
      btn.textContent = "Call"
      syncStates()
    }
  })
  const title = isObject(tool) && tool.title != null ? String(tool.title) : ""
  const description = isObject(tool) && tool.description != null ? String(tool.description) : ""
  return h("article", { class: `tool${notes.length ? " tool-malformed" : ""}`, "data-tool": name ?? "" },
    h("h3", { class: "tool-name mono", text: name != null ? displayText(name) : `tool ${index + 1} (no name)` }),
    title ? h("p", { class: "tool-title", text: title }) : null,
    description ? h("p", { class: "tool-desc muted", text: description }) : null,
    notes.length ? h("p", { class: "tool-note", role: "note", text: notes.join(" ") }) : null,
    form)
}

function renderToolResult(name, args, res, err) {
  const box = $("tool-result")
  box.replaceChildren()
  // the result is under every tool's card: bring it into view once it is there
  requestAnimationFrame(() => box.scrollIntoView({ block: "nearest", behavior: "smooth" }))
  const head = h("header", { class: "result-head" }, h("h3", { text: `${name} → ` }))
  box.append(head)
  if (err) {
    head.firstChild.append(h("span", { class: "error", text: "failed" }))
    box.append(h("p", { class: "error", text: `${err.kind ? `[${err.kind}] ` : ""}${err.message}` }))
    return
  }
  const content = Array.isArray(res.result?.content) ? res.result.content : []
  head.firstChild.append(`${content.length} ${content.length === 1 ? "block" : "blocks"} after dedupe`)
  if (res.result?.isError) box.append(h("p", { class: "error", text: "The tool reported an error." }))
  const dropped = res.dropped || []
  const dd = h("section", { class: `dropped${dropped.length ? " has-dropped" : ""}` },
    h("h4", { text: dropped.length ? `Dedupe dropped ${dropped.length} ${dropped.length === 1 ? "block" : "blocks"}` : "Nothing dropped" }))
  if (dropped.length) {
    dd.append(h("ul", {}, dropped.map((x) => h("li", { class: "dropped-item" },
      h("span", { class: "badge badge-warn", text: x.reason }),
      h("span", { class: "mono", text: ` #${x.index} ${displayText(x.uri)}` })))))
    dd.append(h("p", { class: "muted", text: "Already attached, so the model gets it once, from the context." }))
  }
  box.append(dd)
  if (res.superseded?.length) {
    box.append(h("section", { class: "superseded" }, h("h4", { text: "Superseded attachments" }),
      h("ul", {}, res.superseded.map((u) => h("li", { class: "mono", text: displayText(u) })))))
  }
  const ol = h("ol", { class: "blocks" })
  for (const b of content) ol.append(renderBlock(b))
  box.append(ol)
  renderFigures()
}

function renderBlock(b) {
  if (!isObject(b)) b = { type: kindOf(b) }
  const li = h("li", { class: `block block-${typeof b.type === "string" ? b.type.replace(/[^\w-]/g, "") : "unknown"}` }, h("span", { class: "badge badge-type", text: String(b.type) }))
  if (b.type === "text") li.append(h("p", { class: "block-text", text: String(b.text ?? "").slice(0, 600) }))
  else if (b.type === "resource_link") {
    const uri = String(b.uri ?? "")
    li.append(h("span", { class: "block-title", text: displayText(b.title || b.name || uri) }), h("span", { class: "mono muted block-uri", text: displayText(uri) }))
    if (uri.startsWith("docs://") && !state.docs.has(uri)) {
      li.append(h("button", { type: "button", class: "btn btn-small", text: "Attach", onclick: async () => {
        try {
          addDoc(uri, await state.host.attach(uri))
        } catch (e) {
          toast(`Could not attach ${uri}: ${e.message}`, "error")
        }
      } }))
    }
  } else if (b.type === "resource") {
    const r = isObject(b.resource) ? b.resource : {}
    li.append(h("span", { class: "mono block-uri", text: displayText(r.uri) }),
      h("span", { class: "muted", text: ` ${r.mimeType || ""} · ${r.text != null ? `${fmtNum(String(r.text).length)} chars` : r.blob != null ? `${fmtNum(String(r.blob).length)} base64 chars` : "empty"}` }))
  } else li.append(h("span", { class: "muted", text: JSON.stringify(b).slice(0, 200) }))
  return li
}

// ---- figures ----

function renderFigures() {
  const host = state.host
  const box = $("figures")
  if (!host) return
  let f
  try {
    f = host.figures()
  } catch {
    return
  }
  const r = f.ratios || {}
  const card = (label, value, sub, key) => h("div", { class: "figure", "data-figure": key },
    h("div", { class: "figure-value", text: value }), h("div", { class: "figure-label", text: label }), sub ? h("div", { class: "figure-sub muted", text: sub }) : null)
  box.replaceChildren(
    card("Read reach", fmtPct(r.readReach), `${fmtNum(f.sessionsRead)} of ${fmtNum(f.sessions)} sessions read a resource`, "readReach"),
    card("Duplicate delivery", fmtPct(r.duplicateDelivery), `${fmtNum(f.toolResultsCarryingAttached)} of ${fmtNum(f.toolResultsWithAttachment)} tool results repeated an attachment`, "duplicateDelivery"),
    card("Tokens saved", fmtNum(f.tokensSaved), `${formatBytes(f.bytesSaved)} not sent twice`, "tokensSaved"),
    card("Blocks dropped", fmtNum(f.duplicatesDropped + f.linksDropped), `${fmtNum(f.duplicatesDropped)} embedded · ${fmtNum(f.linksDropped)} links`, "dropped"),
    card("Reads", fmtNum(f.reads), `${fmtNum(f.attachments)} documents attached · ${fmtNum(f.lists)} listings`, "reads"),
    card("Superseded", fmtNum(f.superseded), "attachments replaced by a newer copy", "superseded"),
  )
}

// ---- tabs ----

const TABS = ["preview", "tools", "figures"]
function selectTab(name, focus = false) {
  for (const t of TABS) {
    const tab = $(`tab-${t}`)
    const on = t === name
    tab.setAttribute("aria-selected", String(on))
    tab.tabIndex = on ? 0 : -1
    $(`panel-${t}`).hidden = !on
    if (on && focus) tab.focus()
  }
  if (name === "figures") renderFigures()
}
for (const t of TABS) {
  const tab = $(`tab-${t}`)
  tab.addEventListener("click", () => selectTab(t))
  tab.addEventListener("keydown", (e) => {
    const i = TABS.indexOf(t)
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[e.key]
    if (next == null) return
    e.preventDefault()
    selectTab(TABS[(next + TABS.length) % TABS.length], true)
  })
}

// ---- workspace restore (issue 17) ----
//
// The chips survive a reload: every change of the context saves
// host.snapshot() in localStorage, per server URL (with the documents'
// content, or without it when the quota is exceeded); the next visit
// restores it. A document that moved or was deleted meanwhile keeps a gone
// chip that says so and offers the server's closest documents: one click
// replaces it in place (host.replace).

const SNAPSHOT_KEY = `mcphost-demo.snapshot:${wsUrl}`
let saveTimer = 0
let saving = Promise.resolve()

function scheduleSave() {
  if (state.restoring || !state.host) return
  clearTimeout(saveTimer)
  saveTimer = setTimeout(() => {
    saving = saving.then(saveSnapshot)
  }, 150)
}

async function saveSnapshot() {
  const host = state.host
  if (!host || state.restoring) return
  try {
    let snap = await host.snapshot({ includeContent: true })
    try {
      localStorage.setItem(SNAPSHOT_KEY, JSON.stringify(snap))
    } catch (e) {
      if (e?.name !== "QuotaExceededError") throw e
      // Too large with the documents in it: keep the URIs and digests.
      snap = await host.snapshot()
      localStorage.setItem(SNAPSHOT_KEY, JSON.stringify(snap))
      document.body.dataset.savedContent = "false"
    }
    if (host === state.host) document.body.dataset.saved = String(snap.attachments.length)
  } catch (e) {
    toast(`Could not save the attached documents for the next visit: ${e.message}`, "warn")
  }
}

async function restoreSaved(host) {
  let snap
  try {
    snap = JSON.parse(localStorage.getItem(SNAPSHOT_KEY) || "null")
  } catch {
    snap = null
  }
  if (!snap) return
  state.restoring = true
  try {
    const results = await host.restore(snap, { timeoutMs: 15000 })
    for (const r of results) {
      if (r.outcome === "refused") {
        toast(`Could not reopen ${shortName(r.uri)}: ${r.error?.message}`, "error")
        continue
      }
      if (r.outcome === "failed" && !r.parts) {
        toast(`Could not reopen ${shortName(r.uri)}: ${r.error?.message}`, "warn")
        continue
      }
      // A gone document without a saved copy still gets its chip, for its suggestions.
      state.docs.set(r.uri, { parts: r.parts || [], flash: false, restored: r })
      if (!state.descriptors.has(r.uri)) {
        const old = snap.attachments.find((a) => a.uri === r.uri)
        if (old?.title || old?.name) state.titles.set(r.uri, old.title || old.name)
      }
    }
    document.body.dataset.restored = results.map((r) => r.outcome).join(" ")
  } catch (e) {
    // Another server's, a newer format or damaged: start empty, say why.
    toast(`Could not reopen the last visit's documents: ${e.message}`, "warn")
    if (e.kind === "invalid") localStorage.removeItem(SNAPSHOT_KEY)
    document.body.dataset.restored = "none"
  } finally {
    state.restoring = false
  }
  renderChips()
}

/** Adds to a gone chip what happened and, for a restored one, its suggestions. */
function movedOffer(li, uri, d, st) {
  if (st !== "gone") return
  const sugg = d.restored?.outcome === "gone" ? d.restored.suggestions || [] : []
  li.classList.add("has-moved")
  const box = h("div", { class: "chip-moved", role: "group", "aria-label": `${shortName(uri)} moved or was deleted` },
    h("span", { class: "chip-moved-text", text: sugg.length ? "Moved or deleted on the server. Did you mean:" : "Moved or deleted on the server; not sent to the model." }))
  for (const s of sugg.slice(0, 3)) {
    box.append(h("button", {
      type: "button", class: "chip-suggestion", "data-uri": s.uri, title: displayText(s.uri),
      "aria-label": `Replace with ${displayText(s.title || s.name || s.uri)}`,
      onclick: () => chooseSuggestion(uri, s.uri),
      text: displayText(s.title || s.name || s.uri),
    }))
  }
  if (d.restored?.suggestionsIncomplete && !sugg.length) box.append(h("span", { class: "muted", text: "(the server's list did not arrive in time)" }))
  li.append(box)
}

async function chooseSuggestion(oldUri, newUri) {
  const host = state.host
  if (!host) return
  try {
    const parts = await host.replace(oldUri, newUri)
    const docs = new Map()
    for (const [u, d] of state.docs) {
      if (u === oldUri) docs.set(newUri, { parts, flash: false })
      else if (u !== newUri) docs.set(u, d)
    }
    state.docs = docs
    if (state.selected === oldUri || !state.selected) state.selected = newUri
    toast(`Replaced ${shortName(oldUri)} with ${shortName(newUri)}`)
    renderChips()
    renderPreview()
    renderFigures()
  } catch (e) {
    toast(`Could not replace ${shortName(oldUri)}: ${e.message}`, "error")
  }
}

// ---- resource-blind switch ----

$("blind").addEventListener("click", async () => {
  const sw = $("blind")
  const on = sw.getAttribute("aria-checked") !== "true"
  sw.setAttribute("aria-checked", String(on))
  sw.disabled = true
  await start(on)
  sw.disabled = false
  toast(on ? "Reconnected as a resource-blind host: the server now offers fetch_document" : "Reconnected as a resource-aware host")
})

// for tests and the curious
window.demo = { state, get host() { return state.host }, send, selectTab }

start(false)
