// The "/" list of <mcp-mention> ranks prompts in JavaScript
// (web/mention/rank.js) by the rules of the picker index that ranks the "@"
// list in Go (attach.Index.Query, host.mention()). The table
// attach/testdata/prompt-ranking.json holds prompts, queries and, for each
// query, the order and highlights the Go index gives (attach
// TestPromptRankingGolden checks and rewrites them); this runs the same
// queries through rankPrompts and must get the same. Also findTrigger, which
// tells a "/" that opens the prompt list from a "/" inside a URI or a path.
import { test } from "node:test"
import assert from "node:assert/strict"
import { readFileSync } from "node:fs"
import path from "node:path"
import { root } from "./harness.mjs"

const { rankPrompts, foldQuery } = await import(path.join(root, "web", "mention", "rank.js"))
const { findMention, findTrigger } = await import(path.join(root, "web", "mention", "caret.js"))
const table = JSON.parse(readFileSync(path.join(root, "attach", "testdata", "prompt-ranking.json"), "utf8"))

test("rankPrompts matches the Go picker index on every query of attach/testdata/prompt-ranking.json", () => {
  assert.ok(table.queries.length >= 10 && Object.keys(table.want).length === table.queries.length, "the table has its want")
  for (const q of table.queries) {
    const got = rankPrompts(table.prompts, q, { limit: 50 }).map((m) => {
      const h = {}
      for (const k of ["name", "title", "description"]) if (m.highlights[k]) h[k] = m.highlights[k]
      return { name: m.prompt.name, highlights: h }
    })
    assert.deepEqual(got, table.want[q], `query ${JSON.stringify(q)}`)
  }
})

test("rankPrompts: limit, bad entries, the folded query", () => {
  assert.equal(rankPrompts(table.prompts, "", { limit: 3 }).length, 3)
  assert.equal(rankPrompts(table.prompts, "sum", { limit: 2 }).length, 2)
  assert.deepEqual(rankPrompts([null, { title: "no name" }, { name: "ok" }], "ok").map((m) => m.prompt.name), ["ok"])
  assert.deepEqual(rankPrompts(undefined, "x"), [])
  assert.deepEqual(foldQuery(" A b\tÇ "), ["a", "b", "ç"])
  assert.deepEqual(foldQuery("İ"), ["i"], "one code point in, one out, as Go's unicode.ToLower")
})

test("findTrigger: / at the start or after a space opens the prompt list; inside a URI, a path or an @query it is text", () => {
  const both = ["@", "/"]
  const cases = [
    ["/sum", 4, both, { start: 0, end: 4, query: "sum", trigger: "/" }],
    ["see /sum", 8, both, { start: 4, end: 8, query: "sum", trigger: "/" }],
    ["(/x", 3, both, { start: 1, end: 3, query: "x", trigger: "/" }],
    ["/", 1, both, { start: 0, end: 1, query: "", trigger: "/" }],
    ["/a/b", 4, both, { start: 0, end: 4, query: "a/b", trigger: "/" }],
    ["@docs://team/x", 14, both, { start: 0, end: 14, query: "docs://team/x", trigger: "@" }],
    ["and/or", 6, both, null],
    ["http://x", 8, both, null],
    ["/sum now", 8, both, null],
    ["x /a", 4, ["@"], null],
    ["@a /b", 5, ["/"], { start: 3, end: 5, query: "b", trigger: "/" }],
    ["@onb", 4, ["/"], null],
    ["/a@b", 4, both, null],
    ["mail a@b.c", 10, both, null],
    ["", 0, both, null],
  ]
  for (const [text, caret, triggers, want] of cases) assert.deepEqual(findTrigger(text, caret, triggers), want, `${JSON.stringify(text)} at ${caret} with ${triggers}`)
  // findMention keeps its shape: the @token only, no trigger field
  assert.deepEqual(findMention("hi /x @onb", 10), { start: 6, end: 10, query: "onb" })
  assert.equal(findMention("/sum", 4), null)
})
