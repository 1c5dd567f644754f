// <mcp-mention> in headless Debian Chromium against fake hosts: keyboard and
// ARIA contract, IME, text-only rendering of server strings, icon schemes,
// grouping, virtualisation at 10,000 matches, provider marks, templates with
// completion and a refused "..", cancelable mcp-attach, contenteditable,
// the mcp-rendered latency hook and an axe-core scan of the open picker.
// The element is served unbundled from web/ by a static server on loopback.
import { after, before, describe, test } from "node:test"
import assert from "node:assert/strict"
import { createServer } from "node:http"
import { readFile } from "node:fs/promises"
import path from "node:path"
import { launchBrowser, root } from "./harness.mjs"

const webDir = path.join(root, "web")
const axePath = path.join(root, "e2e", "node_modules", "axe-core", "axe.min.js")

// The fake host implements the slice of the Host API the element uses:
// mention (substring scoring with UTF-16 highlight ranges), templateVars,
// expand (refuses "." and ".." like the real one), complete, attach, and
// EventTarget. It records every call so tests can assert on them.
const FIXTURE = String.raw`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-mention fixture</title>
<style>body{font:15px system-ui;margin:0;padding:40px} textarea,[contenteditable]{display:block;width:600px;min-height:80px;margin-top:320px}</style>
</head><body>
<main>
<h1>Picker fixture</h1>
<label for="composer">Message</label>
<textarea id="composer"></textarea>
<mcp-mention for="composer"></mcp-mention>
</main>
<script type="module">
import { MentionElement, findMention } from "/mention.js"
window.__xssCalls = []
window.__xss = (...a) => window.__xssCalls.push(a)
class FakeHost extends EventTarget {
  constructor(name, resources, templates = [], opts = {}) {
    super()
    this.serverInfo = { name, version: "1" }
    this.resources = resources
    this.templatesList = templates
    this.calls = []
    this.ignoreLimit = !!opts.ignoreLimit
  }
  mention(q, { limit = 50 } = {}) {
    this.calls.push(["mention", q, limit])
    const ql = q.toLowerCase()
    const out = []
    const hl = (s) => { const i = (s || "").toLowerCase().indexOf(ql); return ql && i >= 0 ? [[i, i + ql.length]] : undefined }
    for (const r of this.resources) {
      const hay = (r.name + " " + (r.title || "") + " " + r.uri).toLowerCase()
      // tokens, withheld and mcpApp as the real host's mention() sets them
      const marks = Object.fromEntries(["tokens", "withheld", "mcpApp"].filter((k) => r["_" + k] !== undefined).map((k) => [k, r["_" + k]]))
      if (!ql || hay.includes(ql)) out.push({ resource: r, score: 1, highlights: { name: hl(r.name), title: hl(r.title), uri: hl(r.uri) }, ...marks })
    }
    for (const t of this.templatesList) {
      const hay = (t.name + " " + t.uriTemplate).toLowerCase()
      if (!ql || hay.includes(ql)) out.push({ template: t, score: 1, highlights: { name: hl(t.name), uri: hl(t.uriTemplate) } })
    }
    return this.ignoreLimit ? out : out.slice(0, limit)
  }
  templateVars(t) { return [...t.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]) }
  expand(t, vars) {
    this.calls.push(["expand", t, { ...vars }])
    return t.replace(/\{([^}]+)\}/g, (_, n) => {
      const v = vars[n]
      if (v === "." || v === "..") { const e = new Error("value of {" + n + "} is " + JSON.stringify(v) + ", which would change the path"); e.kind = "invalid"; throw e }
      return v == null ? "" : encodeURIComponent(v)
    })
  }
  async complete(t, name, value, ctx) {
    this.calls.push(["complete", t, name, value, { ...ctx }])
    const table = { team: ["payments", "platform", "support"], name: ctx && ctx.team === "platform" ? ["access-control", "change-management"] : ["escalation"] }
    return { values: (table[name] || []).filter((v) => v.startsWith(value)) }
  }
  async attach(uri) {
    this.calls.push(["attach", uri])
    return [{ uri, part: 0, kind: "text", mimeType: "text/markdown", text: "# x", html: "<h1>x</h1>", warnings: [], state: "fresh", forModel: true }]
  }
}
window.FakeHost = FakeHost
window.findMention = findMention
window.events = []
for (const t of ["mcp-attach", "mcp-attached", "mcp-error", "mcp-rendered", "mcp-suggestions"]) {
  document.addEventListener(t, (e) => window.events.push({ type: t, detail: { ...e.detail, host: e.detail.host && e.detail.host.serverInfo.name, attachments: undefined, error: e.detail.error && String(e.detail.error.message) } }))
}
const docs = [
  { uri: "docs://team/platform/onboarding/welcome", name: "welcome", title: "Welcome to Platform", description: "Start here on day one.", mimeType: "text/markdown", size: 2100 },
  { uri: "docs://team/platform/onboarding/dev-environment", name: "dev-environment", title: "Onboarding: dev environment", mimeType: "text/markdown", size: 4800 },
  { uri: "docs://team/support/media/queue-dashboard", name: "queue-dashboard", title: "Queue dashboard", mimeType: "image/png", size: 48000 },
  { uri: "docs://team/payments/reference/pci-report", name: "pci-report", title: "PCI report", mimeType: "application/pdf", size: 1300000 },
  { uri: "docs://team/platform/architecture/diagram", name: "diagram", title: "Diagram (SVG)", mimeType: "image/svg+xml", size: 900 },
]
const templates = [{ uriTemplate: "docs://team/{team}/policy/{name}", name: "policy", title: "Team policy", mimeType: "text/markdown" }]
window.host = new FakeHost("docs", docs, templates)
window.picker = document.querySelector("mcp-mention")
window.picker.hosts = [window.host]
window.ready = true
</script>
</body></html>`

let server
let base
let browser

