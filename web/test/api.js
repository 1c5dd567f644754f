// Test page script for e2e/api.test.mjs (kept out of the HTML so the page runs
// under the product's CSP, which allows no inline script).
// It records which Node-like globals existed before the module ran, so the
// test can prove mcphost.js leaves none behind.
window.globalsBefore = ['process', 'fs', 'path', 'Go'].filter(n => n in globalThis)
const mod = await import('../mcphost.js')
window.mcphost = mod
window.ready = true
