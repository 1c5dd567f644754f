// <mcp-mention> on the demo page against the real mcphost binary and its
// default documents server (the embedded sample documents): a query typed
// before the module has connected shows its results once the listing
// arrives, without another key (issue 16 §1), and the ranking a person sees
// for @onb and @wel (§2; the Go table is attach TestQuerySampleDocs).
import { after, before, describe, test } from "node:test"
import assert from "node:assert/strict"
import { launchBrowser, startMcphost } from "./harness.mjs"

const ONB = [
  "docs://team/payments/onboarding/first-week.md",
  "docs://team/platform/onboarding/dev-environment.md",
  "docs://team/platform/onboarding/welcome.md",
  "docs://team/support/onboarding/support-handbook.md",
]

let srv
let browser

/** The URIs of the picker's options (not its loading or empty row), in order. */
const optionURIs = (page) => page.locator("mcp-mention [role=listbox] [role=option][id*=-opt-] .mcp-mention-uri").allTextContents()

describe("mcp-mention on the demo page", () => {
  before(async () => {
    srv = await startMcphost([])
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await srv?.stop()
  })

  test("@onb typed before the module has connected shows the onboarding documents without another key", async () => {
    const page = await browser.context.newPage()
    const errors = []
    page.on("pageerror", (e) => errors.push(e))
    let release
    const held = new Promise((r) => (release = r))
    let asked = 0
    await page.route("**/mcphost.wasm", async (route) => {
      asked++
      await held
      await route.continue()
    })
    try {
      await page.goto(srv.url, { waitUntil: "domcontentloaded" })
      await page.waitForFunction(() => customElements.get("mcp-mention") && document.querySelector("#composer"))
      await page.locator("#composer").focus()
      await page.keyboard.type("Read @onb")
      // a record of what the picker showed from here on, without touching it
      await page.evaluate(() => {
        window.shown = []
        const p = document.querySelector("mcp-mention")
        new MutationObserver(() => {
          const none = p.listbox.querySelector(".mcp-mention-empty")
          const first = p.listbox.querySelector("[role=option][id*=-opt-] .mcp-mention-uri")
          const s = none ? `empty: ${none.textContent}` : first ? `first: ${first.textContent}` : ""
          if (s && window.shown.at(-1) !== s) window.shown.push(s)
        }).observe(p, { subtree: true, childList: true, characterData: true })
      })
      await page.waitForTimeout(300)
      assert.ok(asked >= 1, "the page asked for mcphost.wasm")
      assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined, "not connected while the module is held")
      assert.equal(await page.locator("mcp-mention").getAttribute("open"), null, "no hosts yet: nothing to show")
      release()
      await page.locator("mcp-mention [role=option][id*=-opt-]").first().waitFor({ timeout: 20000 })
      await page.waitForFunction(() => document.body.dataset.listed === "true", null, { timeout: 20000 })
      await page.waitForFunction((n) => document.querySelectorAll("mcp-mention [role=option][id*=-opt-]").length === n, ONB.length)
      assert.deepEqual(await optionURIs(page), ONB)
      const shown = await page.evaluate(() => window.shown)
      assert.equal(shown.at(-1), `first: ${ONB[0]}`, JSON.stringify(shown))
      assert.ok(shown.every((s) => s.startsWith("first: ") || /Loading|still listing/.test(s)), JSON.stringify(shown))
      assert.equal(await page.locator("#composer").inputValue(), "Read @onb", "no key was pressed after the first four")
      assert.deepEqual(errors, [])
    } finally {
      release()
      await page.close()
    }
  })

  test("ranking against the documents server: @onb only onboarding documents, @wel Welcome first", async () => {
    const page = await browser.context.newPage()
    try {
      await page.goto(srv.url)
      await page.waitForFunction(() => document.body.dataset.ready && document.body.dataset.listed === "true", null, { timeout: 20000 })
      await page.locator("#composer").focus()
      await page.keyboard.type("@onb")
      await page.locator("mcp-mention [role=option][id*=-opt-]").first().waitFor()
      assert.deepEqual(await optionURIs(page), ONB)
      const titles = await page.locator("mcp-mention [role=option] .mcp-mention-title").allTextContents()
      assert.ok(!titles.includes("Rolling back a bad deploy"), JSON.stringify(titles))
      // Welcome's match is its URI segment, highlighted there
      const welcome = page.locator("mcp-mention [role=option]", { hasText: "Welcome to the Platform team" })
      assert.deepEqual(await welcome.locator(".mcp-mention-uri mark").allTextContents(), ["onb"])
      await page.keyboard.press("Escape")
      await page.keyboard.type(" @wel")
      await page.waitForFunction(() => document.querySelector("mcp-mention [role=option] .mcp-mention-title")?.textContent === "Welcome to the Platform team")
      assert.equal(await page.locator("mcp-mention [role=option] .mcp-mention-title mark").first().textContent(), "Wel")
    } finally {
      await page.close()
    }
  })
})
