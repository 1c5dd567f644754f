// Combobox navigation and ARIA for <mcp-mention>, after GitHub's
// combobox-nav: the composer is the combobox (role, aria-autocomplete,
// aria-haspopup, aria-expanded, aria-controls, aria-activedescendant), its
// own attribute values are restored when the picker lets it go, and keys map
// to actions the element carries out.

/** The composer's ARIA while a picker is bound to it. */
export class ComposerAria {
  #t
  #saved = new Map()

  /** Makes t a combobox controlling the listbox listId (multiline: a contenteditable). */
  constructor(t, listId, multiline) {
    this.#t = t
    this.#set("role", "combobox")
    this.#set("aria-autocomplete", "list")
    this.#set("aria-haspopup", "listbox")
    this.#set("aria-expanded", "false")
    this.#set("aria-controls", listId)
    if (multiline) this.#set("aria-multiline", "true")
  }

  #set(k, v) {
    if (!this.#saved.has(k)) this.#saved.set(k, this.#t.getAttribute(k))
    this.#t.setAttribute(k, v)
  }

  set expanded(open) {
    this.#t.setAttribute("aria-expanded", String(!!open))
    if (!open) this.#t.removeAttribute("aria-activedescendant")
  }

  /** Points aria-activedescendant at the option id, or removes it (null). */
  set activeDescendant(id) {
    if (id) this.#t.setAttribute("aria-activedescendant", id)
    else this.#t.removeAttribute("aria-activedescendant")
  }

  /** Gives the composer its own attributes back. */
  restore() {
    for (const [k, v] of this.#saved) v == null ? this.#t.removeAttribute(k) : this.#t.setAttribute(k, v)
    this.#t.removeAttribute("aria-activedescendant")
    this.#saved.clear()
  }
}

/**
 * The action of keydown e on the composer, or null to leave it alone:
 * "open" (Alt+ArrowDown while closed), "close" (Alt+ArrowUp), "escape",
 * "next", "prev", "pageDown", "pageUp", "commit" (Enter or Tab). Keys during
 * IME composition and with Shift, Meta or Alt (but for the Alt+arrows) are
 * null; Ctrl+N and Ctrl+P move on macOS.
 */
export function keyAction(e, open) {
  if (e.isComposing || e.keyCode === 229) return null
  if (e.altKey && e.key === "ArrowDown" && !open) return "open"
  if (!open) return null
  if (e.altKey && e.key === "ArrowUp") return "close"
  if (e.shiftKey || e.metaKey || e.altKey) return null
  let key = e.key
  if (e.ctrlKey) {
    const mac = /Mac|iPhone|iPad/.test(globalThis.navigator?.platform || "")
    if (mac && key === "n") key = "ArrowDown"
    else if (mac && key === "p") key = "ArrowUp"
    else return null
  }
  return { ArrowDown: "next", ArrowUp: "prev", PageDown: "pageDown", PageUp: "pageUp", Enter: "commit", Tab: "commit", Escape: "escape" }[key] ?? null
}

/**
 * The option index after action from active (-1: none selected) among n
 * options, page options a page: past either end returns to none (-1).
 */
export function moveActive(action, active, n, page) {
  switch (action) {
    case "next":
      return active + 1 >= n ? -1 : active + 1
    case "prev":
      return active <= -1 ? n - 1 : active - 1
    case "pageDown":
      return Math.min(n - 1, Math.max(0, active) + page)
    case "pageUp":
      return Math.max(0, active - page)
  }
  return active
}
