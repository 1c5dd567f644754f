// Workspace restore in the demo (issue 17 §1), in headless Debian Chromium
// against the real mcphost binary serving a temporary copy of the sample
// documents: three documents attached survive a reload (restored
// unchanged); a file renamed in the folder between two visits comes back as
// a gone chip that says so and offers the renamed file first; choosing it
// replaces the chip in place. No console errors, no failed requests.
import { after, before, describe, test } from "node:test"
import assert from "node:assert/strict"
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { launchBrowser, root, startMcphost } from "./harness.mjs"

const sampleDocs = path.join(root, "cmd", "mcphost", "internal", "sampledocs")
const OLD = "docs://team/platform/policy/change-management.md"
const NEW = "docs://team/platform/policy/change-management-process.md"
const WELCOME = "docs://team/platform/onboarding/welcome.md"
const axeSource = readFileSync(path.join(root, "e2e", "node_modules", "axe-core", "axe.min.js"), "utf8")
const ACCESS = "docs://team/platform/policy/access-control.md"

let browser
let srv
let docsDir

/** A page that records page errors, console errors, failed requests and HTTP errors. */
async function newPage() {
  const page = await browser.context.newPage()
  await page.setViewportSize({ width: 1360, height: 860 })
  page.problems = []
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`))
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(`console: ${m.text()}`) })
  page.on("requestfailed", (r) => page.problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`))
  page.on("response", (r) => { if (r.status() >= 400) page.problems.push(`HTTP ${r.status()} ${r.url()}`) })
  return page
}

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready && document.body.dataset.listed === "true", null, { timeout: 30000 })

/** Types a query into the composer and picks, with the keyboard, the option whose text matches re. */
async function pick(page, query, re) {
  const ta = page.locator("#composer")
  await ta.focus()
  await page.keyboard.type(query)
  await page.locator("mcp-mention [role=option]").first().waitFor()
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("ArrowDown")
    const id = await ta.getAttribute("aria-activedescendant")
    if (id && re.test(await page.locator(`#${id}`).textContent())) {
      await page.keyboard.press("Enter")
      return
    }
  }
  throw new Error(`no option matching ${re} for ${query}`)
}

/** axe-core's serious and critical violations on the page. */
async function axeSerious(page) {
  // the page's CSP allows only same-origin scripts: serve axe from the page's origin
  const axeUrl = new URL("/__axe.min.js", page.url()).href
  await page.route(axeUrl, (route) => route.fulfill({ contentType: "text/javascript", body: axeSource }))
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ url: axeUrl })
  const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(" ")).slice(0, 5) })))
  return v.filter((x) => x.impact === "serious" || x.impact === "critical")
}

const chipURIs = (page) => page.locator("#chips .chip").evaluateAll((cs) => cs.map((c) => c.dataset.uri))
const chipStates = (page) => page.locator("#chips .chip").evaluateAll((cs) => cs.map((c) => [...c.classList].find((k) => k.startsWith("state-"))))

/** The snapshot the demo saved for this server, read in the page. */
const saved = (page) => page.evaluate(() => {
  const k = Object.keys(localStorage).find((x) => x.startsWith("mcphost-demo.snapshot:"))
  return k ? JSON.parse(localStorage.getItem(k)) : null
})

