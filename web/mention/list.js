// The virtual listbox of <mcp-mention>: rows grouped by server, of which only
// those in view plus an overscan are in the DOM (never more than
// MAX_OPTION_NODES options), between spacers that keep the scrollbar true;
// the active option is scrolled into view and rendered on demand.

import { el } from "./dom.js"

/** Most option nodes the listbox ever holds, however many matches there are. */
export const MAX_OPTION_NODES = 50

const DEFAULT_ROW_HEIGHT = 56
const DEFAULT_GROUP_HEIGHT = 30
// Rows rendered beyond the view on each side, so that a scroll the
// compositor runs ahead of the main thread finds rows already there. Each
// keystroke renders them too: in a 10,000-descriptor probe (Chromium 156,
// limit 20), 3 instead of 6 took the keystroke → list laid out median from
// 7.3–8.0 to 6.1–6.9 ms, p99 10.6–11.6 to 8.8–10.4 ms (three runs each).
const OVERSCAN = 3

/**
 * A VirtualList renders rows into the role=listbox element list. Rows are
 * {type: "group", hostIndex, label, count} or {type: "option", match, host,
 * hostIndex, pos, size, ordinal}; renderOption(row, reuse) returns an
 * option's element (with the id optionId(ordinal)): reuse, an element it
 * returned before (or undefined), updated to show row, or a new one.
 */
export class VirtualList {
  rows = []
  options = [] // indexes into rows of the option rows
  active = -1 // index into options
  #list
  #idPrefix
  #renderOption
  #rowHeight = DEFAULT_ROW_HEIGHT
  #groupHeight = DEFAULT_GROUP_HEIGHT
  #offsets = [0] // #offsets[i] = top of row i; #offsets[rows.length] = total height
  #range = [0, 0]
  #raf = 0
  #top = NaN // the list's scrollTop as last read or set; NaN: unknown (it scrolled since)
  #measured = false // row heights read since the list opened
  #above = el("div", "mcp-mention-spacer", { "aria-hidden": "true" })
  #below = el("div", "mcp-mention-spacer", { "aria-hidden": "true" })
  #groups = new Map() // hostIndex → {group, header, key, nodes, keys}: a server's group, its options and their rows' keys

  constructor(list, idPrefix, renderOption) {
    this.#list = list
    this.#idPrefix = idPrefix
    this.#renderOption = renderOption
  }

  /** The id of option ordinal i. */
  optionId(i) {
    return `${this.#idPrefix}-opt-${i}`
  }

  /** The row of option i, or undefined. */
  optionRow(i) {
    return this.rows[this.options[i]]
  }