async function serve() {
  server = createServer(async (req, res) => {
    const u = new URL(req.url, "http://x")
    if (u.pathname === "/" || u.pathname === "/fixture.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      return res.end(FIXTURE)
    }
    const file = path.join(webDir, path.normalize(u.pathname).replace(/^([/\\])+/, ""))
    if (!file.startsWith(webDir + path.sep) || !file.endsWith(".js")) {
      res.writeHead(404)
      return res.end()
    }
    try {
      const body = await readFile(file)
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" })
      res.end(body)
    } catch {
      res.writeHead(404)
      res.end()
    }
  })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  base = `http://127.0.0.1:${server.address().port}/`
}

async function openFixture() {
  const page = await browser.context.newPage()
  const errors = []
  page.on("pageerror", (e) => errors.push(e))
  await page.goto(base + "fixture.html")
  await page.waitForFunction(() => window.ready === true)
  page.errors = errors
  return page
}

const optionCount = (page) => page.locator("mcp-mention [role=listbox] [role=option]").count()

async function axeSerious(page, selector) {
  await page.addScriptTag({ content: await readFile(axePath, "utf8") })
  const res = await page.evaluate(async (sel) => {
    const r = await window.axe.run(sel ? document.querySelector(sel) : document, { resultTypes: ["violations"] })
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")) }))
  }, selector)
  return { all: res, bad: res.filter((v) => v.impact === "serious" || v.impact === "critical") }
}

