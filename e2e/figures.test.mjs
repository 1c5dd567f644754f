// The documents server's figures page (issue 17 §2), in headless Debian
// Chromium against the real mcphost binary on a fixed dataset: sessions
// seeded through the real server over WebSocket into a fresh -figures file
// (never shared between runs), a client whose name is HTML, one that never
// reads (gated), one that reads (not gated), one forced by -resource-blind
// and sessions without clientInfo. Checks the rendered tables, the chart,
// the escaping, no console errors or failed requests, axe-core without
// serious or critical violations, and writes docs/figures.png.
import { after, before, describe, test } from "node:test"
import assert from "node:assert/strict"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import WebSocket from "ws"
import { launchBrowser, root, startMcphost } from "./harness.mjs"

const axeSource = readFileSync(path.join(root, "e2e", "node_modules", "axe-core", "axe.min.js"), "utf8")
const HTML_NAME = `Chat <Desk> & "Co"`

let browser, srv, dir

/** One 2026-07-28 session: list, then read `reads` documents. */
async function session(wsUrl, clientInfo, reads) {
  const ws = new WebSocket(wsUrl, "mcp")
  await new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("error", reject) })
  const pending = new Map()
  ws.on("message", (data) => {
    const msg = JSON.parse(data.toString())
    if (msg.id !== undefined && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id) }
  })
  let id = 0
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
  if (clientInfo) meta["io.modelcontextprotocol/clientInfo"] = clientInfo
  const call = (method, params = {}) => new Promise((resolve, reject) => {
    const n = ++id
    const timer = setTimeout(() => reject(new Error(`${method}: no answer in 10 s`)), 10000)
    pending.set(n, (m) => { clearTimeout(timer); m.error ? reject(new Error(`${method}: ${JSON.stringify(m.error)}`)) : resolve(m.result) })
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: n, method, params: { ...params, _meta: meta } }))
  })
  const list = await call("resources/list")
  for (const r of list.resources.slice(0, reads)) await call("resources/read", { uri: r.uri })
  const closed = new Promise((r) => ws.once("close", r))
  ws.close(1000)
  await closed
}

async function figuresJSON() {
  const res = await fetch(srv.url + "figures", { headers: { Accept: "application/json" } })
  assert.equal(res.status, 200)
  return res.json()
}

