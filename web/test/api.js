// Test page script for e2e/api.test.mjs (kept out of the HTML so the page runs
// under the product's CSP, which allows no inline script). It records which
// Node-like globals existed before the module ran, so the test can prove
// mcphost.js leaves none behind, and offers small event helpers.
window.globalsBefore = ['process', 'fs', 'path', 'Go'].filter(n => n in globalThis)

// events(host) records every event of the API on host into an array.
window.events = host => {
  const log = []
  for (const t of ['updated', 'stale', 'gone', 'superseded', 'listchanged', 'listprogress',
    'disconnected', 'reconnected']) {
    host.addEventListener(t, e => log.push({ type: t, detail: e.detail, isCustom: e instanceof CustomEvent }))
  }
  return log
}

// nextEvent resolves with the detail of the first `type` event on host for
// which pred(detail) holds, or rejects after ms.
window.nextEvent = (host, type, pred = () => true, ms = 15000) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      host.removeEventListener(type, on)
      reject(new Error(`no ${type} event in ${ms} ms`))
    }, ms)
    const on = e => {
      if (!pred(e.detail)) return
      clearTimeout(timer)
      host.removeEventListener(type, on)
      resolve(e.detail)
    }
    host.addEventListener(type, on)
  })

// errorFields copies what a test asserts on from a rejection.
window.errorFields = e => ({
  isError: e instanceof Error, isMCPError: e instanceof window.mcphost.MCPError, name: e.name,
  message: e.message, kind: e.kind, code: e.code, data: e.data, uri: e.uri, method: e.method,
  retryable: e.retryable, serverMessage: e.serverMessage,
})

window.mcphost = await import('../mcphost.js')
window.ready = true
