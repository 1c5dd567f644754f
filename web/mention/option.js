// One option row of <mcp-mention>: title, URI, description, badges and icon,
// every server string written as text through displayText in its own
// bidi-isolated element, matches split into <mark>s. Also the DOM-free
// helpers that decide what a row shows (ranges, sizes, icons, the provider
// rule), which mention.js re-exports.

import { displayText } from "../display.js"
import { el } from "./dom.js"

/** Image types a model provider accepts by default (mirrors connect()'s acceptImages). */
export const DEFAULT_ACCEPT_IMAGES = ["image/png", "image/jpeg", "image/gif", "image/webp"]

/** Raster types an icon data: URL may have (no SVG: see safeIconSrc). */
export const ICON_DATA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]

/** Longest icon data: URL shown, in characters (48 KiB of base64 is a 36 KB image). */
export const MAX_ICON_DATA_URL = 49152

const TEXT_TYPES = /^(text\/|application\/(json|xml|yaml|x-yaml|javascript|ecmascript|toml|sql|graphql|x-sh)\b|application\/[^;]+\+(json|xml|yaml)\b)/i

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

/** A token estimate for a badge: 812, 4.2k, 325k, 1.1M. */
export function formatTokens(n) {
  if (n < 1000) return String(n)
  if (n < 10000) return `${(n / 1000).toFixed(1)}k`
  if (n < 1e6) return `${Math.round(n / 1000)}k`
  return `${(n / 1e6).toFixed(1)}M`
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

/**
 * Appends text (a server's string) to parent with ranges wrapped in <mark>;
 * text nodes only, never markup. The ranges index the real string; each piece
 * is shown through displayText.
 */
export function appendHighlighted(parent, text, ranges, opts) {
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
 * The role=option element of row r ({match, host, ordinal, pos, size}) with
 * the id idPrefix-opt-ordinal. ctx: { active (ordinal), remoteIcons,
 * accepts(descriptor, {template, host}) }.
 */
export function renderOption(r, idPrefix, ctx) {
  const { match } = r
  if (match.prompt) return renderPromptOption(r, idPrefix, ctx)
  const isTemplate = !match.resource && !!match.template
  const d = match.resource || match.template || {}
  const hl = match.highlights || {}
  const opt = el("div", "mcp-mention-option", {
    role: "option",
    id: `${idPrefix}-opt-${r.ordinal}`,
    "aria-selected": String(ctx.active === r.ordinal),
    "aria-setsize": String(r.size),
    "aria-posinset": String(r.pos),
    "data-ordinal": String(r.ordinal),
  })
  if (isTemplate) opt.classList.add("is-template")
  const icon = el("span", "mcp-mention-icon", { "aria-hidden": "true" })
  const src = (Array.isArray(d.icons) ? d.icons : []).map((i) => safeIconSrc(i?.src, { remote: ctx.remoteIcons })).find(Boolean)
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
  appendDescription(sub, d.description, hl.description)
  const meta = el("span", "mcp-mention-meta")
  if (isTemplate) meta.append(Object.assign(el("span", "mcp-mention-badge is-template"), { textContent: "template" }))
  const mb = mimeBadge(d.mimeType)
  if (mb) meta.append(Object.assign(el("span", "mcp-mention-badge mcp-mention-mime", { dir: "ltr" }), { textContent: displayText(mb) }))
  if (!isTemplate && typeof d.size === "number") {
    const tokens = typeof match.tokens === "number" ? ` · ≈${formatTokens(match.tokens)} tokens` : ""
    meta.append(Object.assign(el("span", "mcp-mention-size"), { textContent: formatBytes(d.size) + tokens }))
  }
  // What the host will hold back from the model (mention()'s withheld):
  // shown before the entry is chosen.
  if (match.mcpApp || match.withheld === "mcp_app") {
    opt.classList.add("is-app")
    const b = el("span", "mcp-mention-badge is-app")
    b.textContent = "MCP App (UI)"
    b.title = "An interactive view for the page to render; not sent to the model"
    meta.append(b)
  } else if (match.withheld === "too_large") {
    opt.classList.add("is-withheld")
    const b = el("span", "mcp-mention-badge is-withheld")
    b.textContent = "too large for the model"
    b.title = `About ${typeof match.tokens === "number" ? formatTokens(match.tokens) : "too many"} tokens, over this host's maxModelTokens: attached but not sent to the model unless the page includes it (host.include)`
    meta.append(b)
  }
  let verdict = true
  try {
    verdict = ctx.accepts(d, { template: isTemplate, host: r.host })
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

/**
 * The role=option element of a prompt row r ({match: {prompt, highlights},
 * host, ordinal, pos, size}): its title (else name), "/name", its
 * description, a "prompt" badge and how many arguments it asks for. Icons
 * as for resources: data: images unless remoteIcons.
 */
export function renderPromptOption(r, idPrefix, ctx) {
  const p = r.match.prompt
  const hl = r.match.highlights || {}
  const opt = el("div", "mcp-mention-option is-prompt", {
    role: "option",
    id: `${idPrefix}-opt-${r.ordinal}`,
    "aria-selected": String(ctx.active === r.ordinal),
    "aria-setsize": String(r.size),
    "aria-posinset": String(r.pos),
    "data-ordinal": String(r.ordinal),
  })
  const icon = el("span", "mcp-mention-icon", { "aria-hidden": "true" })
  const src = (Array.isArray(p.icons) ? p.icons : []).map((i) => safeIconSrc(i?.src, { remote: ctx.remoteIcons })).find(Boolean)
  if (src) {
    const img = el("img", "", { alt: "", referrerpolicy: "no-referrer", loading: "lazy", width: "24", height: "24" })
    img.src = src
    icon.append(img)
  } else icon.textContent = "/"
  const title = el("span", "mcp-mention-title", { dir: "auto" })
  if (p.title) appendHighlighted(title, p.title, hl.title)
  else appendHighlighted(title, p.name, hl.name)
  const sub = el("span", "mcp-mention-sub")
  const name = el("span", "mcp-mention-uri mcp-mention-prompt-name", { dir: "ltr" })
  name.append("/")
  appendHighlighted(name, p.name, hl.name)
  sub.append(name)
  appendDescription(sub, p.description, hl.description)
  const meta = el("span", "mcp-mention-meta")
  meta.append(Object.assign(el("span", "mcp-mention-badge is-prompt"), { textContent: "prompt" }))
  const args = Array.isArray(p.arguments) ? p.arguments : []
  if (args.length) {
    const req = args.filter((a) => a?.required).length
    const b = el("span", "mcp-mention-size")
    b.textContent = `${args.length} ${args.length === 1 ? "argument" : "arguments"}${req && req < args.length ? `, ${req} required` : ""}`
    meta.append(b)
  }
  opt.append(icon, title, meta, sub)
  return opt
}

// appendDescription adds " · description" (highlighted, direction of its own) to a row's second line.
function appendDescription(sub, text, ranges) {
  if (!text) return
  sub.append(" · ")
  const desc = el("span", "mcp-mention-desc", { dir: "auto" })
  appendHighlighted(desc, text, ranges)
  sub.append(desc)
}
