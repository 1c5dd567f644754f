// How the page shows strings a server chose, and how it wraps them for a
// model. Plain ES module, no DOM, no dependencies: mention.js and demo.js
// import it, and so can any embedder (it runs in Node as it is).
//
// displayText(s) is for people: bidi controls and invisible characters in a
// name, title, URI, description or message are replaced by a visible marker
// such as ⟨U+202E⟩, so "evil://spoof/\u202Elmth.txt" shows as
// "evil://spoof/⟨U+202E⟩lmth.txt", never as ".../txt.html". Only what is shown
// changes: search, events, data-* attributes and requests keep the real
// string.
//
// wrapDocument(part) is for models: it wraps a document's text in
// <document uri="…" mimeType="…">…</document> so that neither the attribute
// values nor the text can close the wrapper and pose as the user.

/**
 * The characters displayText marks. Bidi controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069), zero-width and other format characters
 * (U+200B–U+200D, U+2060–U+206F, U+FEFF, U+180E and the Mongolian variation
 * selectors U+180B–U+180F), the soft hyphen U+00AD, U+034F, the Hangul fillers
 * (U+115F, U+1160, U+3164, U+FFA0), U+17B4–U+17B5, the line and paragraph
 * separators U+2028–U+2029, U+FFF0–U+FFFB, U+1BCA0–U+1BCA3, U+1D173–U+1D17A,
 * variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) and tag characters
 * (U+E0000–U+E007F, inside U+E0000–U+E0FFF), C0 controls, DEL and C1
 * controls, and lone surrogates. That is Unicode's Default_Ignorable_Code_Point
 * set plus the controls and separators. Tab, LF and CR are kept only with
 * { multiline: true }.
 */
const HIDDEN_ONE_LINE = /[\u0000-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E0FFF}\uD800-\uDFFF]/gu
const HIDDEN_MULTILINE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E0FFF}\uD800-\uDFFF]/gu

/** Longest run of hidden characters shown marker by marker; a longer run shows its first RUN_SHOWN and a count. */
const RUN_MAX = 4
const RUN_SHOWN = 3

const EMOJI_BEFORE = /[\p{Extended_Pictographic}\p{Emoji_Modifier}]\uFE0F?$/u
const PICTOGRAPH_AFTER = /^\p{Extended_Pictographic}/u
const EMOJI_BASE_BEFORE = /\p{Emoji}$/u

/** The visible marker for one code point: ⟨U+202E⟩ (at least four upper-case hex digits). */
export function marker(cp) {
  return `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`
}

/**
 * Whether the hidden character at i (code point cp) is part of an emoji and
 * is kept: a zero-width joiner between two pictographs (👩‍💻), or a single
 * U+FE0E/U+FE0F presentation selector right after an emoji character (❤️, 1️⃣).
 */
function keptInEmoji(s, i, cp) {
  if (cp === 0x200d) return EMOJI_BEFORE.test(s.slice(Math.max(0, i - 3), i)) && PICTOGRAPH_AFTER.test(s.slice(i + 1, i + 3))
  if (cp === 0xfe0f || cp === 0xfe0e) return i > 0 && EMOJI_BASE_BEFORE.test(s.slice(Math.max(0, i - 2), i))
  return false
}

/**
 * The string to show for s, a string from a server: every bidi control and
 * invisible character (see HIDDEN_ONE_LINE above) replaced by ⟨U+XXXX⟩, a run
 * of more than four by its first three markers and ⟨+N more⟩. Zero-width
 * joiners and presentation selectors inside emoji are kept. With
 * { multiline: true }, tab, LF and CR are kept (descriptions, messages,
 * document text). Idempotent; null and undefined give "".
 */
export function displayText(s, { multiline = false } = {}) {
  if (s == null) return ""
  s = String(s)
  const re = multiline ? HIDDEN_MULTILINE : HIDDEN_ONE_LINE
  re.lastIndex = 0
  if (!re.test(s)) return s
  re.lastIndex = 0
  let out = ""
  let at = 0 // end of the last match copied
  let run = [] // markers of the current run of adjacent hidden characters
  let runEnd = -1
  const flush = () => {
    if (run.length > RUN_MAX) out += run.slice(0, RUN_SHOWN).join("") + `⟨+${run.length - RUN_SHOWN} more⟩`
    else out += run.join("")
    run = []
  }
  for (const m of s.matchAll(re)) {
    const i = m.index
    const cp = m[0].codePointAt(0)
    if (keptInEmoji(s, i, cp)) continue
    if (i !== runEnd) {
      flush()
      out += s.slice(at, i)
    }
    run.push(marker(cp))
    at = runEnd = i + m[0].length
  }
  flush()
  return out + s.slice(at)
}

/** Whether displayText would change s (single-line rules). */
export function hasHiddenText(s) {
  HIDDEN_ONE_LINE.lastIndex = 0
  return HIDDEN_ONE_LINE.test(String(s ?? ""))
}

// ---- wrapping for a model ----

/**
 * An attribute value for a double-quoted attribute: &, <, > and " as
 * entities, and C0 controls and DEL as &#xN; so a value stays on one line.
 */
export function escapeAttribute(s) {
  return String(s ?? "").replace(/[&<>"\u0000-\u001F\u007F]/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`)
}

// What may stand between "<" and the tag name without a reader taking it for
// something else: whitespace, "/", and the invisible characters displayText marks.
const TAG_FILLER = /[\s/\u0000-\u001F\u007F-\u009F\u00AD\u034F\u061C\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFE00-\uFE0F\uFEFF]/u
const TAG_NAME = "document"

/**
 * Document text made safe to put between <document …> and </document>: every
 * "<" that opens something a reader could take for a document tag — "<" then
 * any whitespace, "/" or invisible characters, then "document" in any case or
 * width (compared after NFKC) — becomes "&lt;". Nothing else changes, so code,
 * Markdown and HTML read as they are; the wrapper's own closing tag is the
 * only "</document" left.
 */
export function escapeDocumentText(s) {
  s = String(s ?? "")
  if (!s.includes("<")) return s
  let out = ""
  let at = 0
  for (let i = s.indexOf("<"); i >= 0; i = s.indexOf("<", i + 1)) {
    let j = i + 1
    let name = ""
    // skip filler, then read enough characters to compare with the tag name
    while (j < s.length && j - i < 64 && TAG_FILLER.test(s[j])) j++
    while (j < s.length && name.length < TAG_NAME.length && j - i < 96) {
      const cp = s.codePointAt(j)
      const ch = String.fromCodePoint(cp)
      j += ch.length
      if (TAG_FILLER.test(ch) && ch !== "/" && !/\s/.test(ch)) continue // invisible inside the name
      name += ch.normalize("NFKC").toLowerCase()
    }
    if (name.startsWith(TAG_NAME)) {
      out += s.slice(at, i) + "&lt;"
      at = i + 1
    }
  }
  return out + s.slice(at)
}

/**
 * The text a model gets for one text part:
 *   <document uri="…" mimeType="…"[ stale="true"]>\n…\n</document>
 * with the attributes escaped (escapeAttribute) and the text neutralised
 * (escapeDocumentText), so nothing a server chose can close the wrapper.
 */
export function wrapDocument({ uri, mimeType, text } = {}, { stale = false } = {}) {
  const note = stale ? ' stale="true"' : ""
  return `<document uri="${escapeAttribute(uri)}" mimeType="${escapeAttribute(mimeType)}"${note}>\n${escapeDocumentText(text)}\n</document>`
}
