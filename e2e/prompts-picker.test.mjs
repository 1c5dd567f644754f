// The "/" prompt list of <mcp-mention> (issue 19) on the demo page, against
// the real mcphost binary and its documents server (prompts
// summarize_document {uri} and compare_documents {first, second}, which embed
// the documents): "/" opens the list, a prompt is chosen and its argument
// completed with the keyboard only, the messages arrive in the page as an
// mcp-prompt event (checked field by field) and in the assembled request as
// their own parts, an embedded document already attached is not shown twice,
// errors stay in the picker, triggers="@" turns "/" off, "/" typed before the
// module has connected shows the list once it has, and axe-core finds no
// serious or critical violation with the prompt list or the argument step open.
import { after, before, describe, test } from "node:test"
import assert from "node:assert/strict"
import { readFileSync } from "node:fs"
import path from "node:path"
import { launchBrowser, root, startMcphost } from "./harness.mjs"

const axeSource = readFileSync(path.join(root, "e2e", "node_modules", "axe-core", "axe.min.js"), "utf8")
const WELCOME = "docs://team/platform/onboarding/welcome.md"

let srv
let browser

async function openDemo() {
  const page = await browser.context.newPage()
  page.problems = []
  page.on("pageerror", (e) => page.problems.push(String(e)))
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(m.text()) })
  await page.goto(srv.url)
  await page.waitForFunction(() => document.body.dataset.ready && document.body.dataset.listed === "true", null, { timeout: 30000 })
  await recordPrompts(page)
  return page
}

/** Records every mcp-prompt and mcp-error of the picker (their cloneable fields) in window.prompted / window.pickerErrors. */
async function recordPrompts(page) {
  await page.evaluate(() => {
    window.prompted = []
    window.pickerErrors = []
    const p = document.querySelector("mcp-mention")
    p.addEventListener("mcp-prompt", (e) => {
      const { host, prompt, ...rest } = e.detail
      window.prompted.push({ ...JSON.parse(JSON.stringify(rest, (k, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v))),
        promptName: prompt.name, isDemoHost: host === window.demo.host })
    })
    p.addEventListener("mcp-error", (e) => window.pickerErrors.push({ stage: e.detail.stage, message: e.detail.error?.message, kind: e.detail.error?.kind }))
  })
}

const options = (page) => page.locator("mcp-mention [role=listbox][aria-label=Prompts] [role=option][id*=-opt-]")
const argInput = (page) => page.locator("mcp-mention .mcp-mention-args input")

async function axeSerious(page) {
  const axeUrl = new URL("/__axe.min.js", page.url()).href
  await page.route(axeUrl, (route) => route.fulfill({ contentType: "text/javascript", body: axeSource }))
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ url: axeUrl })
  const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(" ")).slice(0, 5) })))
  return v.filter((x) => x.impact === "serious" || x.impact === "critical")
}

/** Chooses summarize_document with the keyboard and completes its uri from "welc" (ArrowDown, Enter on the suggestion). */
async function summarizeWelcome(page) {
  await page.locator("#composer").focus()
  await page.keyboard.type("/summ")
  await options(page).first().waitFor()
  await page.keyboard.press("ArrowDown")
  await page.keyboard.press("Enter")
  await argInput(page).waitFor({ state: "visible" })
  await page.keyboard.type("welc")
  await page.locator("mcp-mention .mcp-mention-args [role=option]", { hasText: WELCOME }).waitFor()
  await page.keyboard.press("ArrowDown")
  await page.keyboard.press("Enter")
  await page.waitForFunction(() => window.prompted.length === 1, null, { timeout: 15000 })
  return (await page.evaluate(() => window.prompted))[0]
}