describe("figures page", () => {
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "mcphost-figures-"))
    srv = await startMcphost(["-figures", path.join(dir, "figures.db"), "-gate-min-sessions", "6", "-gate-every", "1s",
      "-resource-blind", "forced-demo"])
    // The fixed dataset, in three rounds, each followed by an evaluation of
    // the gate (so that the reach chart moves): attach-aware's reach goes
    // 0 → 0.5 (decided: not gated) → 0.7.
    const evaluated = async () => {
      const t = Date.now()
      const deadline = t + 30000
      while (Date.parse((await figuresJSON()).lastEvaluated) <= t) {
        if (Date.now() > deadline) throw new Error("no evaluation of the gate within 30 s")
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    const aware = { name: "attach-aware", version: "1.4" }
    for (let i = 0; i < 3; i++) await session(srv.wsUrl, aware, 0)
    for (let i = 0; i < 4; i++) await session(srv.wsUrl, { name: HTML_NAME, version: "2.1" }, 0)
    await evaluated()
    for (let i = 0; i < 3; i++) await session(srv.wsUrl, aware, 2)
    for (let i = 0; i < 4; i++) await session(srv.wsUrl, { name: HTML_NAME, version: "2.1" }, 0)
    await evaluated()
    for (let i = 0; i < 4; i++) await session(srv.wsUrl, aware, 1)
    for (let i = 0; i < 3; i++) await session(srv.wsUrl, { name: "forced-demo", version: "1" }, 1)
    for (let i = 0; i < 2; i++) await session(srv.wsUrl, null, 1)
    await evaluated()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await srv?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test("JSON: the figures and decisions of the fixed dataset", async () => {
    const f = await figuresJSON()
    assert.equal(f.persistent, true)
    assert.deepEqual(f.forced, ["forced-demo"])
    assert.equal(f.gate.minSessions, 6)
    const c = (n) => f.clients.find((x) => x.client.name === n)
    const html = c(HTML_NAME)
    assert.deepEqual([html.figures.sessions, html.figures.readingSessions, html.figures.listWithoutRead], [8, 0, 8])
    assert.equal(html.decision, "gated")
    assert.match(html.history[0].reason, /^read reach 0\.000 \(0 of 8 sessions\) < 0\.20$/)
    const aware = c("attach-aware")
    assert.deepEqual([aware.figures.sessions, aware.figures.readingSessions, aware.figures.listWithoutRead], [10, 7, 3])
    assert.equal(aware.reach, 0.7)
    assert.equal(aware.decision, "not gated")
    assert.equal(aware.history.length, 1)
    assert.equal(aware.history[0].reason, "read reach 0.500 (3 of 6 sessions) ≥ 0.20: not gated")
    assert.deepEqual([...new Set(aware.series.map((p) => p.reach))].slice(0, 3), [0, 0.5, 0.7])
    assert.equal(c("forced-demo").decision, "forced")
    const unknown = f.clients.find((x) => !x.client.known)
    assert.equal(unknown.figures.sessions, 2)
    assert.equal(unknown.decision, "never (no clientInfo)")
    assert.equal(f.assumption.holds, true)
  })

  test("page: tables per client, escaped names, a chart, no console errors, axe clean; docs/figures.png", async () => {
    const page = await browser.context.newPage()
    await page.setViewportSize({ width: 1100, height: 900 })
    const problems = []
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`))
    page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`) })
    page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`))
    page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`) })
    const res = await page.goto(srv.url + "figures")
    assert.equal(res.status(), 200)
    assert.match(res.headers()["content-security-policy"], /default-src 'none'/)

    const sections = page.locator("main section")
    assert.equal(await sections.count(), 4)
    // The HTML client name is text, not markup.
    const heading = page.locator("h3", { hasText: "Chat <Desk>" })
    assert.equal(await heading.count(), 1)
    assert.match(await heading.innerText(), /Chat <Desk> & "Co" 2\.1: fetch_document \(gated\)/)
    assert.equal(await page.locator("desk").count(), 0)
    const row = page.locator(`section[aria-label='${HTML_NAME.replace(/'/g, "\\'")} 2.1'] table >> nth=0 >> tbody tr`)
    assert.deepEqual((await row.locator("td").allInnerTexts()).slice(0, 3), ["8", "0.0% (0)", "100.0% (8)"])
    const aware = page.locator("section[aria-label='attach-aware 1.4']")
    assert.match(await aware.locator("h3").innerText(), /not gated/)
    assert.match(await aware.locator("table").nth(1).innerText(), /read reach 0\.500 \(3 of 6 sessions\) ≥ 0\.20: not gated/)
    assert.match(await page.locator("section[aria-label='forced-demo 1'] h3").innerText(), /forced by -resource-blind/)
    assert.match(await page.locator("section", { hasText: "unknown (no clientInfo)" }).locator("h3").innerText(), /never \(no clientInfo\)/)
    const chart = page.locator(`section[aria-label='attach-aware 1.4'] svg[role=img]`)
    assert.equal(await chart.count(), 1)
    assert.match(await chart.getAttribute("aria-label"), /^Read reach of attach-aware 1\.4 over time/)
    assert.ok((await chart.locator("polyline").getAttribute("points")).split(" ").length >= 3)
    assert.match(await page.locator("body").innerText(), /It holds in these figures/)

    // axe-core: the page runs no script of its own (its CSP allows none), so axe is
    // evaluated through the DevTools protocol.
    await page.evaluate(axeSource)
    const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
      .map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(" ")).slice(0, 5) })))
    const bad = violations.filter((x) => x.impact === "serious" || x.impact === "critical")
    assert.deepEqual(bad, [], JSON.stringify(violations))

    // docs/figures.png is rewritten when MCPHOST_SCREENSHOTS=1 or missing
    // (as demo.test.mjs does), else the shot goes to a temp dir: make test
    // leaves the tree clean.
    const docsShot = path.join(root, "docs", "figures.png")
    const shotDir = mkdtempSync(path.join(tmpdir(), "mcphost-figures-shot-"))
    const shot = process.env.MCPHOST_SCREENSHOTS === "1" || !existsSync(docsShot) ? docsShot : path.join(shotDir, "figures.png")
    await page.screenshot({ path: shot, fullPage: true })
    assert.ok(statSync(shot).size > 10000, "the screenshot has content")
    rmSync(shotDir, { recursive: true, force: true })
    assert.deepEqual(problems, [])
    await page.close()
  })
})
