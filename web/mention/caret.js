// Query and caret parsing for <mcp-mention>: finding the @token being typed
// at the caret of a textarea, an input or a contenteditable, and replacing
// it with the chosen resource's token.

import { displayText } from "../display.js"

/**
 * Finds the @-mention being typed at caret in text: an "@" at the start or
 * after whitespace or an opening bracket, followed by non-space characters up
 * to the caret. Returns { start, end, query } (start indexes the "@") or null.
 */
export function findMention(text, caret) {
  const m = findTrigger(text, caret, ["@"])
  return m && { start: m.start, end: m.end, query: m.query }
}

/**
 * Finds the token being typed at caret in text for any of triggers ("@"
 * and/or "/"): the trigger at the start or after whitespace or an opening
 * bracket, followed by non-space characters up to the caret. Returns
 * { start, end, query, trigger } or null. A "/" elsewhere (inside a URI, a
 * path, "and/or") is part of the query, not a trigger; an "@" elsewhere
 * ("a@b.c") ends the search, as it always has.
 */
export function findTrigger(text, caret, triggers = ["@"]) {
  if (caret == null || caret < 1 || caret > text.length) return null
  for (let i = caret - 1; i >= 0; i--) {
    const c = text[i]
    if (c === "@" || c === "/") {
      const before = i === 0 ? "" : text[i - 1]
      const placed = i === 0 || /[\s([{"'“‘]/.test(before)
      if (placed && triggers.includes(c)) return { start: i, end: caret, query: text.slice(i + 1, caret), trigger: c }
      if (c === "@" && triggers.includes("@")) return null
      continue
    }
    if (/\s/.test(c)) return null
  }
  return null
}

/** Whether the composer t is a text control (textarea or input) rather than a contenteditable. */
export function isTextControl(t) {
  return t instanceof HTMLTextAreaElement || t instanceof HTMLInputElement
}

/**
 * The token at the caret of composer t for triggers: { start, end, query,
 * trigger } (plus the text node, in a contenteditable), or null when there
 * is none or the selection is not collapsed.
 */
export function caretToken(t, triggers = ["@"]) {
  if (!t) return null
  if (isTextControl(t)) {
    if (t.selectionStart !== t.selectionEnd) return null
    return findTrigger(t.value, t.selectionStart, triggers)
  }
  const sel = t.ownerDocument.getSelection()
  if (!sel || sel.rangeCount === 0 || !sel.isCollapsed) return null
  const node = sel.anchorNode
  if (!node || node.nodeType !== Node.TEXT_NODE || !t.contains(node)) return null
  const m = findTrigger(node.data, sel.anchorOffset, triggers)
  return m && { ...m, node }
}

/**
 * Replaces token tok in composer t with the mention of uri: "@uri " (or
 * "@label " when show is "label") in a text control, an uneditable span
 * titled label in a contenteditable; then fires an input event
 * (insertReplacementText) on t.
 */
export function insertToken(t, tok, uri, label, show = "uri") {
  if (!t || !tok) return
  if (isTextControl(t)) {
    // shown as displayText: a URI with bidi controls must not reorder the composer (the event details keep the real URI)
    const text = `@${displayText(show === "label" && label ? label : uri)} `
    t.focus()
    t.setSelectionRange(tok.start, tok.end)
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

/**
 * Removes token tok (a "/prompt" being typed) from composer t, if the
 * composer still holds it there, and fires an input event
 * (deleteContentBackward). A prompt's result goes to the page as an event:
 * nothing is written in its place.
 */
export function removeToken(t, tok) {
  if (!t || !tok) return
  const text = `${tok.trigger ?? ""}${tok.query}`
  if (isTextControl(t)) {
    if (t.value.slice(tok.start, tok.end) !== text) return
    t.focus()
    t.setRangeText("", tok.start, tok.end, "end")
    t.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "deleteContentBackward" }))
    return
  }
  const node = tok.node
  if (!node || !node.isConnected || node.data.slice(tok.start, tok.end) !== text) return
  node.data = node.data.slice(0, tok.start) + node.data.slice(tok.end)
  t.focus()
  const sel = t.ownerDocument.getSelection()
  const range = t.ownerDocument.createRange()
  range.setStart(node, tok.start)
  range.collapse(true)
  sel.removeAllRanges()
  sel.addRange(range)
  t.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "deleteContentBackward" }))
}