describe("<mcp-mention> / prompts on the demo page", () => {
  before(async () => {
    srv = await startMcphost([])
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await srv?.stop()
  })

  test("/ opens the prompt list: combobox ARIA, both prompts by title, ranked like @", { timeout: 60000 }, async () => {
    const page = await openDemo()
    try {
      const ta = page.locator("#composer")
      await ta.focus()
      await page.keyboard.type("/")
      await options(page).first().waitFor()
      assert.equal(await ta.getAttribute("role"), "combobox")
      assert.equal(await ta.getAttribute("aria-expanded"), "true")
      const listId = await ta.getAttribute("aria-controls")
      assert.equal(await page.locator(`#${listId}`).getAttribute("role"), "listbox")
      assert.equal(await page.locator(`#${listId}`).getAttribute("aria-label"), "Prompts")
      // the empty query lists by title
      assert.deepEqual(await options(page).locator(".mcp-mention-title").allTextContents(), ["Compare two documents", "Summarize a document"])
      assert.deepEqual(await options(page).locator(".mcp-mention-prompt-name").allTextContents(), ["/compare_documents", "/summarize_document"])
      assert.deepEqual(await options(page).evaluateAll((os) => os.map((o) => [o.getAttribute("aria-posinset"), o.getAttribute("aria-setsize"), o.getAttribute("aria-selected")])),
        [["1", "2", "false"], ["2", "2", "false"]])
      // "sd": word-start initials of summarize_document beat nothing else; the highlight is in the name
      await page.keyboard.type("sd")
      await page.waitForFunction(() => document.querySelectorAll("mcp-mention [role=option][id*=-opt-]").length === 1)
      assert.deepEqual(await options(page).locator(".mcp-mention-prompt-name mark").allTextContents(), ["s", "d"])
      await page.keyboard.press("ArrowDown")
      assert.equal(await ta.getAttribute("aria-activedescendant"), await options(page).first().getAttribute("id"))
      await page.keyboard.press("Escape")
      assert.equal(await ta.getAttribute("aria-expanded"), "false")
      assert.equal(await ta.inputValue(), "/sd", "Escape leaves the text as typed")
      // the same query after @ is a resource query, not a prompt one
      await ta.fill("")
      await page.keyboard.type("@onb")
      await page.locator("mcp-mention [role=listbox][aria-label=Resources] [role=option][id*=-opt-]").first().waitFor()
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test("keyboard only: /summ, Enter, the uri completed from welc, Enter: mcp-prompt with the messages, nothing written in the composer, the document a chip, the messages parts of the request", { timeout: 60000 }, async () => {
    const page = await openDemo()
    try {
      await page.locator("#composer").fill("Please ")
      await page.locator("#composer").press("End")
      const ev = await summarizeWelcome(page)
      assert.equal(ev.name, "summarize_document")
      assert.equal(ev.promptName, "summarize_document")
      assert.equal(ev.isDemoHost, true)
      assert.deepEqual(ev.args, { uri: WELCOME })
      assert.equal(ev.description, "Summarize a document")
      assert.deepEqual(ev.dropped, [])
      assert.deepEqual(ev.superseded, [])
      assert.equal(ev.messages.length, 2)
      const [doc, ask] = ev.messages
      assert.equal(doc.role, "user")
      assert.equal(doc.content.type, "resource")
      assert.equal(doc.content.resource.uri, WELCOME)
      assert.equal(doc.content.resource.mimeType, "text/markdown")
      assert.match(doc.content.resource.text, /^# Welcome to the Platform team/m)
      assert.equal(doc.parts.length, 1)
      assert.equal(doc.parts[0].uri, WELCOME)
      assert.equal(doc.parts[0].kind, "text")
      assert.equal(doc.parts[0].forModel, true)
      assert.match(doc.parts[0].html, /<h1[^>]*>Welcome to the Platform team<\/h1>/)
      assert.deepEqual(ask, { role: "user", content: { type: "text", text: "Summarize the document above in five bullet points for a new team member. Name its owner and when it applies." } })
      // the "/summ" is gone, the rest of the message kept; the picker is closed
      assert.equal(await page.locator("#composer").inputValue(), "Please ")
      assert.equal(await page.locator("mcp-mention").getAttribute("open"), null)
      assert.equal(await page.evaluate(() => document.activeElement?.id), "composer")
      // the demo: a prompt chip and the document's chip
      await page.locator("#chips .chip-prompt[data-prompt=summarize_document]").waitFor()
      assert.equal(await page.locator(`#chips .chip[data-uri="${WELCOME}"]`).count(), 1)
      assert.match(await page.locator(`#chips .chip[data-uri="${WELCOME}"]`).textContent(), /from \/summarize_document/)
      await page.keyboard.type("thanks")
      await page.keyboard.press("Enter")
      const card = page.locator("#transcript .msg-request").last()
      await card.waitFor()
      const req = await page.evaluate(() => window.demo.state.lastRequest.content.map((c) => ({ type: c.type, typed: !!c.typed, prompt: c.prompt, role: c.role, uri: c.uri, text: c.text })))
      assert.deepEqual(req.map((c) => [c.type, c.typed, c.prompt ?? null, c.role ?? null, c.uri ?? null]), [
        ["text", true, null, null, null],
        ["text", false, "summarize_document", "user", WELCOME],
        ["text", false, "summarize_document", "user", null],
      ])
      assert.equal(req[0].text, "Please thanks")
      assert.match(req[1].text, /^<document uri="docs:\/\/team\/platform\/onboarding\/welcome\.md" title="Welcome to the Platform team" mimeType="text\/markdown">\n# Welcome/)
      assert.equal(req.filter((c) => c.uri === WELCOME).length, 1, "the document goes once")
      const labels = await card.locator(".req-part .req-label").allTextContents()
      assert.deepEqual(labels, ["Your message", "Prompt /summarize_document · user · Welcome to the Platform team", "Prompt /summarize_document · user"])
      const json = JSON.parse(await card.locator(".req-json pre").textContent())
      // the prompt's two messages keep their own turn, then the person's message
      assert.deepEqual(json.messages.map((m) => [m.role, m.content.length]), [["user", 1], ["user", 1], ["user", 1]])
      assert.match(json.messages[0].content[0].text, /^<document uri="docs:\/\/team\/platform\/onboarding\/welcome\.md"/)
      assert.equal(json.messages[2].content[0].text, "Please thanks")
      // the prompt went with that turn
      assert.equal(await page.locator("#chips .chip").count(), 0)
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test("a document already attached with @ is not repeated: the host drops its message, the demo keeps one chip", { timeout: 60000 }, async () => {
    const page = await openDemo()
    try {
      await page.locator("#composer").focus()
      await page.keyboard.type("@welc")
      await page.locator("mcp-mention [role=listbox][aria-label=Resources] [role=option][id*=-opt-]").first().waitFor()
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("Enter")
      await page.locator(`#chips .chip[data-uri="${WELCOME}"]`).waitFor()
      await page.keyboard.type(" ")
      const ev = await summarizeWelcome(page)
      assert.deepEqual(ev.messages.map((m) => m.content.type), ["text"], "only the instruction: the document is in the context already")
      assert.equal(ev.dropped.length, 1)
      assert.equal(ev.dropped[0].uri, WELCOME)
      assert.equal(ev.dropped[0].index, 0)
      await page.locator("#chips .chip-prompt").waitFor()
      assert.equal(await page.locator(`#chips .chip[data-uri="${WELCOME}"]`).count(), 1)
      assert.equal(await page.locator("#chips .chip-from-prompt").count(), 0)
      await page.locator("#send").click()
      await page.locator("#transcript .msg-request").last().waitFor()
      const uris = await page.evaluate(() => window.demo.state.lastRequest.content.filter((c) => c.uri).map((c) => [c.uri, c.prompt ?? null]))
      assert.deepEqual(uris, [[WELCOME, null]], "the attachment carries the document once; the prompt adds only its instruction")
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test("errors stay in the picker and fire no mcp-prompt: a required argument left empty, a document the server refuses", { timeout: 60000 }, async () => {
    const page = await openDemo()
    try {
      await page.locator("#composer").focus()
      await page.keyboard.type("/summ")
      await options(page).first().waitFor()
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("Enter")
      await argInput(page).waitFor({ state: "visible" })
      assert.match(await page.locator("mcp-mention .mcp-mention-args label").textContent(), /Document \(1 of 1, required\)/)
      assert.equal(await argInput(page).getAttribute("required"), "")
      await page.keyboard.press("Enter")
      assert.equal(await page.locator("mcp-mention .mcp-mention-args [role=alert]").textContent(), "Document is required")
      await page.keyboard.type("docs://team/platform/no-such.md")
      await page.keyboard.press("Enter")
      await page.waitForFunction(() => window.pickerErrors.some((e) => e.stage === "prompt"))
      const alert = await page.locator("mcp-mention .mcp-mention-args [role=alert]").textContent()
      assert.match(alert, /no-such\.md|not found|unknown/i, alert)
      assert.equal(await argInput(page).isVisible(), true, "still on the argument, to correct it")
      assert.deepEqual(await page.evaluate(() => window.prompted), [])
      assert.equal(await page.locator("#toasts .toast-error").count(), 0, "the page shows no second report")
      // Escape gives the composer back, with the text as typed
      await page.keyboard.press("Escape")
      assert.equal(await page.locator("#composer").inputValue(), "/summ")
      assert.equal(await page.evaluate(() => document.activeElement?.id), "composer")
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test('triggers="@" turns / off; "@" still lists resources; the property reads back normalized', { timeout: 60000 }, async () => {
    const page = await openDemo()
    try {
      assert.equal(await page.evaluate(() => document.querySelector("mcp-mention").triggers), "@ /")
      await page.evaluate(() => document.querySelector("mcp-mention").setAttribute("triggers", "@"))
      assert.equal(await page.evaluate(() => document.querySelector("mcp-mention").triggers), "@")
      await page.locator("#composer").focus()
      await page.keyboard.type("/summ")
      await page.waitForTimeout(300)
      assert.equal(await page.locator("mcp-mention").getAttribute("open"), null)
      assert.equal(await page.locator("#composer").getAttribute("aria-expanded"), "false")
      await page.keyboard.type(" @onb")
      await page.locator("mcp-mention [role=listbox][aria-label=Resources] [role=option][id*=-opt-]").first().waitFor()
      await page.keyboard.press("Escape")
      // and back on through the property
      await page.evaluate(() => { document.querySelector("mcp-mention").triggers = ["/", "@"] })
      assert.equal(await page.evaluate(() => document.querySelector("mcp-mention").triggers), "@ /")
      await page.keyboard.type(" /comp")
      await options(page).first().waitFor()
      assert.deepEqual(await options(page).locator(".mcp-mention-title").allTextContents(), ["Compare two documents"])
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test("/summ typed before the module has connected shows the prompt once it has, without another key", { timeout: 60000 }, async () => {
    const page = await browser.context.newPage()
    const errors = []
    page.on("pageerror", (e) => errors.push(String(e)))
    let release
    const held = new Promise((r) => (release = r))
    await page.route("**/mcphost.wasm", async (route) => {
      await held
      await route.continue()
    })
    try {
      await page.goto(srv.url, { waitUntil: "domcontentloaded" })
      await page.waitForFunction(() => customElements.get("mcp-mention") && document.querySelector("#composer"))
      await page.locator("#composer").focus()
      await page.keyboard.type("/summ")
      await page.waitForTimeout(300)
      assert.equal(await page.locator("mcp-mention").getAttribute("open"), null, "no hosts yet: nothing to show")
      release()
      await options(page).first().waitFor({ timeout: 20000 })
      assert.deepEqual(await options(page).locator(".mcp-mention-title").allTextContents(), ["Summarize a document"])
      assert.equal(await page.locator("#composer").inputValue(), "/summ")
      assert.deepEqual(errors, [])
    } finally {
      release()
      await page.close()
    }
  })

  test("axe-core: no serious or critical violation with the prompt list open, nor on the argument step", { timeout: 90000 }, async () => {
    const page = await openDemo()
    try {
      await page.locator("#composer").focus()
      await page.keyboard.type("/")
      await options(page).first().waitFor()
      await page.keyboard.press("ArrowDown")
      assert.deepEqual(await axeSerious(page), [])
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("Enter")
      await argInput(page).waitFor({ state: "visible" })
      await page.keyboard.type("onb")
      await page.locator("mcp-mention .mcp-mention-args [role=option]").first().waitFor()
      assert.deepEqual(await axeSerious(page), [])
    } finally {
      await page.close()
    }
  })
  test("promptslistchanged refreshes an open list; icons data: only; a prompt without arguments that fails says so above the list", { timeout: 60000 }, async () => {
    const page = await openDemo()
    try {
      await page.locator("#composer").focus()
      await page.keyboard.type("/")
      await options(page).first().waitFor()
      assert.equal(await options(page).count(), 2)
      // the host's answer after a change (the documents server's prompts never change: this one instance is patched)
      const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
      await page.evaluate((png) => {
        const h = window.demo.host
        const orig = h.prompts.bind(h)
        h.prompts = async () => [...(await orig()),
          { name: "added_later", title: "Added later", icons: [{ src: png, mimeType: "image/png" }] },
          { name: "remote_icon", title: "Remote icon", icons: [{ src: "https://example.invalid/i.png" }] }]
        h.getPrompt = async (name) => { throw Object.assign(new Error(`the server refused ${name}`), { kind: "server" }) }
        h.dispatchEvent(new CustomEvent("promptslistchanged", { detail: {} }))
      }, png)
      await page.waitForFunction(() => document.querySelectorAll("mcp-mention [role=option][id*=-opt-]").length === 4)
      assert.deepEqual(await options(page).locator(".mcp-mention-title").allTextContents(), ["Added later", "Compare two documents", "Remote icon", "Summarize a document"])
      assert.equal(await options(page).nth(0).locator(".mcp-mention-icon img").getAttribute("src"), png)
      assert.equal(await options(page).nth(2).locator(".mcp-mention-icon img").count(), 0, "no remote icon without remote-icons")
      assert.equal(await options(page).nth(2).locator(".mcp-mention-icon").textContent(), "/")
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("Enter")
      const alert = page.locator("mcp-mention .mcp-mention-popup > [role=alert]")
      await page.waitForFunction(() => document.querySelector("mcp-mention .mcp-mention-popup > [role=alert]")?.textContent)
      assert.equal(await alert.textContent(), "Added later: the server refused added_later")
      assert.equal(await page.locator("mcp-mention").getAttribute("open"), "", "the list stays open")
      assert.deepEqual(await page.evaluate(() => window.prompted), [])
      assert.deepEqual(await page.evaluate(() => window.pickerErrors.map((e) => e.stage)), ["prompt"])
      assert.equal(await page.locator("#composer").inputValue(), "/")
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test("server-everything through -stdio: a prompt without arguments fires at once; an optional argument may stay empty", { timeout: 90000 }, async () => {
    const everything = path.join(root, "e2e", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
    const other = await startMcphost(["-stdio", `node ${everything} stdio`])
    const page = await browser.context.newPage()
    page.problems = []
    page.on("pageerror", (e) => page.problems.push(String(e)))
    try {
      await page.goto(other.url)
      await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 30000 })
      await recordPrompts(page)
      await page.locator("#composer").focus()
      await page.keyboard.type("/simple")
      await options(page).first().waitFor()
      assert.equal(await options(page).first().locator(".mcp-mention-title").textContent(), "Simple Prompt")
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("Enter")
      await page.waitForFunction(() => window.prompted.length === 1, null, { timeout: 15000 })
      const simple = (await page.evaluate(() => window.prompted))[0]
      assert.equal(simple.name, "simple-prompt")
      assert.deepEqual(simple.args, {})
      assert.deepEqual(simple.messages, [{ role: "user", content: { type: "text", text: "This is a simple prompt without arguments." } }])
      assert.equal(await page.locator("#composer").inputValue(), "")
      // args-prompt: city required, state optional (left empty: not sent)
      await page.keyboard.type("/args")
      await options(page).first().waitFor()
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("Enter")
      await argInput(page).waitFor({ state: "visible" })
      await page.keyboard.type("Lisbon")
      await page.keyboard.press("Enter")
      await page.waitForFunction(() => /2 of 2, optional/.test(document.querySelector("mcp-mention .mcp-mention-args label")?.textContent))
      await page.keyboard.press("Enter")
      await page.waitForFunction(() => window.prompted.length === 2, null, { timeout: 15000 })
      const args = (await page.evaluate(() => window.prompted))[1]
      assert.deepEqual(args.args, { city: "Lisbon" })
      assert.equal(args.messages[0].content.text, "What's weather in Lisbon?")
      await page.locator("#chips .chip-prompt[data-prompt=args-prompt]").waitFor()
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
      await other.stop()
    }
  })
  test("a server without the prompts capability: / is only a character, nothing opens, nothing is asked; @ still works", { timeout: 60000 }, async () => {
    const app = await startMcphost(["-stdio", `node ${path.join(root, "e2e", "mcp-app-stdio.mjs")}`])
    const page = await browser.context.newPage()
    page.problems = []
    page.on("pageerror", (e) => page.problems.push(String(e)))
    const sent = []
    page.on("websocket", (ws) => ws.on("framesent", (f) => { try { sent.push(JSON.parse(f.payload).method) } catch { /* not JSON */ } }))
    try {
      await page.goto(app.url)
      await page.waitForFunction(() => document.body.dataset.ready && document.body.dataset.listed === "true", null, { timeout: 30000 })
      assert.equal(await page.evaluate(() => "prompts" in window.demo.host.capabilities), false)
      await page.locator("#composer").focus()
      const opened = page.evaluate(() => new Promise((r) => {
        document.querySelector("mcp-mention").addEventListener("mcp-open", () => r(true), { once: true })
        setTimeout(() => r(false), 500)
      }))
      await page.keyboard.type("/x")
      assert.equal(await opened, false, "the popup never opened, not even to say loading")
      await page.keyboard.type(" @")
      await page.locator("mcp-mention [role=listbox][aria-label=Resources] [role=option][id*=-opt-]").first().waitFor()
      assert.ok(sent.includes("resources/list"), `the frames were seen: ${JSON.stringify(sent)}`)
      assert.ok(!sent.some((m) => m?.startsWith("prompts/")), JSON.stringify(sent))
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
      await app.stop()
    }
  })
})
