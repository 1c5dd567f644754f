// Ranking prompts for the "/" list of <mcp-mention>: the picker index's
// matcher (Go's attach.Index.Query, which ranks host.mention()) over a
// prompt's name, title and description. Prompts are few (a server lists
// tens, not the 100,000 resources the Go index is built for) and are not in
// that index, so they are ranked here rather than through another wasm
// export; the rules are the same, and testdata/prompt-ranking.json, written
// by the Go index (attach TestPromptRankingGolden) and read by
// e2e/rank.test.mjs, keeps the two in step:
//
// - the query is case-folded (per code point) with spaces removed;
// - a field matches in one piece (at its start, at a word start, inside a
//   word) or, for name and title, as pieces that each start a word
//   (initials) or as letters in order whose first starts a word
//   (scattered); a description matches in one piece only;
// - a word starts at the field's start, after a character that is not a
//   letter or digit, or (all-ASCII fields) at a camelCase hump;
// - score = 2 × tier + 1 for name or title; the best field decides;
// - ties: listing order; the empty query lists by display name (title,
//   else name);
// - with at least 5 matches better than scattered, scattered ones drop;
// - highlights: UTF-16 ranges in the deciding field, and in any other field
//   only where the query occurs in one piece.

const NONE = 0
const SCATTERED = 1
const INSIDE = 2
const INITIALS = 3
const WORD_START = 4
const PREFIX = 5
const STRONG_MATCHES = 5

const FIELDS = ["name", "title", "description"]
const FUZZY = { name: true, title: true, description: false }
// rank(INSIDE, uri) in Go: the line between real and scattered matches
const STRONG_SCORE = 2 * INSIDE

const foldCP = (c) => {
  const l = c.toLowerCase()
  const first = String.fromCodePoint(l.codePointAt(0))
  // one code point in, one out (Go's unicode.ToLower): "İ" folds to "i"
  return first
}

/** A field prepared for matching: code points of its folded form and their UTF-16 offsets. */
function prepare(s) {
  s = typeof s === "string" ? s : ""
  const orig = []
  const fold = []
  const off = []
  let u = 0
  let ascii = true
  for (const c of s) {
    if (c.codePointAt(0) > 0x7f) ascii = false
    orig.push(c)
    fold.push(foldCP(c))
    off.push(u)
    u += c.length
  }
  off.push(u)
  return { orig, fold, off, ascii }
}

const ALNUM_ASCII = /[a-z0-9]/
const LETTER_DIGIT = /[\p{L}\p{Nd}]/u

function boundary(f, i) {
  if (i === 0) return true
  if (f.ascii) {
    if (!ALNUM_ASCII.test(f.fold[i - 1])) return true
    const o = f.orig[i]
    const po = f.orig[i - 1]
    return o >= "A" && o <= "Z" && po >= "a" && po <= "z"
  }
  return !LETTER_DIGIT.test(f.fold[i - 1])
}

function indexOf(f, q, from) {
  const n = q.length
  outer: for (let i = from; i + n <= f.fold.length; i++) {
    for (let k = 0; k < n; k++) if (f.fold[i + k] !== q[k]) continue outer
    return i
  }
  return -1
}

function indexCP(f, c, from) {
  for (let i = from; i < f.fold.length; i++) if (f.fold[i] === c) return i
  return -1
}

function lastIndexCP(f, c, before) {
  for (let i = before - 1; i >= 0; i--) if (f.fold[i] === c) return i
  return -1
}

