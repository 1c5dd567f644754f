// The demo page's forms and wording (issue 16 §5), in headless Debian
// Chromium against the real mcphost binary: the Tools form typed from each
// tool's inputSchema (server-everything's get-sum with numbers, an enum as a
// select and a boolean as a checkbox, JSON fields validated inline with
// nothing sent while one is wrong, checked on the WebSocket); chosen
// documents by title in the composer and in the message the model gets;
// template chips titled from the template; the blob template not marked
// "not sent to model"; a short status pill with details on hover while
// reconnecting; notices that cover nothing, the live update's new title;
// a load without console errors or failed requests (favicon.svg included);
// axe-core in each state of the page.
import { after, before, describe, test } from "node:test"
import assert from "node:assert/strict"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { launchBrowser, root, startMcphost } from "./harness.mjs"

const docsDir = path.join(root, "cmd", "mcphost", "internal", "sampledocs")
const everything = path.join(root, "e2e", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
const axeSource = readFileSync(path.join(root, "e2e", "node_modules", "axe-core", "axe.min.js"), "utf8")

let browser
const cleanups = []

async function server(args) {
  const s = await startMcphost(args)
  cleanups.push(s.stop)
  return s
}

const docsServer = () => server(["-docs", docsDir])
const everythingServer = () => server(["-stdio", `node ${everything} stdio`])

/**
 * A page that records what could go wrong on it: page errors, console
 * errors, failed requests and HTTP errors (page.problems), and, when
 * wire is set, relays /mcp and keeps every client message (page.sent)
 * passing the server's messages through wire.fromServer(msg) (which may
 * change them) and the client's through wire.fromClient(msg, reply)
 * (return false to answer it yourself with reply(obj)).
 */
async function newPage({ wire = null, viewport = { width: 1360, height: 860 } } = {}) {
  const page = await browser.context.newPage()
  await page.setViewportSize(viewport)
  page.problems = []
  page.responses = []
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`))
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(`console: ${m.text()}`) })
  page.on("requestfailed", (r) => page.problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`))
  page.on("response", (r) => {
    page.responses.push({ url: r.url(), status: r.status(), type: r.headers()["content-type"] || "" })
    if (r.status() >= 400) page.problems.push(`HTTP ${r.status()} ${r.url()}`)
  })
  page.sent = []
  if (wire) {
    await page.routeWebSocket(/\/mcp$/, (ws) => {
      const up = ws.connectToServer()
      ws.onMessage((m) => {
        const msg = typeof m === "string" ? JSON.parse(m) : null
        if (msg) page.sent.push(msg)
        if (msg && wire.fromClient && wire.fromClient(msg, (o) => ws.send(JSON.stringify(o))) === false) return
        up.send(m)
      })
      up.onMessage((m) => {
        if (typeof m === "string" && wire.fromServer) {
          const msg = JSON.parse(m)
          wire.fromServer(msg)
          m = JSON.stringify(msg)
        }
        ws.send(m)
      })
    })
  }
  return page
}

/** Opens the demo and waits until it is connected and has listed. */
async function openDemo(srv, options) {
  const page = await newPage(options)
  await page.goto(srv.url)
  await page.waitForFunction(() => document.body.dataset.ready && document.body.dataset.listed === "true", null, { timeout: 30000 })
  return page
}

/** Types a query into the composer and picks, with the keyboard only, the option whose text matches re. */
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

/** Picks a template by query and re, and enters its values, one per variable. */
async function pickTemplate(page, query, re, values) {
  await pick(page, query, re)
  const arg = page.locator("mcp-mention .mcp-mention-args input")
  await arg.waitFor({ state: "visible" })
  for (const v of values) {
    await arg.fill(v)
    await page.keyboard.press("Enter")
  }
}

const chip = (page, uriPart) => page.locator(`#chips .chip[data-uri*="${uriPart}"]`)
const toolCalls = (page, name) => page.sent.filter((m) => m.method === "tools/call" && (!name || m.params?.name === name))

