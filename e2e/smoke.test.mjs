// Smoke test of the harness itself: Chromium starts and renders a page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser } from "./harness.mjs";

test("chromium renders a data: page", async () => {
  const { context, close } = await launchBrowser();
  try {
    const page = await context.newPage();
    await page.setContent("<p id=x>hello</p>");
    assert.equal(await page.textContent("#x"), "hello");
  } finally {
    await close();
  }
});
