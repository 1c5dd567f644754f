// render-worker.js: mcphost's render Worker. mcphost.js starts it lazily, on
// the first Markdown part, with
//   new Worker(new URL('./render-worker.js', import.meta.url), { type: 'module' })
// and posts it the page's compiled WebAssembly.Module (no second download or
// compile) and the URL of wasm_exec.js. The same module then runs here in
// render-only mode (argv "-render"): Markdown -> sanitized HTML, nothing else.
// src and html travel as UTF-8 in transferred Uint8Arrays: the main thread
// copies bytes, the encoding and decoding happen here (in Go).
//
// Messages in:  { type: 'init', module, wasmExec }, then { id, src, baseURI, remoteImages, end }
//               (end > 0: the first piece of a cut document, see mcphost.js)
// Messages out: { type: 'ready' } or { type: 'failed', message };
//               per job { id, html, plain } or { id, error } (a Go error or
//               panic: the instance is still usable) or { id, crashed } (a
//               JavaScript exception thrown through the module, such as a
//               RangeError when the stack overflows: the instance is not
//               usable any more, so the Worker closes itself).
//
// The time budget is enforced by mcphost.js, which terminates this Worker
// when a job runs past it: Go under js/wasm cannot be interrupted.
//
// No import.meta here: a bundler may turn this file into a classic script.

let render = null
let broken = ''

self.onmessage = async e => {
  const m = e.data
  if (m?.type === 'init') {
    try {
      await import(/* @vite-ignore */ m.wasmExec)
      const go = new globalThis.Go()
      go.argv = ['mcphost.wasm', '-render']
      go.exit = code => {
        broken = `the render runtime exited (code ${code})`
      }
      const instance = await WebAssembly.instantiate(m.module, go.importObject)
      go.run(instance) // runs main until it blocks, having registered the function
      render = globalThis.__mcphost_render
      if (typeof render !== 'function') throw new Error('mcphost.wasm did not start in render mode')
      self.postMessage({ type: 'ready' })
    } catch (err) {
      self.postMessage({ type: 'failed', message: String(err?.message ?? err) })
      self.close()
    }
    return
  }
  if (broken || !render) {
    self.postMessage({ id: m.id, crashed: broken || 'the render Worker is not ready' })
    self.close()
    return
  }
  let out
  try {
    out = render(m.src, String(m.baseURI), !!m.remoteImages, m.end > 0 ? m.end : 0)
  } catch (err) {
    self.postMessage({ id: m.id, crashed: `${err?.name ?? 'Error'}: ${err?.message ?? err}` })
    self.close()
    return
  }
  if (out[2]) self.postMessage({ id: m.id, error: out[2] })
  else self.postMessage({ id: m.id, html: out[0], plain: out[1] }, [out[0].buffer])
}