async function axeSerious(page) {
  // the page's CSP allows only same-origin scripts: serve axe from the page's origin
  const axeUrl = new URL("/__axe.min.js", page.url()).href
  await page.route(axeUrl, (route) => route.fulfill({ contentType: "text/javascript", body: axeSource }))
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ url: axeUrl })
  const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(" ")).slice(0, 5) })))
  return { all: v, bad: v.filter((x) => x.impact === "serious" || x.impact === "critical") }
}

describe("demo page: forms, titles, status", () => {
  before(async () => {
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    for (const c of cleanups.reverse()) await c()
  })

  test("load: no console errors, no failed request or HTTP error, the favicon is web/favicon.svg", async () => {
    const srv = await docsServer()
    const page = await openDemo(srv)
    await page.waitForTimeout(500)
    assert.equal(await page.locator('link[rel="icon"]').getAttribute("href"), "favicon.svg")
    const icon = page.responses.find((r) => new URL(r.url).pathname === "/favicon.svg")
    assert.ok(icon, `favicon requested: ${page.responses.map((r) => r.url).join(" ")}`)
    assert.equal(icon.status, 200)
    assert.match(icon.type, /^image\/svg\+xml/)
    assert.equal(page.responses.filter((r) => new URL(r.url).pathname === "/favicon.ico").length, 0)
    assert.deepEqual(page.problems, [])
    await page.close()
  })

  test("Tools form (server-everything): get-sum with numbers returns 5; an enum is a select, a boolean a checkbox; a required number left empty sends nothing", { timeout: 90000 }, async () => {
    const srv = await everythingServer()
    const page = await openDemo(srv, { wire: {} })
    await page.locator("#tab-tools").click()
    const sum = page.locator('form[data-tool="get-sum"]')
    await sum.waitFor()
    assert.equal(await sum.locator('input[name="a"]').getAttribute("type"), "number")
    assert.equal(await sum.locator('input[name="b"]').getAttribute("type"), "number")
    assert.match(await sum.locator('[data-field="a"] label').textContent(), /a\*number/)

    // b left empty: an inline error, focus on b, nothing on the wire
    await sum.locator('input[name="a"]').fill("2")
    await sum.locator("button[type=submit]").click()
    const errB = sum.locator('[data-field="b"] .field-error')
    await errB.waitFor({ state: "visible" })
    assert.match(await errB.textContent(), /Required/)
    assert.equal(await sum.locator('input[name="b"]').getAttribute("aria-invalid"), "true")
    assert.ok(await sum.locator('input[name="b"]').evaluate((e) => e === document.activeElement))
    assert.match(await sum.locator(".form-error").textContent(), /Not sent: 1 field needs fixing/)
    await page.waitForTimeout(200)
    assert.deepEqual(toolCalls(page, "get-sum"), [])

    await sum.locator('input[name="b"]').fill("3")
    assert.equal(await errB.isHidden(), true, "typing clears the error")
    await sum.locator("button[type=submit]").click()
    await page.waitForFunction(() => /get-sum/.test(document.querySelector("#tool-result h3")?.textContent || ""))
    const result = await page.locator("#tool-result").textContent()
    assert.match(result, /The sum of 2 and 3 is 5\b/)
    assert.doesNotMatch(result, /failed|expected number/i)
    assert.deepEqual(toolCalls(page, "get-sum").map((m) => m.params.arguments), [{ a: 2, b: 3 }])

    // get-annotated-message: messageType is an enum (required), includeImage a boolean
    const ann = page.locator('form[data-tool="get-annotated-message"]')
    const select = ann.locator('select[name="messageType"]')
    assert.deepEqual(await select.locator("option").allTextContents(), ["Choose…", "error", "success", "debug"])
    const box = ann.locator('input[name="includeImage"]')
    assert.equal(await box.getAttribute("type"), "checkbox")
    assert.equal(await box.isChecked(), false, "default false")
    await ann.locator("button[type=submit]").click()
    await ann.locator('[data-field="messageType"] .field-error').waitFor({ state: "visible" })
    assert.deepEqual(toolCalls(page, "get-annotated-message"), [])
    await select.selectOption({ label: "success" })
    await box.check()
    await ann.locator("button[type=submit]").click()
    await page.waitForFunction(() => /get-annotated-message/.test(document.querySelector("#tool-result h3")?.textContent || ""))
    assert.deepEqual(toolCalls(page, "get-annotated-message").map((m) => m.params.arguments), [{ messageType: "success", includeImage: true }])
    assert.ok(await page.locator("#tool-result .block-image").count() >= 1, "includeImage: true brought an image")

    // an optional enum with a default: "(server default: …)" first, and left out of the call when kept
    const ref = page.locator('form[data-tool="get-resource-reference"]')
    assert.equal(await ref.locator('select[name="resourceType"] option').first().textContent(), "(server default: Text)")
    assert.equal(await ref.locator('input[name="resourceId"]').getAttribute("placeholder"), "default: 1")
    assert.deepEqual(page.problems, [])
    await page.close()
  })

  test("JSON fields: invalid JSON in an object field is an inline error and sends nothing; valid values go typed", async () => {
    const srv = await docsServer()
    const tool = {
      name: "configure",
      description: "A scripted tool with every kind of field.",
      inputSchema: {
        type: "object",
        properties: {
          options: { type: "object", description: "settings" },
          tags: { type: "array", items: { type: "string" } },
          count: { type: "integer", minimum: 1 },
          level: { enum: [1, 2, 3] },
          ratio: { type: ["number", "null"] },
          flag: { type: "boolean" },
          note: { type: "string" },
        },
        required: ["options", "count"],
      },
    }
    const page = await openDemo(srv, {
      wire: {
        fromServer: (msg) => { if (Array.isArray(msg.result?.tools)) msg.result.tools.push(tool) },
        fromClient: (msg, reply) => {
          if (msg.method !== "tools/call" || msg.params?.name !== "configure") return true
          reply({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: `configured with ${JSON.stringify(msg.params.arguments)}` }] } })
          return false
        },
      },
    })
    await page.locator("#tab-tools").click()
    const form = page.locator('form[data-tool="configure"]')
    await form.waitFor()
    const kinds = await form.locator(".field").evaluateAll((fs) => fs.map((f) => [f.dataset.field, f.dataset.kind, f.querySelector("input,select,textarea").tagName.toLowerCase()]))
    assert.deepEqual(kinds, [
      ["options", "json", "textarea"], ["tags", "json", "textarea"], ["count", "integer", "input"], ["level", "enum", "select"],
      ["ratio", "number", "input"], ["flag", "boolean", "input"], ["note", "string", "input"],
    ])
    const field = (name) => form.locator(`[data-field="${name}"]`)
    const submit = () => form.locator("button[type=submit]").click()

    await field("options").locator("textarea").fill('{"depth": 2,')
    await field("tags").locator("textarea").fill('{"a": 1}')
    await field("count").locator("input").fill("1.5")
    await submit()
    await field("options").locator(".field-error").waitFor({ state: "visible" })
    assert.match(await field("options").locator(".field-error").textContent(), /^Not valid JSON: /)
    assert.equal(await field("options").locator("textarea").getAttribute("aria-invalid"), "true")
    assert.match(await field("options").locator("textarea").getAttribute("aria-describedby"), /-error\b/)
    assert.match(await field("tags").locator(".field-error").textContent(), /Expected a JSON array \(\[…\]\), not a object|Expected a JSON array/)
    assert.match(await field("count").locator(".field-error").textContent(), /whole number/)
    assert.match(await form.locator(".form-error").textContent(), /Not sent: 3 fields need fixing/)
    assert.ok(await field("options").locator("textarea").evaluate((e) => e === document.activeElement), "focus on the first wrong field")
    await page.waitForTimeout(200)
    assert.deepEqual(toolCalls(page, "configure"), [], "nothing sent")

    await field("count").locator("input").fill("0")
    await submit()
    assert.match(await field("count").locator(".field-error").textContent(), /At least 1/)
    assert.deepEqual(toolCalls(page, "configure"), [])

    await field("options").locator("textarea").fill('{"depth": 2, "mode": "fast"}')
    await field("tags").locator("textarea").fill('["a", "b"]')
    await field("count").locator("input").fill("4")
    await field("level").locator("select").selectOption({ label: "2" })
    await field("ratio").locator("input").fill("0.25")
    await submit()
    await page.waitForFunction(() => /configure/.test(document.querySelector("#tool-result h3")?.textContent || ""))
    assert.equal(await form.locator(".field-error:visible").count(), 0)
    assert.deepEqual(toolCalls(page, "configure").map((m) => m.params.arguments),
      [{ options: { depth: 2, mode: "fast" }, tags: ["a", "b"], count: 4, level: 2, ratio: 0.25, flag: false }],
      "typed values; the empty optional note is left out")
    assert.deepEqual(page.problems, [])
    await page.close()
  })

  test("documents by title: the composer shows titles, the message to the model has no raw URI, the request view shows each URI in its own field", async () => {
    const srv = await docsServer()
    const page = await openDemo(srv)
    await pick(page, "@welc", /welcome\.md/)
    await chip(page, "welcome.md").waitFor()
    assert.equal(await page.locator("#composer").inputValue(), "@Welcome to the Platform team ")
    await page.keyboard.type("and ")
    await pick(page, "@first-week", /first-week/)
    await chip(page, "first-week").waitFor()
    assert.equal(await page.locator("#composer").inputValue(), "@Welcome to the Platform team and @Your first week on Payments ")
    // a URI typed or pasted by hand becomes the title too
    await page.locator("#composer").fill(`${await page.locator("#composer").inputValue()}compared (see docs://team/platform/onboarding/welcome.md)`)
    await page.locator("#send").click()
    const card = page.locator("#transcript .msg-request").last()
    await card.waitFor()
    const req = await page.evaluate(() => demo.state.lastRequest)
    assert.equal(req.content[0].uri, undefined)
    assert.equal(req.content[0].text, "@Welcome to the Platform team and @Your first week on Payments compared (see Welcome to the Platform team)")
    assert.doesNotMatch(req.content[0].text, /docs:\/\//)
    assert.doesNotMatch(await page.locator("#transcript .msg-user").last().textContent(), /docs:\/\//)
    const docs = req.content.filter((c) => c.uri)
    assert.deepEqual(docs.map((c) => [c.uri, c.title]), [
      ["docs://team/platform/onboarding/welcome.md", "Welcome to the Platform team"],
      ["docs://team/payments/onboarding/first-week.md", "Your first week on Payments"],
    ])
    assert.match(docs[0].text, /^<document uri="docs:\/\/team\/platform\/onboarding\/welcome\.md" title="Welcome to the Platform team" mimeType="text\/markdown">\n/)
    const shown = await card.locator(".req-part").evaluateAll((ps) => ps.map((p) => [p.querySelector(".req-label").textContent, p.querySelector(".req-uri")?.textContent ?? null]))
    assert.deepEqual(shown, [
      ["Your message", null],
      ["Welcome to the Platform team", "docs://team/platform/onboarding/welcome.md"],
      ["Your first week on Payments", "docs://team/payments/onboarding/first-week.md"],
    ])
    assert.deepEqual(page.problems, [])
    await page.close()
  })

  test("templates (server-everything): chips titled from the template and its value; the blob template is not marked 'not sent to model', and its blob is sent", { timeout: 90000 }, async () => {
    const srv = await everythingServer()
    const page = await openDemo(srv)
    await page.locator("#composer").focus()
    await page.keyboard.type("@dynamic")
    await page.locator("mcp-mention [role=option]").first().waitFor()
    const rows = await page.locator("mcp-mention [role=option]").evaluateAll((os) => os.map((o) => ({
      title: o.querySelector(".mcp-mention-title")?.textContent, unsupported: o.classList.contains("is-unsupported"), text: o.textContent,
    })))
    const blob = rows.find((r) => /Dynamic Blob Resource/.test(r.title))
    assert.ok(blob, JSON.stringify(rows))
    assert.equal(blob.unsupported, false, "the blob template is not marked")
    assert.doesNotMatch(blob.text, /not sent to model/)
    await page.keyboard.press("Escape")
    await page.locator("#composer").fill("")

    await pickTemplate(page, "@dynamic", /Dynamic Text Resource/, ["1"])
    await chip(page, "dynamic/text/1").waitFor()
    assert.equal(await chip(page, "dynamic/text/1").locator(".chip-title").textContent(), "Dynamic Text Resource: 1")
    await pickTemplate(page, "@dynamic", /Dynamic Blob Resource/, ["2"])
    await chip(page, "dynamic/blob/2").waitFor()
    assert.equal(await chip(page, "dynamic/blob/2").locator(".chip-title").textContent(), "Dynamic Blob Resource: 2")
    assert.equal(await page.locator("#composer").inputValue(), "@Dynamic Text Resource: 1 @Dynamic Blob Resource: 2 ")
    assert.match(await page.locator("#preview-meta").textContent(), /To modelyes/)
    assert.equal(await page.locator("#preview-title").textContent(), "Dynamic Blob Resource: 2")

    await page.locator("#composer").press("End")
    await page.keyboard.type("compare them")
    await page.locator("#send").click()
    await page.locator("#transcript .msg-request").waitFor()
    const req = await page.evaluate(() => demo.state.lastRequest)
    assert.equal(req.content[0].text, "@Dynamic Text Resource: 1 @Dynamic Blob Resource: 2 compare them")
    assert.deepEqual(req.content.filter((c) => c.uri).map((c) => [c.uri, c.title]), [
      ["demo://resource/dynamic/text/1", "Dynamic Text Resource: 1"],
      ["demo://resource/dynamic/blob/2", "Dynamic Blob Resource: 2"],
    ])
    assert.deepEqual(req.withheld, [])
    assert.deepEqual(page.problems, [])
    await page.close()
  })

  test("status pill: reconnecting says 'Reconnecting…' with the transport error on hover, and the header stays one row", async () => {
    const srv = await docsServer()
    const page = await newPage()
    let first = null
    let refuseUntil = 0
    await page.routeWebSocket(/\/mcp$/, (ws) => {
      if (Date.now() < refuseUntil) {
        ws.close({ code: 1013, reason: "try again later" })
        return
      }
      const up = ws.connectToServer()
      first ??= ws
      ws.onMessage((m) => up.send(m))
      up.onMessage((m) => ws.send(m))
    })
    await page.goto(srv.url)
    await page.waitForFunction(() => document.body.dataset.ready && document.body.dataset.listed === "true", null, { timeout: 20000 })
    const pill = page.locator("#status")
    assert.equal(await pill.locator(".pill-label").textContent(), "Connected")
    assert.match(await pill.getAttribute("data-details"), /^mcphost documents · MCP [\d-]+ · ws:\/\/127\.0\.0\.1:\d+\/mcp$/)
    // the header's first row (brand, pill, server, switch): the notices row under it comes and goes
    const height = async () => page.evaluate(() => {
      const boxes = [".brand", ".conn", "#status", "#blind"].map((s) => document.querySelector(s).getBoundingClientRect())
      return Math.max(...boxes.map((b) => b.bottom)) - Math.min(...boxes.map((b) => b.top))
    })
    const h0 = await height()

    refuseUntil = Date.now() + 4000
    await first.close({ code: 1011, reason: "read tcp 127.0.0.1:41234->127.0.0.1:8080: connection reset by peer" })
    await page.waitForFunction(() => document.body.dataset.state === "wait")
    assert.equal(await pill.locator(".pill-label").textContent(), "Reconnecting…")
    const details = await pill.getAttribute("data-details")
    assert.match(details, /^Connection lost \(.+\)\. Reconnecting by itself; the attached documents are kept\.$/)
    assert.match(await pill.textContent(), /^Reconnecting…: Connection lost/, "screen readers get the details")
    assert.equal(await height(), h0, "one row")
    await pill.hover()
    const tip = await pill.evaluate((e) => getComputedStyle(e, "::after").content)
    assert.ok(tip.includes("Connection lost"), tip)
    await page.waitForFunction(() => document.body.dataset.state === "ok", null, { timeout: 20000 })
    assert.equal(await pill.locator(".pill-label").textContent(), "Connected")
    assert.equal(await height(), h0)
    console.log(`# notices meanwhile: ${JSON.stringify(await page.locator("#toasts .toast-text").allTextContents())}`)
    await page.close()
  })

  test("notices: a live update's toast names the new title and sits in the header's flow, covering nothing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mcphost-demo-ui-docs-"))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    cpSync(docsDir, dir, { recursive: true })
    const srv = await server(["-docs", dir])
    const page = await openDemo(srv)
    await pick(page, "@first-week", /first-week/)
    await chip(page, "first-week").waitFor()
    const file = path.join(dir, "payments", "onboarding", "first-week.md")
    writeFileSync(file, readFileSync(file, "utf8").replace(/^# .*$/m, "# Your first week on Payments (revised)"))
    const t = page.locator("#toasts .toast", { hasText: "Updated live" })
    await t.waitFor({ timeout: 15000 })
    assert.equal(await t.locator(".toast-text").textContent(), "Updated live: Your first week on Payments (revised)")
    assert.equal(await chip(page, "first-week").locator(".chip-title").textContent(), "Your first week on Payments (revised)")
    const boxes = await page.evaluate(() => {
      const r = (s) => document.querySelector(s).getBoundingClientRect()
      return { toast: r("#toasts .toast").toJSON(), header: r("header.topbar").toJSON(), main: r("main").toJSON() }
    })
    assert.ok(boxes.toast.bottom <= boxes.header.bottom && boxes.toast.top >= boxes.header.top, JSON.stringify(boxes))
    assert.ok(boxes.main.top >= boxes.header.bottom, `the page is pushed down, not covered: ${JSON.stringify(boxes)}`)
    // dismissible
    await t.locator(".toast-x").click()
    assert.equal(await page.locator("#toasts .toast", { hasText: "Updated live" }).count(), 0)
    await page.close()
  })

  test("axe-core: no serious or critical violation when empty, with the picker open, with chips, after Send, on Figures, and on the typed Tools form", { timeout: 120000 }, async () => {
    const srv = await docsServer()
    const page = await openDemo(srv)
    const check = async (state) => {
      const r = await axeSerious(page)
      assert.deepEqual(r.bad, [], `${state}: ${JSON.stringify(r.all, null, 1)}`)
    }
    await check("empty")
    await page.locator("#composer").focus()
    await page.keyboard.type("@onb")
    await page.locator("mcp-mention [role=option]").first().waitFor()
    await page.keyboard.press("ArrowDown")
    await check("picker open")
    await page.keyboard.press("Enter")
    await page.locator("#chips .chip").first().waitFor()
    await pick(page, "@reconciliation", /ledger-reconciliation\.jpg/)
    await chip(page, "ledger-reconciliation").waitFor()
    await page.waitForFunction(() => document.querySelector("#preview-body img")?.complete)
    await check("chips")
    await page.keyboard.type("what changes in week one?")
    await page.keyboard.press("Enter")
    await page.locator("#transcript .msg-request").waitFor()
    await check("sent")
    await page.locator("#tab-figures").click()
    await page.locator('[data-figure="reads"]').waitFor()
    await check("figures")
    await page.close()

    const srv2 = await everythingServer()
    const tools = await openDemo(srv2)
    await tools.locator("#tab-tools").click()
    const sum = tools.locator('form[data-tool="get-sum"]')
    await sum.waitFor()
    await sum.locator("button[type=submit]").click()
    await sum.locator(".field-error").first().waitFor({ state: "visible" })
    const r = await axeSerious(tools)
    assert.deepEqual(r.bad, [], `tools with errors: ${JSON.stringify(r.all, null, 1)}`)
    await tools.close()
  })
})