  /** Options in one page of the list (PageDown, PageUp). */
  get page() {
    return Math.max(1, Math.floor((this.#list.clientHeight || 7 * this.#rowHeight) / this.#rowHeight) - 1)
  }

  /** Empties the list. */
  clear() {
    cancelAnimationFrame(this.#raf)
    this.#raf = 0
    this.#top = NaN
    this.#measured = false
    this.#list.replaceChildren()
    this.rows = []
    this.options = []
    this.active = -1
  }

  /**
   * Renders rows (from the top with reset, else where the list is
   * scrolled); with no rows, one disabled option saying emptyText (the id
   * idPrefix-none). Returns the active option's id or null.
   *
   * A keystroke (reset) reads nothing of the page's layout: the scroll
   * position is known (0, or set to 0 when it was not), the view's height is
   * at most the height set here, and the row heights were read when the list
   * opened. A read would make the browser lay out, inside the keystroke,
   * what the keystroke changed so far (the composer's text), a layout pass
   * of its own before the frame's.
   */
  render(emptyText, reset = false) {
    this.#list.hidden = false
    if (!this.rows.length) {
      const none = el("div", "mcp-mention-empty", { role: "option", "aria-disabled": "true", id: `${this.#idPrefix}-none` })
      none.textContent = emptyText
      this.#list.replaceChildren(none)
      this.#list.style.height = ""
      this.#range = [0, 0]
      return null
    }
    if (!this.#measured) {
      this.#measure()
      this.#measured = true
    }
    const off = (this.#offsets = new Array(this.rows.length + 1))
    off[0] = 0
    this.rows.forEach((r, i) => (off[i + 1] = off[i] + (r.type === "group" ? this.#groupHeight : this.#rowHeight)))
    const height = off[Math.min(this.rows.length, 7)]
    this.#list.style.height = `${height}px`
    if (!reset) return this.renderWindow(true)
    if (this.#top !== 0) this.#list.scrollTop = 0
    this.#top = 0
    return this.renderWindow(true, 0, height)
  }

  /** On scroll: renders the rows now in view, once per frame (cb gets the active id). */
  scrolled(cb) {
    this.#top = NaN
    if (this.#raf) return
    this.#raf = requestAnimationFrame(() => {
      this.#raf = 0
      cb(this.renderWindow())
    })
  }

  #measure() {
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

  /**
   * Renders only the rows in view (plus overscan); returns the active
   * option's id or null. top and view (the scroll position and the view's
   * height) are read from the list unless given.
   */
  renderWindow(force = false, top = this.#list.scrollTop, view = this.#list.clientHeight || 7 * this.#rowHeight) {
    this.#top = top
    const rows = this.rows
    if (!rows.length) return null
    const off = this.#offsets
    const first = Math.max(0, this.#rowAt(top) - OVERSCAN)
    let last = Math.min(rows.length, this.#rowAt(top + view) + 1 + OVERSCAN)
    let count = 0
    for (let i = first; i < last; i++) {
      if (rows[i].type === "option" && ++count > MAX_OPTION_NODES) {
        last = i
        break
      }
    }
    if (force || first !== this.#range[0] || last !== this.#range[1]) {
      this.#range = [first, last]
      this.#renderRows(first, last)
    }
    return this.syncActive()
  }

  /**
   * Puts rows [first, last) into the list between the spacers, reusing the
   * elements of the last render: a group keeps its element, and its options
   * are rendered into the elements it already has, in order, by renderOption
   * (which changes only what differs), so a keystroke changes text, not
   * elements. A scroll, whose window is the last one shifted, first moves
   * the options that left the view to the side that enters it, so the rows
   * still in view keep their elements untouched. Rebuilding every row at
   * every keystroke cost a style resolution and a layout of each new
   * element and a detach of each old one; moving an element costs the same,
   * so nothing moves that need not.
   */
  #renderRows(first, last) {
    const rows = this.rows
    const off = this.#offsets
    this.#above.style.height = `${off[first]}px`
    this.#below.style.height = `${off[rows.length] - off[last]}px`
    const top = [this.#above]
    for (let i = first; i < last; ) {
      const r = rows[i]
      const g = r.type === "group" ? r : rows.find((x) => x.type === "group" && x.hostIndex === r.hostIndex)
      const gs = this.#group(g)
      const members = []
      if (r.type === "group") {
        members.push(gs.header)
        i++
      }
      const opts = []
      while (i < last && rows[i].type === "option" && rows[i].hostIndex === g.hostIndex) opts.push(rows[i++])
      members.push(...this.#fill(gs, opts))
      reconcile(gs.group, members)
      top.push(gs.group)
    }
    top.push(this.#below)
    reconcile(this.#list, top)
  }

  /** Renders opts (option rows of gs's server, in order) into gs's option elements; returns them in order. */
  #fill(gs, opts) {
    let nodes = gs.nodes
    const keys = gs.keys
    const want = opts.map(rowKey)
    const m = nodes.length
    // the window shifted by j rows down (or up): move the j rows that left
    // to the end (or the start), where the rows entering the view go
    const j = m && want.length ? keys.indexOf(want[0]) : -1
    const i = j <= 0 && m && want.length ? want.indexOf(keys[0]) : -1
    if (j > 0 && aligned(keys, j, want, 0)) {
      const moved = nodes.slice(0, j)
      nodes = nodes.slice(j).concat(moved)
      gs.group.append(...moved)
    } else if (i > 0 && i < m && aligned(want, i, keys, 0)) {
      const moved = nodes.slice(m - i)
      nodes = moved.concat(nodes.slice(0, m - i))
      gs.group.insertBefore(moved.length === 1 ? moved[0] : fragment(moved), nodes[i])
    }
    const out = opts.map((r, k) => this.#renderOption(r, nodes[k]))
    gs.nodes = out
    gs.keys = want
    return out
  }

  /** The group element of group row g ({hostIndex, label, count}), its header showing g. */
  #group(g) {
    let gs = this.#groups.get(g.hostIndex)
    if (!gs) {
      const group = el("div", "mcp-mention-group", { role: "group", "data-host": String(g.hostIndex) })
      const header = el("div", "mcp-mention-group-header", { "aria-hidden": "true" })
      gs = { group, header, key: null, nodes: [], keys: [] }
      this.#groups.set(g.hostIndex, gs)
    }
    const key = `${g.label}\u0000${g.count}`
    if (gs.key !== key) {
      gs.key = key
      gs.group.setAttribute("aria-label", g.label)
      gs.header.replaceChildren(Object.assign(el("bdi", "mcp-mention-server"), { textContent: g.label }), ` · ${g.count}`)
    }
    return gs
  }

  /**
   * Selects option i (-1: none), scrolling it into view when scroll is set;
   * returns the active option's id or null.
   */
  setActive(i, scroll = true) {
    const n = this.options.length
    if (!n) return null
    this.active = i < 0 ? -1 : Math.min(i, n - 1)
    if (scroll && this.active >= 0) {
      const rowIndex = this.options[this.active]
      // keep the group header in view for a group's first option
      const topRow = this.rows[rowIndex - 1]?.type === "group" ? rowIndex - 1 : rowIndex
      const y0 = this.#offsets[topRow]
      const y1 = this.#offsets[rowIndex + 1]
      const L = this.#list
      if (y0 < L.scrollTop) L.scrollTop = y0
      else if (y1 > L.scrollTop + L.clientHeight) L.scrollTop = y1 - L.clientHeight
    }
    return this.renderWindow()
  }

  /** Marks the active option aria-selected; returns its id when it is in the DOM, else null. */
  syncActive() {
    for (const o of this.#list.querySelectorAll("[role=option][aria-selected=true]")) o.setAttribute("aria-selected", "false")
    const id = this.optionId(this.active)
    const opt = this.active >= 0 ? this.#list.querySelector(`#${CSS.escape(id)}`) : null
    if (!opt) return null
    opt.setAttribute("aria-selected", "true")
    return id
  }
}

/**
 * What a row shows, as a string: its server, its kind and the URI, URI
 * template or prompt name (a row's highlights may change; it is the same
 * row).
 */
export function rowKey(r) {
  if (!r) return null
  const m = r.match
  return `${r.hostIndex}|${m.resource?.uri ?? ""}|${m.template?.uriTemplate ?? ""}|${m.prompt?.name ?? ""}`
}

// aligned reports whether a[from:] and b[at:] agree where both have keys:
// the same rows, shifted.
function aligned(a, from, b, at) {
  for (let x = from, y = at; x < a.length && y < b.length; x++, y++) if (a[x] !== b[y]) return false
  return true
}

function fragment(nodes) {
  const f = document.createDocumentFragment()
  f.append(...nodes)
  return f
}

// reconcile makes nodes parent's children, in order, moving only the nodes
// that are not where they belong and removing the rest.
function reconcile(parent, nodes) {
  let cur = parent.firstChild
  for (const n of nodes) {
    if (cur === n) cur = cur.nextSibling
    else parent.insertBefore(n, cur)
  }
  while (cur) {
    const next = cur.nextSibling
    cur.remove()
    cur = next
  }
}