/** The tier of query q (folded code points) in field f and the matched positions, as Go's field.match. */
function match(f, q, fuzzy) {
  const n = q.length
  if (n === 0 || f.fold.length < n) return { tier: NONE }
  let first = 0
  let end = 0
  for (let k = 0; k < n; k++) {
    const i = indexCP(f, q[k], end)
    if (i < 0) return { tier: NONE }
    if (k === 0) first = i
    end = i + 1
  }
  let i = indexOf(f, q, 0)
  if (i >= 0) {
    let tier = INSIDE
    if (i === 0) tier = PREFIX
    else if (boundary(f, i)) tier = WORD_START
    else {
      for (let from = i + 1, tries = 0; tries < 8; tries++) {
        const j = indexOf(f, q, from)
        if (j < 0) break
        if (boundary(f, j)) {
          i = j
          tier = WORD_START
          break
        }
        from = j + 1
      }
    }
    return { tier, pos: q.map((_, k) => i + k) }
  }
  if (!fuzzy || n < 2) return { tier: NONE }
  const r0 = q[0]
  let start = first
  let at = end
  while (!boundary(f, start)) {
    const j = indexCP(f, r0, start + 1)
    if (j < 0) return { tier: NONE }
    start = j
    if (!boundary(f, start)) continue
    at = start + 1
    for (let k = 1; k < n; k++) {
      const m = indexCP(f, q[k], at)
      if (m < 0) return { tier: NONE }
      at = m + 1
    }
  }
  const pos = new Array(n)
  for (let k = n - 1; k >= 1; k--) {
    at = lastIndexCP(f, q[k], at)
    pos[k] = at
  }
  for (let j = lastIndexCP(f, r0, pos[1]); j > start; j = lastIndexCP(f, r0, j)) {
    if (boundary(f, j)) {
      start = j
      break
    }
  }
  pos[0] = start
  let tier = INITIALS
  for (let k = 1; k < n; k++) {
    if (pos[k] !== pos[k - 1] + 1 && !boundary(f, pos[k])) {
      tier = SCATTERED
      break
    }
  }
  return { tier, pos }
}

/** Merged half-open UTF-16 ranges of the matched code points. */
function ranges(f, pos) {
  const out = []
  for (const p of pos) {
    const s = f.off[p]
    const e = f.off[p + 1]
    const last = out[out.length - 1]
    if (last && last[1] === s) last[1] = e
    else out.push([s, e])
  }
  return out
}

const rank = (tier, field) => 2 * tier + (field === "name" || field === "title" ? 1 : 0)

/** Orders code point arrays as Go orders their UTF-8 strings (bytewise = by code point). */
function byCodePoints(a, b) {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return a.length - b.length
}

/** The folded code points of a query, spaces removed. */
export function foldQuery(q) {
  const out = []
  for (const c of String(q ?? "")) if (!/\s/u.test(c)) out.push(foldCP(c))
  return out
}

/**
 * Ranked matches of query among prompts (prompts/list descriptors), best
 * first, at most limit (default 50): [{ prompt, score, highlights: { name?,
 * title?, description? } }], highlights as UTF-16 [start, end) ranges.
 */
export function rankPrompts(prompts, query, { limit = 50 } = {}) {
  const q = foldQuery(query)
  const list = Array.isArray(prompts) ? prompts.filter((p) => p && typeof p.name === "string") : []
  if (!q.length) {
    const key = (p) => prepare(p.title || p.name).fold.map((c) => c.codePointAt(0))
    return list
      .map((prompt, seq) => ({ prompt, seq, key: key(prompt) }))
      .sort((a, b) => byCodePoints(a.key, b.key) || a.seq - b.seq)
      .slice(0, limit > 0 ? limit : 50)
      .map(({ prompt }) => ({ prompt, score: 0, highlights: {} }))
  }
  const found = []
  let strong = 0
  list.forEach((prompt, seq) => {
    const fields = FIELDS.map((name) => ({ name, f: prepare(prompt[name]) }))
    let best = null
    for (const { name, f } of fields) {
      const fuzzy = FUZZY[name] && (!best || best.score < rank(INITIALS, name))
      const m = match(f, q, fuzzy)
      if (m.tier !== NONE) {
        const score = rank(m.tier, name)
        if (!best || score > best.score) best = { score, field: name }
      }
    }
    if (!best) return
    if (best.score >= STRONG_SCORE) strong++
    const highlights = {}
    for (const { name, f } of fields) {
      const m = match(f, q, FUZZY[name])
      if (m.tier !== NONE && (name === best.field || m.tier >= INSIDE)) highlights[name] = ranges(f, m.pos)
    }
    found.push({ prompt, score: best.score, seq, highlights })
  })
  found.sort((a, b) => b.score - a.score || a.seq - b.seq)
  const kept = found.slice(0, limit > 0 ? limit : 50)
  const drop = strong >= STRONG_MATCHES
  return kept.filter((m) => !drop || m.score >= STRONG_SCORE).map(({ prompt, score, highlights }) => ({ prompt, score, highlights }))
}
