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
 * Sets parent's content to text (a server's string) with ranges wrapped in
 * <mark>, after prefix (a string of ours, shown as it is); text nodes only,
 * never markup. The ranges index the real string; each piece is shown
 * through displayText. What parent already holds is reused piece by piece
 * (a text node's data, a mark's text), so a keystroke that moves a
 * highlight changes characters, not elements.
 */
export function setHighlighted(parent, text, ranges, prefix = "") {
  text = String(text ?? "")
  let node = parent.firstChild
  const put = (mark, s) => {
    if (node && (mark ? node.nodeName === "MARK" : node.nodeType === Node.TEXT_NODE)) {
      if (mark) {
        if (node.textContent !== s) node.textContent = s
      } else if (node.data !== s) node.data = s
      node = node.nextSibling
      return
    }
    let n
    if (mark) {
      n = document.createElement("mark")
      n.textContent = s
    } else n = document.createTextNode(s)
    parent.insertBefore(n, node)
  }
  let at = 0
  let pending = prefix
  for (const [s, e] of normalizeRanges(ranges, text.length)) {
    if (s > at) pending += displayText(text.slice(at, s))
    if (pending) put(false, pending)
    pending = ""
    put(true, displayText(text.slice(s, e)))
    at = e
  }
  if (at < text.length) pending += displayText(text.slice(at))
  if (pending) put(false, pending)
  while (node) {
    const next = node.nextSibling
    node.remove()
    node = next
  }
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

// What each option element built here shows: its kind ("resource" or
// "prompt"), its parts, and a key per part, so that rendering another row
// into it (the picker reuses its rows from keystroke to keystroke) touches
// only the parts that differ. A new element costs the browser a style
// resolution and a layout of everything in it; a changed text node, a
// layout of its line.
const shown = new WeakMap()

function sync(e, name, value) {
  if (e.getAttribute(name) !== value) e.setAttribute(name, value)
}

/**
 * The option element for row r: reuse when it is an option built here of
 * the same kind, else a new one; its class and ARIA attributes set. Returns
 * its parts ({opt, icon, title, sub, uri, desc, meta, keys}).
 */
function optionShell(reuse, kind, r, idPrefix, ctx, cls) {
  let s = reuse ? shown.get(reuse) : undefined
  if (!s || s.kind !== kind) {
    const opt = el("div", cls, { role: "option" })
    const icon = el("span", "mcp-mention-icon", { "aria-hidden": "true" })
    const title = el("span", "mcp-mention-title", { dir: "auto" })
    const sub = el("span", "mcp-mention-sub")
    const uri = el("span", kind === "prompt" ? "mcp-mention-uri mcp-mention-prompt-name" : "mcp-mention-uri", { dir: "ltr" })
    sub.append(uri)
    const meta = el("span", "mcp-mention-meta")
    opt.append(icon, title, meta, sub)
    s = { kind, opt, icon, title, sub, uri, desc: null, meta, keys: {} }
    shown.set(opt, s)
  }
  const { opt } = s
  if (opt.className !== cls) opt.className = cls
  sync(opt, "id", `${idPrefix}-opt-${r.ordinal}`)
  sync(opt, "aria-selected", String(ctx.active === r.ordinal))
  sync(opt, "aria-setsize", String(r.size))
  sync(opt, "aria-posinset", String(r.pos))
  sync(opt, "data-ordinal", String(r.ordinal))
  return s
}

// key is what a part shows: the part is rebuilt only when it changed.
function changed(s, part, key) {
  if (s.keys[part] === key) return false
  s.keys[part] = key
  return true
}

function rangesKey(ranges) {
  return Array.isArray(ranges) && ranges.length ? JSON.stringify(ranges) : ""
}

/** The icon: the first safe image of icons, else glyph. */
function setIcon(s, icons, glyph, ctx) {
  const src = (Array.isArray(icons) ? icons : []).map((i) => safeIconSrc(i?.src, { remote: ctx.remoteIcons })).find(Boolean)
  if (!changed(s, "icon", src ? `\u0001${src}` : glyph)) return
  if (src) {
    const img = el("img", "", { alt: "", referrerpolicy: "no-referrer", loading: "lazy", width: "24", height: "24" })
    img.src = src
    s.icon.replaceChildren(img)
  } else s.icon.textContent = glyph
}

/** The title line: title (else name), highlighted. */
function setTitle(s, title, name, hl) {
  const [text, ranges] = title ? [title, hl.title] : [name, hl.name]
  if (changed(s, "title", `${title ? "t" : "n"}\u0000${text}\u0000${rangesKey(ranges)}`)) setHighlighted(s.title, text, ranges)
}

/** The second line: the URI (or /name after prefix), then " · description" when there is one. */
function setSub(s, uriText, uriRanges, description, descRanges, prefix = "") {
  if (changed(s, "uri", `${uriText}\u0000${rangesKey(uriRanges)}`)) setHighlighted(s.uri, uriText, uriRanges, prefix)
  if (!changed(s, "desc", description ? `${description}\u0000${rangesKey(descRanges)}` : "")) return
  if (!description) {
    while (s.uri.nextSibling) s.uri.nextSibling.remove()
    return
  }
  if (!s.desc) s.desc = el("span", "mcp-mention-desc", { dir: "auto" })
  if (s.uri.nextSibling !== null && s.uri.nextSibling.nextSibling === s.desc) {
    // " · " and the description are in place
  } else {
    while (s.uri.nextSibling) s.uri.nextSibling.remove()
    s.sub.append(" · ", s.desc)
  }
  setHighlighted(s.desc, description, descRanges)
}

/**
 * The badges after the title: specs [{cls, text, title?, dir?}], each a
 * span; an existing span of the same class is reused.
 */
function setBadges(s, specs) {
  if (!changed(s, "meta", JSON.stringify(specs))) return
  const meta = s.meta
  let node = meta.firstElementChild
  for (const b of specs) {
    let span = node
    if (span && span.className === b.cls) node = node.nextElementSibling
    else {
      span = el("span", b.cls)
      meta.insertBefore(span, node)
    }
    if (span.textContent !== b.text) span.textContent = b.text
    if (b.title) sync(span, "title", b.title)
    else span.removeAttribute("title")
    if (b.dir) sync(span, "dir", b.dir)
    else span.removeAttribute("dir")
  }
  while (node) {
    const next = node.nextElementSibling
    node.remove()
    node = next
  }
}

/**
 * The role=option element of row r ({match, host, ordinal, pos, size}) with
 * the id idPrefix-opt-ordinal. ctx: { active (ordinal), remoteIcons,
 * accepts(descriptor, {template, host}) }. With reuse, an option element
 * this function returned before, that element is updated to show r (only
 * the parts that differ change) and returned; otherwise the element is new.
 */
export function renderOption(r, idPrefix, ctx, reuse) {
  const { match } = r
  if (match.prompt) return renderPromptOption(r, idPrefix, ctx, reuse)
  const isTemplate = !match.resource && !!match.template
  const d = match.resource || match.template || {}
  const hl = match.highlights || {}
  const badges = []
  if (isTemplate) badges.push({ cls: "mcp-mention-badge is-template", text: "template" })
  const mb = mimeBadge(d.mimeType)
  if (mb) badges.push({ cls: "mcp-mention-badge mcp-mention-mime", text: displayText(mb), dir: "ltr" })
  if (!isTemplate && typeof d.size === "number") {
    const tokens = typeof match.tokens === "number" ? ` · ≈${formatTokens(match.tokens)} tokens` : ""
    badges.push({ cls: "mcp-mention-size", text: formatBytes(d.size) + tokens })
  }
  let cls = isTemplate ? "mcp-mention-option is-template" : "mcp-mention-option"
  // What the host will hold back from the model (mention()'s withheld):
  // shown before the entry is chosen.
  if (match.mcpApp || match.withheld === "mcp_app") {
    cls += " is-app"
    badges.push({
      cls: "mcp-mention-badge is-app",
      text: "MCP App (UI)",
      title: "An interactive view for the page to render; not sent to the model",
    })
  } else if (match.withheld === "too_large") {
    cls += " is-withheld"
    badges.push({
      cls: "mcp-mention-badge is-withheld",
      text: "too large for the model",
      title: `About ${typeof match.tokens === "number" ? formatTokens(match.tokens) : "too many"} tokens, over this host's maxModelTokens: attached but not sent to the model unless the page includes it (host.include)`,
    })
  }
  let verdict = true
  try {
    verdict = ctx.accepts(d, { template: isTemplate, host: r.host })
  } catch {
    verdict = true
  }
  if (verdict !== true) {
    cls += " is-unsupported"
    badges.push({
      cls: "mcp-mention-badge is-unsupported",
      text: "not sent to model",
      title: typeof verdict === "string" ? displayText(verdict) : "The model provider cannot accept this type",
    })
  }
  const s = optionShell(reuse, "resource", r, idPrefix, ctx, cls)
  // each server string in its own isolated span: a right-to-left name cannot reorder the row
  setIcon(s, d.icons, glyphFor(d, isTemplate), ctx)
  setTitle(s, d.title, d.name, hl)
  setSub(s, isTemplate ? d.uriTemplate : d.uri, hl.uri, d.description, hl.description)
  setBadges(s, badges)
  return s.opt
}

/**
 * The role=option element of a prompt row r ({match: {prompt, highlights},
 * host, ordinal, pos, size}): its title (else name), "/name", its
 * description, a "prompt" badge and how many arguments it asks for. Icons
 * as for resources: data: images unless remoteIcons. reuse as for
 * renderOption.
 */
export function renderPromptOption(r, idPrefix, ctx, reuse) {
  const p = r.match.prompt
  const hl = r.match.highlights || {}
  const badges = [{ cls: "mcp-mention-badge is-prompt", text: "prompt" }]
  const args = Array.isArray(p.arguments) ? p.arguments : []
  if (args.length) {
    const req = args.filter((a) => a?.required).length
    badges.push({
      cls: "mcp-mention-size",
      text: `${args.length} ${args.length === 1 ? "argument" : "arguments"}${req && req < args.length ? `, ${req} required` : ""}`,
    })
  }
  const s = optionShell(reuse, "prompt", r, idPrefix, ctx, "mcp-mention-option is-prompt")
  setIcon(s, p.icons, "/", ctx)
  setTitle(s, p.title, p.name, hl)
  setSub(s, p.name, hl.name, p.description, hl.description, "/")
  setBadges(s, badges)
  return s.opt
}