describe("mcp-mention", () => {
  before(async () => {
    await serve()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await new Promise((r) => server?.close(r))
  })

  test("findMention finds the @token at the caret and nothing else", async () => {
    const page = await openFixture()
    const got = await page.evaluate(() => [
      findMention("hi @onb", 7), findMention("@x", 2), findMention("mail a@b.c", 10),
      findMention("see @docs://team/x now", 18), findMention("@a b", 4), findMention("(@q", 3),
    ])
    assert.deepEqual(got, [
      { start: 3, end: 7, query: "onb" }, { start: 0, end: 2, query: "x" }, null,
      { start: 4, end: 18, query: "docs://team/x" }, null, { start: 1, end: 3, query: "q" },
    ])
    await page.close()
  })

  test("keyboard: @ opens the combobox, arrows move aria-activedescendant, Enter commits a token and attaches", async () => {
    const page = await openFixture()
    const ta = page.locator("#composer")
    await ta.focus()
    assert.equal(await ta.getAttribute("role"), "combobox")
    assert.equal(await ta.getAttribute("aria-expanded"), "false")
    await page.keyboard.type("Read @onb")
    assert.equal(await ta.getAttribute("aria-expanded"), "true")
    const listId = await ta.getAttribute("aria-controls")
    assert.equal(await page.locator(`#${listId}`).getAttribute("role"), "listbox")
    assert.equal(await optionCount(page), 2)
    assert.equal(await ta.getAttribute("aria-activedescendant"), null, "nothing selected before ArrowDown")
    // highlighted match is a <mark> holding the matched text only
    assert.equal(await page.locator("mcp-mention [role=option] mark").first().textContent(), "onb")
    const opts = page.locator("mcp-mention [role=option]")
    assert.equal(await opts.nth(0).getAttribute("aria-setsize"), "2")
    assert.equal(await opts.nth(1).getAttribute("aria-posinset"), "2")
    // polite live region announces the count
    await page.waitForFunction(() => document.querySelector("mcp-mention [role=status]").textContent === "2 results")
    assert.equal(await page.locator("mcp-mention [role=status]").getAttribute("aria-live"), "polite")
    await page.keyboard.press("ArrowDown")
    const active = await ta.getAttribute("aria-activedescendant")
    assert.ok(active)
    assert.equal(await page.locator(`#${active}`).getAttribute("aria-selected"), "true")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowUp")
    assert.equal(await ta.getAttribute("aria-activedescendant"), active)
    await page.keyboard.press("Enter")
    assert.equal(await ta.inputValue(), "Read @docs://team/platform/onboarding/welcome ")
    assert.equal(await ta.getAttribute("aria-expanded"), "false")
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-attached"))
    const ev = await page.evaluate(() => window.events.filter((e) => e.type.startsWith("mcp-attach")))
    assert.deepEqual(ev.map((e) => [e.type, e.detail.uri, e.detail.host]), [
      ["mcp-attach", "docs://team/platform/onboarding/welcome", "docs"],
      ["mcp-attached", "docs://team/platform/onboarding/welcome", "docs"],
    ])
    assert.equal(ev[0].detail.label, "Welcome to Platform")
    assert.equal(ev[0].detail.template, undefined)
    assert.deepEqual(await page.evaluate(() => host.calls.filter((c) => c[0] === "attach")), [["attach", "docs://team/platform/onboarding/welcome"]])
    assert.deepEqual(page.errors, [])
    await page.close()
  })

  test("Escape closes until the query changes; Enter without a selection is a newline; Tab commits", async () => {
    const page = await openFixture()
    const ta = page.locator("#composer")
    await ta.focus()
    await page.keyboard.type("@wel")
    assert.equal(await ta.getAttribute("aria-expanded"), "true")
    await page.keyboard.press("Escape")
    assert.equal(await ta.getAttribute("aria-expanded"), "false")
    await page.keyboard.press("ArrowLeft")
    await page.keyboard.press("ArrowRight")
    assert.equal(await ta.getAttribute("aria-expanded"), "false", "stays closed for the same token")
    await page.keyboard.type("c")
    assert.equal(await ta.getAttribute("aria-expanded"), "true", "reopens when the query changes")
    await page.keyboard.press("Enter")
    assert.equal(await ta.inputValue(), "@welc\n", "Enter passes through when nothing is selected")
    await page.keyboard.type("@queue")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Tab")
    assert.equal(await ta.inputValue(), "@welc\n@docs://team/support/media/queue-dashboard ")
    // Alt+ArrowDown reopens on a token, Alt+ArrowUp closes
    await page.keyboard.type("@pci")
    await page.keyboard.press("Escape")
    await page.keyboard.press("Alt+ArrowDown")
    assert.equal(await ta.getAttribute("aria-expanded"), "true")
    await page.keyboard.press("Alt+ArrowUp")
    assert.equal(await ta.getAttribute("aria-expanded"), "false")
    await page.close()
  })

  test("IME composition: keys while composing are ignored; the list follows compositionend", async () => {
    const page = await openFixture()
    const ta = page.locator("#composer")
    await ta.focus()
    await page.keyboard.type("@w")
    assert.equal(await optionCount(page), 1)
    const res = await page.evaluate(() => {
      const t = document.querySelector("#composer")
      t.dispatchEvent(new CompositionEvent("compositionstart", { data: "" }))
      // the IME's own Enter/Arrow keys must not move or commit
      for (const key of ["ArrowDown", "Enter", "Escape"]) {
        t.dispatchEvent(new KeyboardEvent("keydown", { key, isComposing: true, keyCode: 229, bubbles: true, cancelable: true }))
      }
      t.setRangeText("elcome", t.selectionStart, t.selectionEnd, "end")
      t.dispatchEvent(new InputEvent("input", { isComposing: true, bubbles: true }))
      const during = { expanded: t.getAttribute("aria-expanded"), active: t.getAttribute("aria-activedescendant"), value: t.value }
      t.dispatchEvent(new CompositionEvent("compositionend", { data: "elcome" }))
      return during
    })
    assert.deepEqual(res, { expanded: "true", active: null, value: "@welcome" })
    assert.equal(await ta.getAttribute("aria-expanded"), "true")
    assert.equal(await page.evaluate(() => host.calls.filter((c) => c[0] === "mention").at(-1)[1]), "welcome")
    assert.deepEqual(await page.evaluate(() => host.calls.filter((c) => c[0] === "attach")), [])
    await page.close()
  })

  test("server strings render as text; icons only from data: raster images (https: only with remote-icons)", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      const evil = new FakeHost("<b>evil</b>", [
        { uri: "x://1", name: "<img src=x onerror=__xss(1)>", title: "<img src=y onerror=__xss(2)>", description: "<script>__xss(3)</script>", mimeType: "text/plain", icons: [{ src: "javascript:__xss(4)" }] },
        { uri: "x://2", name: "two", icons: [{ src: "http://example.com/i.png" }] },
        { uri: "x://3", name: "three", icons: [{ src: "https://example.com/i.png" }] },
        { uri: "x://4", name: "four", icons: [{ src: "data:image/png;base64,iVBORw0KGgo=" }] },
        { uri: "x://5", name: "five", icons: [{ src: "data:text/html,<script>__xss(5)</script>" }] },
      ])
      picker.hosts = [evil]
    })
    await page.locator("#composer").focus()
    await page.keyboard.type("@x:")
    assert.equal(await optionCount(page), 5)
    const first = page.locator("mcp-mention [role=option]").first()
    assert.equal(await first.locator(".mcp-mention-title").textContent(), "<img src=y onerror=__xss(2)>")
    assert.match(await first.textContent(), /<script>__xss\(3\)<\/script>/)
    assert.equal(await page.locator("mcp-mention [role=group]").getAttribute("aria-label"), "<b>evil</b>")
    const srcs = await page.locator("mcp-mention [role=listbox] img").evaluateAll((imgs) => imgs.map((i) => i.getAttribute("src")))
    assert.deepEqual(srcs, ["data:image/png;base64,iVBORw0KGgo="])
    assert.equal(await page.locator("mcp-mention [role=listbox] script, mcp-mention [role=listbox] b").count(), 0)
    assert.deepEqual(await page.evaluate(() => window.__xssCalls), [])
    await page.close()
  })

  test("results are grouped by server with per-group set sizes", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      const other = new FakeHost("wiki", [
        { uri: "wiki://onboarding", name: "onboarding", title: "Company onboarding", mimeType: "text/html" },
      ])
      other.serverInfo.title = "Company wiki"
      picker.hosts = [host, other]
    })
    await page.locator("#composer").focus()
    await page.keyboard.type("@onboarding")
    const groups = await page.locator("mcp-mention [role=group]").evaluateAll((gs) =>
      gs.map((g) => ({ label: g.getAttribute("aria-label"), sizes: [...g.querySelectorAll("[role=option]")].map((o) => o.getAttribute("aria-posinset") + "/" + o.getAttribute("aria-setsize")) })))
    assert.deepEqual(groups, [
      { label: "docs", sizes: ["1/2", "2/2"] },
      { label: "Company wiki", sizes: ["1/1"] },
    ])
    await page.waitForFunction(() => document.querySelector("mcp-mention [role=status]").textContent === "3 results from 2 servers")
    // moving past the first group's end lands in the second group
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowDown")
    const id = await page.locator("#composer").getAttribute("aria-activedescendant")
    assert.equal(await page.locator(`#${id}`).locator("xpath=..").getAttribute("aria-label"), "Company wiki")
    await page.keyboard.press("Enter")
    assert.equal(await page.locator("#composer").inputValue(), "@wiki://onboarding ")
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-attached" && e.detail.host === "wiki"))
    await page.close()
  })

  test("10,000 matches: the listbox never holds more than 50 option nodes, and the last one is reachable", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      const many = []
      for (let i = 0; i < 10000; i++) many.push({ uri: `docs://bulk/${i}`, name: `doc-${String(i).padStart(5, "0")}`, mimeType: "text/plain", size: i })
      picker.limit = 10000
      picker.hosts = [new FakeHost("bulk", many)]
      window.maxOptions = 0
      new MutationObserver(() => {
        window.maxOptions = Math.max(window.maxOptions, picker.listbox.querySelectorAll("[role=option]").length)
      }).observe(picker.listbox, { childList: true, subtree: true })
    })
    const ta = page.locator("#composer")
    await ta.focus()
    await page.keyboard.type("@doc")
    assert.ok((await optionCount(page)) <= 50)
    const sizes = await page.locator("mcp-mention [role=option]").first().getAttribute("aria-setsize")
    assert.equal(sizes, "10000")
    // from no selection, ArrowUp wraps to the last of 10,000
    await page.keyboard.press("ArrowUp")
    let id = await ta.getAttribute("aria-activedescendant")
    assert.equal(await page.locator(`#${id}`).getAttribute("aria-posinset"), "10000")
    assert.match(await page.locator(`#${id}`).textContent(), /doc-09999/)
    await page.keyboard.press("ArrowDown") // past the end: back to the composer (no selection)
    assert.equal(await ta.getAttribute("aria-activedescendant"), null)
    for (let i = 0; i < 30; i++) await page.keyboard.press("ArrowDown")
    for (let i = 0; i < 40; i++) await page.keyboard.press("PageDown")
    id = await ta.getAttribute("aria-activedescendant")
    const pos = Number(await page.locator(`#${id}`).getAttribute("aria-posinset"))
    assert.ok(pos > 200, `PageDown moved to ${pos}`)
    // scrolling renders other windows
    for (const f of [0.25, 0.5, 1]) {
      await page.evaluate((f) => { picker.listbox.scrollTop = picker.listbox.scrollHeight * f }, f)
      await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => r(true))))
    }
    assert.match(await page.locator("mcp-mention [role=option]").last().textContent(), /doc-09999/)
    const max = await page.evaluate(() => window.maxOptions)
    assert.ok(max > 0 && max <= 50, `max option nodes ${max}`)
    assert.ok((await optionCount(page)) <= 50)
    // the next arrow brings the selection back into view and Enter commits it
    await page.keyboard.press("ArrowDown")
    id = await ta.getAttribute("aria-activedescendant")
    assert.equal(await page.locator(`#${id}`).getAttribute("aria-posinset"), String(pos + 1))
    await page.keyboard.press("Enter")
    assert.equal(await ta.inputValue(), `@docs://bulk/${pos} `)
    await page.close()
  })

  test("rows are reused from keystroke to keystroke and on scroll, and a reused row shows exactly what a new one would", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      const topics = ["deploy", "rollback", "billing", "über café", "naïve résumé"]
      const types = ["text/markdown", "image/png", "application/pdf", "text/plain", undefined]
      const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
      const docs = []
      for (let i = 0; i < 80; i++) {
        const d = { uri: "docs://d/" + i + "/" + topics[i % 5].replace(/ /g, "-"), name: "doc-" + i, mimeType: types[i % 5], size: 100 * i + 7 }
        if (i % 3) d.title = "Document " + i + " about " + topics[i % 5]
        if (i % 4 === 0) d.description = "Notes on " + topics[(i + 2) % 5] + " for team " + (i % 7)
        if (i % 6 === 0) d.icons = [{ src: png }]
        if (i % 9 === 0) d._tokens = 1000 * i
        if (i % 10 === 0) d._withheld = "too_large"
        if (i % 25 === 0) d._mcpApp = true
        docs.push(d)
      }
      const templates = [
        { uriTemplate: "docs://d/{id}/about", name: "doc-about", title: "Document about {id}", mimeType: "text/markdown" },
        { uriTemplate: "docs://t/{team}/{name}", name: "team-doc", description: "A document of a team" },
      ]
      window.big = new FakeHost("docs", docs, templates)
      picker.hosts = [big]
      window.added = 0
      new MutationObserver((recs) => {
        for (const r of recs) for (const n of r.addedNodes) if (n.nodeType === 1 && (n.matches("[role=option]") || n.querySelector?.("[role=option]"))) window.added++
      }).observe(picker.listbox, { childList: true, subtree: true })
      // every option in the list against a new element rendered from the same row
      window.compareRows = async (q) => {
        const { renderOption } = await import("/mention/option.js")
        const matches = big.mention(q, { limit: picker.limit })
        const bad = []
        const opts = [...picker.listbox.querySelectorAll("[role=option]")]
        for (const o of opts) {
          const ord = Number(o.dataset.ordinal)
          const r = { type: "option", match: matches[ord], host: big, hostIndex: 0, pos: ord + 1, size: matches.length, ordinal: ord }
          const active = o.getAttribute("aria-selected") === "true" ? ord : -1
          const fresh = renderOption(r, o.id.slice(0, o.id.lastIndexOf("-opt-")), { active, remoteIcons: picker.remoteIcons, accepts: picker.accepts })
          if (fresh.outerHTML !== o.outerHTML) bad.push({ ord, got: o.outerHTML, want: fresh.outerHTML })
        }
        return { n: opts.length, bad, ords: opts.map((o) => Number(o.dataset.ordinal)) }
      }
    })
    const ta = page.locator("#composer")
    await ta.focus()
    const steps = [["type", "@"], ["type", "d"], ["type", "o"], ["type", "c"], ["press", "Backspace"], ["press", "Backspace"],
      ["type", "e"], ["type", "p"], ["press", "ArrowDown"], ["press", "ArrowDown"], ["type", "l"], ["press", "Backspace"],
      ["press", "Backspace"], ["press", "Backspace"], ["press", "Backspace"], ["type", "ü"], ["type", "b"], ["press", "Backspace"],
      ["press", "Backspace"], ["type", "t"], ["type", "e"]]
    let q = ""
    let opened = false
    for (const [how, key] of steps) {
      const before = await page.evaluate(() => window.added)
      if (how === "type") await page.keyboard.type(key)
      else await page.keyboard.press(key)
      if (how === "type") q += key === "@" ? "" : key
      else if (key === "Backspace") q = q.slice(0, -1)
      const r = await page.evaluate((q) => compareRows(q), q)
      assert.deepEqual(r.bad, [], `after ${how} ${key} (query ${JSON.stringify(q)})`)
      assert.ok(r.n > 0, `query ${JSON.stringify(q)} shows rows`)
      const added = (await page.evaluate(() => window.added)) - before
      // the first render builds the window's rows; later ones reuse them (more rows only when more are shown)
      if (opened && r.n <= 11) assert.ok(added <= Math.max(0, r.n - 11), `${added} option elements added after ${how} ${key} (${r.n} shown)`)
      opened = true
    }
    // scroll: the rows still in view keep their elements, the new ones show their rows
    await page.keyboard.press("Backspace")
    await page.keyboard.press("Backspace")
    q = ""
    await page.evaluate(() => picker.listbox.querySelectorAll("[role=option]").forEach((o) => (o.tag = o.dataset.ordinal)))
    for (const top of [6 * 56, 8 * 56, 40 * 56, 37 * 56]) { // down a few rows, a jump, up a few
      await page.evaluate((top) => { picker.listbox.scrollTop = top }, top)
      await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))
      const r = await page.evaluate((q) => compareRows(q), q)
      assert.deepEqual(r.bad, [], `scrolled to ${top}`)
      // the list stays where it was put: moving kept rows must not let scroll anchoring shift it (and render again)
      assert.equal(await page.evaluate(() => picker.listbox.scrollTop), top)
      assert.ok(r.ords[0] > 0, `scrolled to ${top}: first row ${r.ords[0]}`)
      const moved = await page.evaluate(() => [...picker.listbox.querySelectorAll("[role=option]")].filter((o) => o.tag !== undefined && o.tag !== o.dataset.ordinal).length)
      const kept = await page.evaluate(() => [...picker.listbox.querySelectorAll("[role=option]")].filter((o) => o.tag === o.dataset.ordinal).length)
      if (top !== 40 * 56) assert.ok(kept >= 5, `${kept} rows kept their element on a scroll of a few rows`)
      assert.ok(moved + kept <= r.n)
      await page.evaluate(() => picker.listbox.querySelectorAll("[role=option]").forEach((o) => (o.tag = o.dataset.ordinal)))
    }
    // a keystroke in a scrolled list shows the new matches from the top
    await page.keyboard.type("d")
    let r = await page.evaluate(() => compareRows("d"))
    assert.deepEqual(r.bad, [])
    assert.equal(r.ords[0], 0)
    assert.equal(await page.evaluate(() => picker.listbox.scrollTop), 0)
    await page.keyboard.press("Backspace")
    r = await page.evaluate(() => compareRows(""))
    assert.deepEqual(r.bad, [])
    assert.equal(r.ords[0], 0)
    // Enter still commits the active row of a reused element
    await page.keyboard.press("ArrowDown")
    const id = await ta.getAttribute("aria-activedescendant")
    const uri = await page.evaluate((id) => {
      const o = document.getElementById(id)
      return big.mention("", { limit: picker.limit })[Number(o.dataset.ordinal)].resource?.uri
    }, id)
    await page.keyboard.press("Enter")
    if (uri) assert.equal(await ta.inputValue(), `@${uri} `)
    assert.deepEqual(page.errors, [])
    await page.close()
  })

  test("resources the provider cannot accept are marked; accepts is overridable", async () => {
    const page = await openFixture()
    await page.locator("#composer").focus()
    await page.keyboard.type("@docs")
    const marks = await page.locator("mcp-mention [role=option]").evaluateAll((os) =>
      Object.fromEntries(os.map((o) => [o.querySelector(".mcp-mention-uri").textContent, o.classList.contains("is-unsupported")])))
    assert.deepEqual(marks, {
      "docs://team/platform/onboarding/welcome": false,
      "docs://team/platform/onboarding/dev-environment": false,
      "docs://team/support/media/queue-dashboard": false,
      "docs://team/payments/reference/pci-report": true,
      "docs://team/platform/architecture/diagram": true,
      "docs://team/{team}/policy/{name}": false,
    })
    assert.match(await page.locator("mcp-mention .is-unsupported .mcp-mention-badge.is-unsupported").first().textContent(), /not sent to model/)
    await page.evaluate(() => { picker.accepts = (d) => d.mimeType === "text/markdown" || "markdown only" })
    await page.waitForFunction(() => picker.listbox.querySelectorAll("[role=option].is-unsupported").length === 3)
    await page.close()
  })

  test("template: steps through variables with debounced completion, then expands and attaches", async () => {
    const page = await openFixture()
    const ta = page.locator("#composer")
    await ta.focus()
    await page.keyboard.type("@policy")
    await page.keyboard.press("ArrowDown")
    assert.match(await page.locator(`#${await ta.getAttribute("aria-activedescendant")}`).textContent(), /template/)
    await page.keyboard.press("Enter")
    const arg = page.locator("mcp-mention .mcp-mention-args input")
    await arg.waitFor({ state: "visible" })
    assert.equal(await page.evaluate(() => document.activeElement.closest(".mcp-mention-args") !== null), true)
    assert.equal(await page.locator("mcp-mention .mcp-mention-args label").textContent(), "team (1 of 2)")
    // on entering the step, suggestions for the empty value arrive
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-suggestions" && e.detail.values.length === 3))
    await page.keyboard.type("pla", { delay: 10 })
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-suggestions" && e.detail.values.join() === "platform"))
    // debounced: typing three characters quickly asks once for the final value (plus the initial empty ask)
    const asks = await page.evaluate(() => host.calls.filter((c) => c[0] === "complete" && c[2] === "team").map((c) => c[3]))
    assert.deepEqual(asks, ["", "pla"])
    assert.equal(await arg.getAttribute("aria-expanded"), "true")
    await page.keyboard.press("ArrowDown")
    assert.ok(await arg.getAttribute("aria-activedescendant"))
    await page.keyboard.press("Enter")
    assert.equal(await page.locator("mcp-mention .mcp-mention-args label").textContent(), "name (2 of 2)")
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-suggestions" && e.detail.name === "name" && e.detail.values.length === 2))
    const ctx = await page.evaluate(() => host.calls.filter((c) => c[0] === "complete" && c[2] === "name").at(-1)[4])
    assert.deepEqual(ctx, { team: "platform" }, "earlier arguments travel as context")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-attached"))
    assert.equal(await ta.inputValue(), "@docs://team/platform/policy/change-management ")
    assert.equal(await page.evaluate(() => document.activeElement.id), "composer")
    assert.equal(await ta.getAttribute("aria-expanded"), "false")
    const attach = await page.evaluate(() => window.events.find((e) => e.type === "mcp-attach").detail)
    assert.equal(attach.label, "Team policy")
    assert.equal(attach.template.uriTemplate, "docs://team/{team}/policy/{name}")
    assert.deepEqual(attach.vars, { team: "platform", name: "change-management" })
    await page.close()
  })

  test("template: a refused '..' value is reported and nothing is attached", async () => {
    const page = await openFixture()
    await page.locator("#composer").focus()
    await page.keyboard.type("@policy")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.locator("mcp-mention .mcp-mention-args input").waitFor({ state: "visible" })
    await page.keyboard.type("..")
    await page.keyboard.press("Enter")
    const alert = page.locator("mcp-mention .mcp-mention-args [role=alert]")
    assert.match(await alert.textContent(), /Refused team = “\.\.”/)
    assert.equal(await page.locator("mcp-mention .mcp-mention-args label").textContent(), "team (1 of 2)", "stays on the refused step")
    const err = await page.evaluate(() => window.events.find((e) => e.type === "mcp-error"))
    assert.equal(err.detail.stage, "expand")
    assert.equal(err.detail.value, "..")
    assert.deepEqual(await page.evaluate(() => host.calls.filter((c) => c[0] === "attach")), [])
    // Escape abandons the template and returns to the composer, text untouched
    await page.keyboard.press("Escape")
    assert.equal(await page.evaluate(() => document.activeElement.id), "composer")
    assert.equal(await page.locator("#composer").inputValue(), "@policy")
    await page.close()
  })

  test("token=\"label\": the textarea gets @title, the events still carry the URI", async () => {
    const page = await openFixture()
    await page.evaluate(() => { window.picker.token = "label" })
    assert.equal(await page.evaluate(() => window.picker.getAttribute("token")), "label")
    const ta = page.locator("#composer")
    await ta.focus()
    await page.keyboard.type("Read @welcome")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-attached"))
    assert.equal(await ta.inputValue(), "Read @Welcome to Platform ")
    const ev = await page.evaluate(() => window.events.filter((e) => e.type.startsWith("mcp-attach")).map((e) => e.detail.uri))
    assert.deepEqual(ev, ["docs://team/platform/onboarding/welcome", "docs://team/platform/onboarding/welcome"])
    assert.equal(await page.evaluate(() => { window.picker.token = "anything else"; return window.picker.token }), "uri")
    await page.close()
  })

  test("mcp-attach is cancelable: preventDefault leaves the text and attaches nothing", async () => {
    const page = await openFixture()
    await page.evaluate(() => document.addEventListener("mcp-attach", (e) => e.preventDefault(), { once: true }))
    await page.locator("#composer").focus()
    await page.keyboard.type("@welcome")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.waitForTimeout(50)
    assert.equal(await page.locator("#composer").inputValue(), "@welcome")
    assert.deepEqual(await page.evaluate(() => host.calls.filter((c) => c[0] === "attach")), [])
    assert.equal(await page.locator("#composer").getAttribute("aria-expanded"), "false", "the choice is made: the popup closes")
    await page.close()
  })

  test("entries the host will hold back from the model are marked before they are chosen", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      const h = new window.FakeHost("big", [
        { uri: "docs://x/changelog", name: "changelog", title: "API changelog", mimeType: "text/markdown", size: 1300024, _tokens: 325006, _withheld: "too_large" },
        { uri: "ui://clock/view", name: "clock", title: "Clock view", mimeType: "text/html;profile=mcp-app", size: 2048, _tokens: 512, _withheld: "mcp_app", _mcpApp: true },
        { uri: "docs://x/small", name: "small", title: "Small note", mimeType: "text/markdown", size: 400, _tokens: 100 },
      ])
      window.picker.hosts = [h]
    })
    await page.locator("#composer").focus()
    await page.keyboard.type("@")
    const rows = await page.evaluate(() => [...document.querySelectorAll(".mcp-mention-option")].map((o) => ({
      title: o.querySelector(".mcp-mention-title").textContent,
      meta: o.querySelector(".mcp-mention-meta").textContent,
      badge: o.querySelector(".is-withheld, .is-app")?.title ?? "",
    })))
    const by = Object.fromEntries(rows.map((r) => [r.title, r]))
    assert.match(by["API changelog"].meta, /1\.3 MB · ≈325k tokens.*too large for the model/)
    assert.match(by["API changelog"].badge, /325k tokens, over this host's maxModelTokens/)
    assert.match(by["Clock view"].meta, /MCP App \(UI\)/)
    assert.doesNotMatch(by["Clock view"].meta, /too large/)
    assert.doesNotMatch(by["Small note"].meta, /too large|MCP App/)
    assert.match(by["Small note"].meta, /≈100 tokens/)
    assert.deepEqual(page.errors, [])
    await page.close()
  })

  test("contenteditable composer: the token is an uneditable span carrying the URI", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      document.querySelector("#composer").remove()
      const d = document.createElement("div")
      d.id = "composer"
      d.contentEditable = "true"
      d.setAttribute("aria-label", "Message")
      document.querySelector("main").append(d)
      picker.setAttribute("for", "x")
      picker.setAttribute("for", "composer")
    })
    const ed = page.locator("#composer")
    assert.equal(await ed.getAttribute("role"), "combobox")
    await ed.focus()
    await page.keyboard.type("see @dev")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    const tok = ed.locator(".mcp-mention-token")
    assert.equal(await tok.getAttribute("data-uri"), "docs://team/platform/onboarding/dev-environment")
    assert.equal(await tok.textContent(), "@Onboarding: dev environment")
    assert.equal(await tok.getAttribute("contenteditable"), "false")
    await page.keyboard.type("ok")
    assert.match(await ed.textContent(), /^see @Onboarding: dev environment\u00a0ok$/)
    await page.close()
  })

  test("/ prompts against fake hosts: grouped by server, server strings as text, earlier arguments as completion context, a contenteditable loses the /query and gains nothing", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      window.promptCalls = []
      window.prompted = []
      const withPrompts = (h, prompts) => {
        h.prompts = async () => prompts
        h.completePrompt = async (name, arg, value, ctx) => {
          window.promptCalls.push(["complete", h.serverInfo.name, name, arg, value, { ...ctx }])
          return { values: arg === "second" ? [`${ctx.first}-2`, `${ctx.first}-3`] : ["alpha", "beta"].filter((v) => v.startsWith(value)) }
        }
        h.getPrompt = async (name, args) => {
          window.promptCalls.push(["get", h.serverInfo.name, name, { ...args }])
          return { name, description: "d", messages: [{ role: "user", content: { type: "text", text: JSON.stringify(args) } }], dropped: [], superseded: [] }
        }
        return h
      }
      const a = withPrompts(window.host, [{ name: "pair", title: "Pair <b onmouseover=__xss()>up</b>", arguments: [{ name: "first", required: true }, { name: "second" }] }])
      const b = withPrompts(new FakeHost("other", []), [{ name: "pair-other", description: "the other server's" }])
      picker.hosts = [a, b]
      picker.addEventListener("mcp-prompt", (e) => window.prompted.push({ name: e.detail.name, args: e.detail.args, host: e.detail.host.serverInfo.name, messages: e.detail.messages }))
      document.querySelector("#composer").remove()
      const d = document.createElement("div")
      d.id = "composer"
      d.contentEditable = "true"
      d.setAttribute("aria-label", "Message")
      document.querySelector("main").append(d)
      picker.setAttribute("for", "x")
      picker.setAttribute("for", "composer")
    })
    const ed = page.locator("#composer")
    await ed.focus()
    await page.keyboard.type("go /pai")
    await page.locator("mcp-mention [role=option][id*=-opt-]").nth(1).waitFor()
    const groups = await page.locator("mcp-mention [role=listbox] [role=group]").evaluateAll((gs) => gs.map((g) => g.getAttribute("aria-label") || g.textContent))
    assert.equal(groups.length, 2, JSON.stringify(groups))
    const title = page.locator("mcp-mention [role=option][id*=-opt-] .mcp-mention-title").first()
    assert.equal(await title.textContent(), "Pair <b onmouseover=__xss()>up</b>")
    assert.equal(await title.locator("b").count(), 0, "a server's title is text, never markup")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    const arg = page.locator("mcp-mention .mcp-mention-args input")
    await arg.waitFor({ state: "visible" })
    await page.keyboard.type("al")
    await page.locator("mcp-mention .mcp-mention-args [role=option]", { hasText: "alpha" }).waitFor()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.locator("mcp-mention .mcp-mention-args [role=option]", { hasText: "alpha-2" }).waitFor()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => window.prompted.length === 1)
    const r = await page.evaluate(() => ({ prompted: window.prompted, calls: window.promptCalls, xss: window.__xssCalls.length }))
    assert.deepEqual(r.prompted, [{ name: "pair", args: { first: "alpha", second: "alpha-3" }, host: "docs", messages: [{ role: "user", content: { type: "text", text: '{"first":"alpha","second":"alpha-3"}' } }] }])
    assert.deepEqual(r.calls.filter((c) => c[0] === "get"), [["get", "docs", "pair", { first: "alpha", second: "alpha-3" }]])
    assert.deepEqual(r.calls.filter((c) => c[0] === "complete" && c[3] === "second").at(-1), ["complete", "docs", "pair", "second", "", { first: "alpha" }])
    assert.equal(r.xss, 0)
    assert.equal(await ed.textContent(), "go ", "the /query is gone and nothing took its place")
    assert.equal(await ed.locator(".mcp-mention-token").count(), 0)
    assert.deepEqual(page.errors, [])
    await page.close()
  })

  test("latency hook: mcp-rendered carries detail.ms per keystroke and a performance measure is recorded", async () => {
    const page = await openFixture()
    await page.locator("#composer").focus()
    await page.keyboard.type("@onbo")
    const r = await page.evaluate(() => ({
      events: window.events.filter((e) => e.type === "mcp-rendered").map((e) => ({ q: e.detail.query, ms: e.detail.ms, nodes: e.detail.nodes, matches: e.detail.matches })),
      measures: performance.getEntriesByName("mcp-mention-render", "measure").length,
    }))
    assert.deepEqual(r.events.map((e) => e.q), ["", "o", "on", "onb", "onbo"])
    for (const e of r.events) assert.ok(typeof e.ms === "number" && e.ms >= 0, JSON.stringify(e))
    assert.deepEqual(r.events.at(-1).matches, 2)
    assert.equal(r.measures, 5)
    await page.close()
  })

  test("placement: the popup opens below the composer when there is room, above it near the viewport's bottom, and follows it while typing", async () => {
    const page = await openFixture()
    await page.setViewportSize({ width: 1000, height: 1000 })
    // read in the next animation frame, where the picker checks its place before the frame is drawn
    const place = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => {
      const c = document.querySelector("#composer").getBoundingClientRect()
      const p = document.querySelector(".mcp-mention-popup").getBoundingClientRect()
      resolve({ cTop: c.top, cBottom: c.bottom, cLeft: c.left, cWidth: c.width, pTop: p.top, pBottom: p.bottom, pLeft: p.left, pWidth: p.width, vh: document.documentElement.clientHeight })
    })))
    // composer top at 40 + h1 + label + 320 margin: more room below than above
    await page.locator("#composer").focus()
    await page.keyboard.type("@o")
    let g = await place()
    assert.ok(g.vh - g.cBottom > g.cTop, JSON.stringify(g))
    assert.equal(Math.round(g.pTop), Math.round(g.cBottom + 6), JSON.stringify(g))
    assert.equal(Math.round(g.pLeft), Math.round(g.cLeft))
    assert.equal(Math.round(g.pWidth), Math.round(g.cWidth)) // the composer's width, between 320 and 640
    assert.ok(g.pBottom <= g.vh, JSON.stringify(g))
    // the composer moves down (the page grew above it) while the query is typed: the popup, opened below,
    // goes above it, with its bottom edge 6 px over the composer's top
    await page.evaluate(() => (document.querySelector("#composer").style.marginTop = "800px"))
    await page.keyboard.type("n")
    g = await place()
    assert.ok(g.cTop > g.vh - g.cBottom, JSON.stringify(g))
    assert.equal(Math.round(g.pBottom), Math.round(g.cTop - 6), JSON.stringify(g))
    assert.ok(g.pTop >= 0, JSON.stringify(g))
    assert.deepEqual(page.errors, [])
    await page.close()
  })

  test("a query typed before anything is listed: a loading row, then results as the listing streams in, without another key", async () => {
    const page = await openFixture()
    await page.evaluate(() => {
      window.late = new FakeHost("late", [])
      picker.hosts = []
    })
    await page.locator("#composer").focus()
    await page.keyboard.type("@onb")
    assert.equal(await page.locator("mcp-mention").getAttribute("open"), null, "no hosts: nothing to show")
    await page.evaluate(() => (picker.hosts = [late]))
    await page.waitForFunction(() => picker.open)
    assert.equal(await page.locator("mcp-mention .mcp-mention-empty").textContent(), "Loading resources…")
    await page.evaluate(() => {
      late.resources.push({ uri: "docs://a/onboarding/one", name: "one", title: "One" })
      late.dispatchEvent(new CustomEvent("listprogress", { detail: { resources: 1, templates: 0, done: false, truncated: false, errors: [] } }))
    })
    await page.waitForFunction(() => document.querySelectorAll("mcp-mention [role=option][id*=-opt-]").length === 1)
    assert.match(await page.locator("mcp-mention .mcp-mention-footer").textContent(), /Listing… 1 resources so far/)
    await page.evaluate(() => {
      late.resources.push({ uri: "docs://a/onboarding/two", name: "two", title: "Two" })
      late.dispatchEvent(new CustomEvent("listprogress", { detail: { resources: 2, templates: 0, done: true, truncated: false, errors: [] } }))
    })
    await page.waitForFunction(() => document.querySelectorAll("mcp-mention [role=option][id*=-opt-]").length === 2)
    assert.doesNotMatch(await page.locator("mcp-mention .mcp-mention-footer").textContent(), /Listing/)
    // a query with no match once everything is listed says so
    await page.keyboard.type("x")
    assert.equal(await page.locator("mcp-mention .mcp-mention-empty").textContent(), "No matching resources")
    // an empty host list closes the popup; setting hosts again reopens it on the same token
    await page.keyboard.press("Backspace")
    await page.evaluate(() => (picker.hosts = []))
    await page.waitForFunction(() => !picker.open)
    await page.evaluate(() => (picker.hosts = [late]))
    await page.waitForFunction(() => document.querySelectorAll("mcp-mention [role=option][id*=-opt-]").length === 2)
    assert.deepEqual(page.errors, [])
    await page.close()
  })

  test("removed and re-added 100 times: hosts hold no listener of a removed picker, and it still works", async () => {
    const page = await openFixture()
    const res = await page.evaluate(async () => {
      // count the live listeners each host holds, by instrumenting the hosts
      const other = new FakeHost("other", [{ uri: "wiki://onboarding", name: "onboarding", title: "Company onboarding" }])
      const live = new Map()
      for (const h of [host, other]) {
        const set = new Set()
        live.set(h, set)
        const add = h.addEventListener.bind(h)
        const remove = h.removeEventListener.bind(h)
        h.addEventListener = (t, fn, o) => (set.add(t + "\0" + (fn.__id ??= Math.random())), add(t, fn, o))
        h.removeEventListener = (t, fn, o) => (set.delete(t + "\0" + fn.__id), remove(t, fn, o))
      }
      const counts = () => [...live.values()].map((s) => s.size)
      picker.hosts = [host, other]
      const start = counts()
      const parent = picker.parentNode
      const next = picker.nextSibling
      const bad = []
      for (let i = 0; i < 100; i++) {
        picker.remove()
        if (counts().some((n) => n !== 0)) bad.push(["removed", i, counts()])
        // hosts set while detached are kept, and listened to only once connected
        if (i % 10 === 0) picker.hosts = [host, other]
        if (counts().some((n) => n !== 0)) bad.push(["set while removed", i, counts()])
        parent.insertBefore(picker, next)
        if (counts().some((n, k) => n !== start[k])) bad.push(["re-added", i, counts()])
      }
      // a removed picker does not react to its hosts
      picker.remove()
      const before = host.calls.length
      host.dispatchEvent(new CustomEvent("listprogress", { detail: { resources: 5, done: false } }))
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      const reacted = host.calls.length !== before
      parent.insertBefore(picker, next)
      return { start, bad, reacted, end: counts(), composerRole: document.querySelector("#composer").getAttribute("role") }
    })
    // listprogress, listchanged, disconnected, reconnected, promptslistchanged
    assert.deepEqual(res.start, [5, 5], "one listener per host event type")
    assert.deepEqual(res.bad, [])
    assert.equal(res.reacted, false)
    assert.deepEqual(res.end, [5, 5])
    assert.equal(res.composerRole, "combobox")
    // it still works: typing opens both groups, Enter attaches, a listing refreshes it
    await page.locator("#composer").focus()
    await page.keyboard.type("@onb")
    await page.waitForFunction(() => document.querySelectorAll("mcp-mention [role=group]").length === 2)
    const before = await page.evaluate(() => host.calls.filter((c) => c[0] === "mention").length)
    await page.evaluate(() => host.dispatchEvent(new CustomEvent("listprogress", { detail: { resources: 5, done: true } })))
    await page.waitForFunction((n) => host.calls.filter((c) => c[0] === "mention").length > n, before)
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-attached"))
    assert.deepEqual(page.errors, [])
    await page.close()
  })

  test("axe-core: no serious or critical violation on the open picker (list and template step)", async () => {
    const page = await openFixture()
    await page.locator("#composer").focus()
    await page.keyboard.type("@o")
    await page.keyboard.press("ArrowDown")
    let { bad, all } = await axeSerious(page)
    assert.deepEqual(bad, [], JSON.stringify(all, null, 1))
    await page.keyboard.press("Escape")
    await page.keyboard.type("l")
    await page.keyboard.press("Escape")
    await page.keyboard.type(" @policy")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => window.events.some((e) => e.type === "mcp-suggestions"))
    ;({ bad, all } = await axeSerious(page))
    assert.deepEqual(bad, [], JSON.stringify(all, null, 1))
    await page.close()
  })
})