describe("demo: workspace restore across reloads", () => {
  before(async () => {
    docsDir = mkdtempSync(path.join(tmpdir(), "mcphost-restore-docs-"))
    cpSync(sampleDocs, docsDir, { recursive: true, filter: (src) => !src.endsWith(".go") })
    srv = await startMcphost(["-docs", docsDir])
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await srv?.stop()
    if (docsDir) rmSync(docsDir, { recursive: true, force: true })
  })

  test("three documents survive a reload; a renamed one is offered by its new name and replaced in place", async () => {
    const page = await newPage()
    await page.goto(srv.url)
    await ready(page)
    await pick(page, "@welc", /welcome\.md/)
    await page.locator(`#chips .chip[data-uri="${WELCOME}"]`).waitFor()
    await pick(page, "@change-man", /change-management\.md/)
    await page.locator(`#chips .chip[data-uri="${OLD}"]`).waitFor()
    await pick(page, "@access-con", /access-control\.md/)
    await page.locator(`#chips .chip[data-uri="${ACCESS}"]`).waitFor()
    await page.waitForFunction(() => document.body.dataset.saved === "3", null, { timeout: 10000 })
    const snap = await saved(page)
    assert.equal(snap.version, 1)
    assert.equal(snap.digestAlg, "sha-256")
    assert.deepEqual(snap.attachments.map((a) => a.uri), [WELCOME, OLD, ACCESS])
    assert.ok(snap.attachments.every((a) => a.parts.every((p) => /^[0-9a-f]{64}$/.test(p.digest) && typeof p.text === "string")), "digests and content saved")

    // First reload: the same three, unchanged and fresh.
    await page.reload()
    await ready(page)
    await page.waitForFunction(() => document.body.dataset.restored, null, { timeout: 20000 })
    assert.equal(await page.evaluate(() => document.body.dataset.restored), "unchanged unchanged unchanged")
    assert.deepEqual(await chipURIs(page), [WELCOME, OLD, ACCESS])
    assert.deepEqual(await chipStates(page), ["state-fresh", "state-fresh", "state-fresh"])

    // Between two visits the file is renamed in the folder. The open page
    // sees it go (the server's poll notices the rename); the snapshot is saved again.
    renameSync(path.join(docsDir, "platform", "policy", "change-management.md"), path.join(docsDir, "platform", "policy", "change-management-process.md"))
    await page.locator(`#chips .chip.state-gone[data-uri="${OLD}"]`).waitFor({ timeout: 15000 })
    await page.waitForFunction(() => {
      const k = Object.keys(localStorage).find((x) => x.startsWith("mcphost-demo.snapshot:"))
      return k && JSON.parse(localStorage.getItem(k)).attachments.some((a) => a.state === "gone")
    }, null, { timeout: 10000 })

    // Second reload: two unchanged, one gone with the renamed file first.
    await page.reload()
    await ready(page)
    await page.waitForFunction(() => document.body.dataset.restored, null, { timeout: 20000 })
    assert.equal(await page.evaluate(() => document.body.dataset.restored), "unchanged gone unchanged")
    const results = await page.evaluate(async (old) => {
      // the same answer from the API, for the suggestion's score
      const k = Object.keys(localStorage).find((x) => x.startsWith("mcphost-demo.snapshot:"))
      const snap = JSON.parse(localStorage.getItem(k))
      snap.attachments = snap.attachments.filter((a) => a.uri === old)
      const host = window.demo.host
      const event = new Promise((resolve) => host.addEventListener("restored", (e) => resolve(e.detail.results), { once: true }))
      const rs = await host.restore(snap)
      const ev = await event
      return rs.map((r, i) => ({
        outcome: r.outcome, kind: r.error?.kind, isError: r.error instanceof Error, suggestions: r.suggestions,
        event: ev[i].uri === r.uri && ev[i].outcome === r.outcome && ev[i].suggestions?.[0]?.uri === r.suggestions?.[0]?.uri,
      }))
    }, OLD)
    assert.equal(results[0].outcome, "gone")
    assert.equal(results[0].kind, "not_found")
    assert.ok(results[0].isError, "the result's error is an MCPError")
    assert.ok(results[0].event, "the restored event carries the same results")
    assert.equal(results[0].suggestions[0].uri, NEW)
    assert.ok(results[0].suggestions[0].score > 0 && results[0].suggestions[0].score <= 1)

    const gone = page.locator(`#chips .chip.state-gone[data-uri="${OLD}"]`)
    await gone.waitFor()
    assert.match(await gone.locator(".chip-moved").textContent(), /Moved or deleted/)
    const first = gone.locator(".chip-suggestion").first()
    assert.equal(await first.getAttribute("data-uri"), NEW)
    assert.deepEqual(await axeSerious(page), [], "axe: the gone chip with its suggestions")

    // Choosing it replaces the chip, in the same place.
    await first.click()
    await page.locator(`#chips .chip[data-uri="${NEW}"]`).waitFor()
    assert.deepEqual(await chipURIs(page), [WELCOME, NEW, ACCESS])
    assert.deepEqual(await chipStates(page), ["state-fresh", "state-fresh", "state-fresh"])
    assert.deepEqual(await page.evaluate(() => [...new Set(window.demo.host.attachments().map((a) => a.uri))]), [WELCOME, NEW, ACCESS])
    assert.equal(await page.locator("#chips .chip-moved").count(), 0)
    await page.waitForFunction((n) => {
      const k = Object.keys(localStorage).find((x) => x.startsWith("mcphost-demo.snapshot:"))
      return JSON.parse(localStorage.getItem(k)).attachments.map((a) => a.uri).join(" ") === n
    }, [WELCOME, NEW, ACCESS].join(" "), { timeout: 10000 })

    // The API's promises settle: aborted, malformed, wrong server.
    const settled = await page.evaluate(async () => {
      const host = window.demo.host
      const snap = await host.snapshot()
      const before = JSON.stringify(host.attachments().map((a) => a.uri))
      const ac = new AbortController()
      const p = host.restore(snap, { signal: ac.signal })
      ac.abort()
      const out = {}
      try { await p; out.aborted = "resolved" } catch (e) { out.aborted = `${e.name} ${e.kind}` }
      for (const [k, bad] of Object.entries({ notObject: "x", noAttachments: { version: 1, digestAlg: "sha-256" }, otherServer: { ...snap, server: "ws://127.0.0.1:1/mcp" }, newer: { ...snap, version: 2 } })) {
        try { await host.restore(bad); out[k] = "resolved" } catch (e) { out[k] = `${e.kind} ${e.data?.field}` }
      }
      out.unchanged = JSON.stringify(host.attachments().map((a) => a.uri)) === before
      return out
    })
    assert.deepEqual(settled, {
      aborted: "AbortError cancelled", notObject: "invalid snapshot", noAttachments: "invalid snapshot.attachments",
      otherServer: "invalid snapshot.server", newer: "invalid snapshot.version", unchanged: true,
    })

    assert.deepEqual(page.problems, [])
    await page.close()
  })

  test("the quota exceeded: the snapshot is saved without content, and still restores", async () => {
    const page = await newPage()
    // A storage that refuses anything as large as a document's text.
    await page.addInitScript(() => {
      const set = Storage.prototype.setItem
      Storage.prototype.setItem = function (k, v) {
        if (String(v).includes('"text":')) throw new DOMException("quota", "QuotaExceededError")
        return set.call(this, k, v)
      }
    })
    // A server of its own: another origin, so an empty localStorage.
    const srv2 = await startMcphost(["-docs", docsDir])
    try {
      await page.goto(srv2.url)
      await ready(page)
      await quotaCase(page)
    } finally {
      await page.close()
      await srv2.stop()
    }
  })
})

/** Saves without content when the quota is exceeded, and restores from that. */
async function quotaCase(page) {
  await pick(page, "@welc", /welcome\.md/)
  await page.waitForFunction(() => document.body.dataset.saved === "1" && document.body.dataset.savedContent === "false", null, { timeout: 10000 })
  const snap = await saved(page)
  assert.equal(snap.attachments.length, 1)
  assert.equal(snap.attachments[0].parts[0].text, undefined)
  await page.reload()
  await ready(page)
  await page.waitForFunction(() => document.body.dataset.restored, null, { timeout: 20000 })
  assert.equal(await page.evaluate(() => document.body.dataset.restored), "unchanged")
  assert.deepEqual(await chipURIs(page), [WELCOME])
  assert.deepEqual(page.problems, [])
}
