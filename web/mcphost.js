// mcphost.js: the JavaScript API of mcphost, an MCP host for web chat
// frontends. Plain ES module, no build step; types and docs are in
// mcphost.d.ts, embedding notes in docs/embedding.md.
//
// The behaviour lives in Go (compiled to mcphost.wasm); this module loads the
// Go runtime once per page, converts arguments and results, and turns the
// Go side's callbacks into Promises, CustomEvents and MCPErrors.

import { openSocket } from './socket.js'

// Showing server strings safely (bidi controls and invisible characters as
// markers) and wrapping documents for a model: see display.js.
export { displayText, marker, hasHiddenText, escapeAttribute, escapeDocumentText, wrapDocument } from './display.js'

const KINDS = new Set([
  'not_found', 'invalid', 'unsupported', 'unavailable', 'timeout',
  'limit', 'protocol', 'cancelled', 'error', 'refused',
])

/** Every failure of this API. See mcphost.d.ts. */
export class MCPError extends Error {
  constructor(message, init = {}) {
    super(message)
    const kind = KINDS.has(init.kind) ? init.kind : 'error'
    // An aborted call looks like any other aborted web API call.
    this.name = kind === 'cancelled' ? 'AbortError' : 'MCPError'
    this.kind = kind
    this.code = init.code ?? 0
    this.data = init.data
    this.uri = init.uri || undefined
    this.method = init.method || undefined
    this.index = init.index
    this.retryable = kind === 'unavailable' || kind === 'timeout'
  }
}

// fromGo turns the Go side's plain error object into an MCPError.
function fromGo(e) {
  if (e instanceof MCPError) return e
  let data = e.data
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data)
    } catch {
      // keep the text as the server sent it
    }
  }
  return new MCPError(e.message || 'unknown error', {
    kind: e.kind || 'protocol', code: e.code, data, uri: e.uri, method: e.method, index: e.index,
  })
}

// ---- the shared Go runtime ----

const STRAY_GLOBALS = ['process', 'fs', 'path', 'Go']
const TOKEN = /^[A-Za-z0-9._~-]+$/

let runtimePromise = null // resolves to the Go exports, once per page
let goClass = null // wasm_exec.js's Go class, captured before its global is removed
let goShims = null // its fs, process and path shims, needed during Go's init
const rt = { exports: null, exited: false, reason: '' }
const pending = new Map() // callID -> reject, for calls the Go side has not answered
const liveHosts = new Set()
let nextCall = 0

function exitedError() {
  return new MCPError(rt.reason || 'the mcphost runtime has exited', { kind: 'protocol' })
}

function runtime(wasmUrl) {
  if (rt.exited) return Promise.reject(exitedError())
  runtimePromise ??= startRuntime(wasmUrl).catch(err => {
    runtimePromise = null // a failed download may be retried by the next connect()
    throw err instanceof MCPError
      ? err
      : new MCPError(`loading mcphost.wasm: ${err?.message ?? err}`, { kind: 'unavailable' })
  })
  return runtimePromise
}

async function loadGoClass() {
  if (goClass) return
  const before = STRAY_GLOBALS.map(n => [n, Object.getOwnPropertyDescriptor(globalThis, n)])
  try {
    await import(new URL('./wasm_exec.js', import.meta.url).href)
    goClass = globalThis.Go
    goShims = { fs: globalThis.fs, process: globalThis.process, path: globalThis.path }
  } finally {
    // wasm_exec.js defines Go, and fs, process and path when they are absent
    // (Node shims for the browser). A page that detects Node with `typeof
    // process` must not be misled: put back exactly what was there.
    for (const [n, desc] of before) {
      if (desc) Object.defineProperty(globalThis, n, desc)
      else delete globalThis[n]
    }
  }
  if (typeof goClass !== 'function') throw new Error('wasm_exec.js did not define Go')
}

async function startRuntime(wasmUrl) {
  const url = wasmUrl ? new URL(wasmUrl, import.meta.url) : new URL('./mcphost.wasm', import.meta.url)
  // The module's download and compile start now, while wasm_exec.js loads:
  // one after the other, the module's fetch began ~50 ms after connect().
  const compiled = compile(url)
  compiled.catch(() => {}) // reported below, once awaited
  await loadGoClass()
  const go = new goClass()
  // Go's runtime writes its own output (a crash report) through the global
  // fs; give it the captured shim only for the duration of the write.
  const write = go.importObject.gojs['runtime.wasmWrite']
  go.importObject.gojs['runtime.wasmWrite'] = sp => {
    const had = Object.getOwnPropertyDescriptor(globalThis, 'fs')
    if (!had) globalThis.fs = goShims.fs
    try {
      write(sp)
    } finally {
      if (!had) delete globalThis.fs
    }
  }
  let exitCode = 0
  go.exit = code => {
    exitCode = code
  }
  const module = await compiled
  // A task of its own for instantiation, and another for Go's start: the
  // compile's end (V8's finish, ~40 ms on the bench machine), instantiation
  // and go.run (40–70 ms) ran as one main-thread task of 120–200 ms, during
  // which the page could not paint or take a keystroke and the early
  // start (below) could not ask for the next listing page. Split, the
  // longest main-thread block of a cold start fell from 144 to 92 ms
  // (median of 10, docs/bench.md) at the same time to the first listing.
  await nextTask()
  const instance = await WebAssembly.instantiate(module, go.importObject)
  renderer.module = module
  await nextTask()
  // The syscall packages capture fs and process during Go's init, which
  // run() performs synchronously: the shims exist only for that moment.
  const had = STRAY_GLOBALS.map(n => [n, Object.getOwnPropertyDescriptor(globalThis, n)])
  for (const [n, desc] of had) if (!desc && n in goShims) globalThis[n] = goShims[n]
  let exited
  // The sessions' WebSocket glue (socket.js), read by Go's init likewise:
  // lendSocket hands Go a socket connect() opened early, or a new one.
  globalThis.__mcphost_socket = lendSocket
  try {
    exited = go.run(instance)
  } finally {
    for (const [n, desc] of had) if (!desc) delete globalThis[n]
    delete globalThis.__mcphost_socket
  }
  exited.then(() => onRuntimeExit(`the mcphost runtime exited (code ${exitCode})`))
  if (rt.exited) throw exitedError()
  const exports = globalThis.__mcphost_go
  delete globalThis.__mcphost_go
  if (!exports) throw new MCPError('mcphost.wasm did not start', { kind: 'protocol' })
  rt.exports = exports
  return exports
}

// nextTask resolves from a task of its own: a MessageChannel message, which
// background tabs do not throttle the way they throttle timers.
function nextTask() {
  return new Promise(resolve => {
    const c = new MessageChannel()
    c.port1.onmessage = () => {
      c.port1.close()
      resolve()
    }
    c.port2.postMessage(0)
  })
}

// compile fetches and compiles the module (streaming when served as
// application/wasm). The compiled module is kept: the render Workers
// instantiate it again.
async function compile(url) {
  const resp = await fetch(url)
  if (!resp.ok) throw new Error(`GET ${url}: ${resp.status} ${resp.statusText}`)
  if (WebAssembly.compileStreaming && /application\/wasm/.test(resp.headers.get('content-type') || '')) {
    return WebAssembly.compileStreaming(resp)
  }
  return WebAssembly.compile(await resp.arrayBuffer())
}

// ---- the early start: the socket and the first frames while the module loads ----
//
// The first connect() of a page opens its WebSocket at once and, while
// mcphost.wasm downloads and compiles, sends the frames the Go session will
// want: the handshake it would start with (server/discover, or initialize
// for protocol "2025-11-25"), then, from the answers, initialize after a
// discover the server refused, notifications/initialized, the first
// resources/list and resources/templates/list pages and every next page by
// nextCursor (also once Go runs: this glue sees each answer before Go does).
// Answers wait in the socket's queue (socket.js). When Go dials that URL it
// is lent this socket and reads the frames sent (the transcript) whenever it
// is about to send one; it runs its handshake and listing as usual and sends
// only what is not already on the wire, byte for byte (bridge/presend.go):
// Go stays the decider, and anything unexpected is simply done again by Go.
// Ids 1 to EARLY_MAX_FRAMES are this glue's; Go's own start past them.
// So each frame here must be exactly what Go writes; a frame that differs
// costs only the saving. Frames are sent only when Go would send the same
// given the same answers (a clientInfo Go would encode differently sends
// nothing but opens the socket).

const EARLY_MAX_FRAMES = 64 // bridge.maxPresentFrames
const EARLY_MAX_PARSE = 4 << 20 // answers past this size stop the early start
const EARLY_MAX_BYTES = 16 << 20 // nor is a page asked for once this much was read
const EARLY_PAGE_CAP = 1000 // bridge.DefaultPageCap
const MODERN = '2026-07-28'
const LEGACY = '2025-11-25'
const LEGACY_VERSIONS = [LEGACY, '2025-06-18', '2025-03-26', '2024-11-05'] // bridge.SupportedVersions
const CODE_UNSUPPORTED_VERSION = -32022
const early = [] // sockets opened by connect() calls that Go has not dialled yet

// goClientInfo is the JSON Go writes for options.clientInfo (bridge.Implementation),
// or null when this glue cannot be sure it writes the same bytes.
function goClientInfo(ci) {
  if (ci === undefined || ci === null) return '{"name":"mcphost","version":"0.1.0"}'
  if (typeof ci !== 'object' || Array.isArray(ci)) return null
  const safe = v => v === undefined || (typeof v === 'string' && /^[\x20-\x7e]*$/.test(v) && !/[<>&]/.test(v))
  const keys = ['name', 'version', 'title', 'description', 'websiteUrl']
  if (ci.icons !== undefined || !keys.every(k => safe(ci[k]))) return null
  if (!ci.name) return goClientInfo(undefined) // Go's default replaces a nameless one
  const out = { name: ci.name, version: ci.version ?? '' }
  for (const k of keys.slice(2)) if (ci[k]) out[k] = ci[k]
  return JSON.stringify(out)
}

// startEarly opens target's socket for a connect() made before the runtime
// runs, and starts sending what Go will send. Returns null when it cannot.
function startEarly(target, o) {
  if (typeof WebSocket !== 'function') return null
  const protocols = ['mcp']
  if (o.token) protocols.push('mcp.token.' + o.token)
  const info = goClientInfo(o.clientInfo)
  const protocol = o.protocol ?? 'auto'
  const e = { key: target + '\n' + protocols.join('\n'), sig: `${protocol}\n${info}`, sock: null, adopted: false, sent: [], stopped: info === null }
  const meta = `{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":${info}}`
  const asked = new Map() // id -> what it asked: 'discover' | 'initialize' | a list method
  let nextId = 0
  let modern = false
  let received = 0 // characters of the answers read
  const lists = {} // per list method: entries and pages seen, cursors followed
  const maxDescriptors = +o.maxDescriptors > 0 ? +o.maxDescriptors : 100000 // bridge.DefaultMaxDescriptors
  const send = (method, params, isNote) => {
    if (e.stopped || e.sent.length >= EARLY_MAX_FRAMES) return
    const id = isNote ? '' : `,"id":${++nextId}`
    const frame = `{"jsonrpc":"2.0"${id},"method":${JSON.stringify(method)}${params ? `,"params":${params}` : ''}}`
    try {
      e.sock.send(frame)
    } catch {
      e.stopped = true
      return
    }
    e.sent.push(frame)
    if (!isNote) asked.set(nextId, method)
  }
  // The params Go writes for a list page (bridge listAll, withMeta when modern).
  const listParams = cursor => {
    const c = cursor === undefined ? '' : `"cursor":${JSON.stringify(cursor)}`
    if (modern) return `{"_meta":${meta}${c ? ',' + c : ''}}`
    return c ? `{${c}}` : ''
  }
  const list = caps => {
    if (caps?.resources === null || typeof caps?.resources !== 'object') return
    send('resources/list', listParams())
    send('resources/templates/list', listParams())
  }
  const initialize = () =>
    send('initialize', `{"capabilities":{},"clientInfo":${info},"protocolVersion":"${LEGACY}"}`)
  const onAnswer = m => {
    const method = asked.get(m.id)
    if (method === undefined) return
    asked.delete(m.id)
    answered(method, m)
    if (asked.size === 0) e.stopped = true // nothing more to follow
  }
  const answered = (method, m) => {
    const r = m.result
    if (method === 'server/discover') {
      if (r && Array.isArray(r.supportedVersions) && r.supportedVersions.includes(MODERN)) {
        modern = true
        list(r.capabilities)
      } else if (protocol === 'auto' && m.error && m.error.code !== CODE_UNSUPPORTED_VERSION) {
        initialize() // Go falls back to initialize at 2025-11-25 on such an error
      } else {
        e.stopped = true // Go decides from the versions offered
      }
    } else if (method === 'initialize') {
      if (r && LEGACY_VERSIONS.includes(r.protocolVersion)) {
        send('notifications/initialized', '', true)
        list(r.capabilities)
      }
    } else if (r && typeof r.nextCursor === 'string' && r.nextCursor !== '' && !/[<>&\u2028\u2029]/.test(r.nextCursor)) {
      // The next page, while Go would ask for it too: within maxDescriptors
      // (entries counted whether valid or not, so never past Go's count), the
      // page cap, the bytes bound, and not a cursor already followed. A
      // cursor with <, > or & (which Go's encoding/json escapes) is left to Go.
      const l = (lists[method] ??= { entries: 0, pages: 0, seen: new Set() })
      const items = r[method === 'resources/list' ? 'resources' : 'resourceTemplates']
      l.entries += Array.isArray(items) ? items.length : 0
      l.pages++
      if (l.entries > maxDescriptors || l.pages >= EARLY_PAGE_CAP || received > EARLY_MAX_BYTES || l.seen.has(r.nextCursor)) return
      l.seen.add(r.nextCursor)
      send(method, listParams(r.nextCursor))
    }
  }
  const observe = data => {
    if (e.stopped) return
    if (data === undefined) {
      // Opened: the handshake Go starts with.
      if (protocol === LEGACY) initialize()
      else if (protocol === 'auto' || protocol === MODERN) send('server/discover', `{"_meta":${meta}}`)
      else e.stopped = true
      return
    }
    if (typeof data !== 'string' || data.length > EARLY_MAX_PARSE) {
      e.stopped = true
      return
    }
    received += data.length
    try {
      const m = JSON.parse(data)
      if (m && typeof m === 'object' && m.method === undefined && (typeof m.id === 'number')) onAnswer(m)
    } catch {
      e.stopped = true // Go reports it
    }
  }
  try {
    e.sock = openSocket(target, protocols, null, observe)
  } catch {
    return null // a URL the browser refuses: Go's own dial reports it
  }
  // Go reads the frames sent since its last look each time it is about to
  // send one (bridge/socket_batch_js.go): the next pages go on being asked
  // for here, as their cursors arrive, after Go took the socket over.
  // Once the glue stopped and Go took every frame, it says so (null): Go
  // then stops asking, which cost every later request a crossing.
  let taken = 0
  e.sock.transcript = () => {
    if (e.stopped && taken === e.sent.length) return null
    const out = e.sent.slice(taken)
    taken = e.sent.length
    return out
  }
  // However the server behaves, the glue stops reading answers in time.
  setTimeout(() => { e.stopped = true }, +o.connectTimeoutMs > 0 ? +o.connectTimeoutMs : DEFAULT_CONNECT_TIMEOUT_MS)
  e.release = () => {
    const i = early.indexOf(e)
    if (i >= 0) early.splice(i, 1)
    if (!e.adopted) {
      e.stopped = true
      e.sock.stop()
      e.sock.close()
    }
  }
  early.push(e)
  return e
}

// lendSocket is the socket glue Go dials with: a socket connect() opened
// early for the same URL and subprotocols (when all such sockets would have
// sent the same frames, so it does not matter whose it is), else a new one.
// One that closed already is lent too: Go reads the refusal (or the close)
// as from its own first attempt, which it then is.
function lendSocket(url, protocols, wake) {
  const key = url + '\n' + [].concat(protocols ?? []).join('\n')
  const mine = early.filter(x => !x.adopted && x.key === key)
  if (mine.length > 0 && mine.every(x => x.sig === mine[0].sig)) {
    const e = mine[0]
    e.adopted = true
    return e.sock.adopt(wake)
  }
  return openSocket(url, protocols, wake)
}

// ---- the render Worker ----
//
// Markdown is rendered off the main thread: Go under js/wasm cannot be
// interrupted, and goldmark on a large or hostile document takes seconds.
// Up to RENDER_WORKERS Workers per page, started on the first Markdown part
// (the second when two jobs are waiting), run the same compiled module in
// render-only mode (render-worker.js); the Go side cuts a large document
// into that many pieces where that is proven not to change the HTML
// (attach.MarkdownCuts), so they render at once. Each Worker runs one job
// at a time; each job has its host's budget (renderBudgetMs), counted from
// when its Worker starts it. A job past its budget, or one during which its
// Worker crashed, has that Worker terminated (the next job starts a new
// one) and is answered "error": the part shows its escaped text with that
// warning. If no Worker can run here (none in this environment, a CSP
// without worker-src for this origin, a bundle that lost the file), every
// job is answered "inline" and rendered in the main instance, under the
// guard.

const WORKER_START_MS = 10000
// An idle Worker is ended: a Go heap grown by a large document never shrinks.
const WORKER_IDLE_MS = 30000
// Two Workers where there are two cores or more: the main thread waits
// meanwhile, so both render. Beyond two, the pieces' messages and the
// memory of another Go heap outweigh what a third saves.
const RENDER_WORKERS = (globalThis.navigator?.hardwareConcurrency ?? 1) >= 2 ? 2 : 1

const renderer = {
  module: null, // the WebAssembly.Module, kept from the first instantiation
  slots: [], // up to RENDER_WORKERS of { worker, ready, active: { id, job, timer } | null, idle }
  queue: [],
  unavailable: '', // why no Worker can run here ('' while one may)
  nextJob: 0,
}

// renderMarkdown is the function the Go side calls for each Markdown part,
// or each piece of one (wasm/render_js.go): done(status, a, b) is called
// once, asynchronously. With end > 0, the Worker guards all of src and
// renders its first end bytes (the first piece of a cut document).
function renderMarkdown(src, baseURI, remoteImages, budgetMs, done, end) {
  renderer.queue.push({ src, baseURI, remoteImages, end: end > 0 ? end : 0,
    budgetMs: budgetMs > 0 ? budgetMs : DEFAULT_RENDER_BUDGET_MS, done })
  queueMicrotask(pumpRender)
}
// The pieces the Go side may cut a large document into.
renderMarkdown.workers = RENDER_WORKERS

function answer(job, status, a = '', b = '') {
  try {
    job.done(status, a, b)
  } catch {
    // the runtime is gone: nothing waits any more
  }
}

// pumpRender hands queued jobs to free Workers (a started one first) and
// schedules the end of idle ones.
function pumpRender() {
  while (renderer.queue.length > 0) {
    if (renderer.unavailable) {
      for (const job of renderer.queue.splice(0)) answer(job, 'inline')
      break
    }
    let slot = renderer.slots.find(s => !s.active && s.worker) ?? renderer.slots.find(s => !s.active)
    if (!slot) {
      if (renderer.slots.length >= RENDER_WORKERS) break
      slot = { worker: null, ready: null, active: null, idle: 0 }
      renderer.slots.push(slot)
    }
    runJob(slot, renderer.queue.shift())
  }
  for (const s of renderer.slots) {
    if (s.active || !s.worker || s.idle) continue
    s.idle = setTimeout(() => {
      s.idle = 0
      if (!s.active) stopWorker(s)
    }, WORKER_IDLE_MS)
  }
}

async function runJob(slot, job) {
  clearTimeout(slot.idle)
  slot.idle = 0
  slot.active = { id: 0, job, timer: 0 }
  const ok = await startWorker(slot)
  if (!ok) {
    slot.active = null
    answer(job, 'inline')
    pumpRender()
    return
  }
  const id = ++renderer.nextJob
  slot.active.id = id
  slot.active.timer = setTimeout(() => {
    if (slot.active?.id !== id) return
    failWorker(slot, `Markdown rendering took longer than its ${job.budgetMs} ms budget (renderBudgetMs); the render Worker was restarted`)
  }, job.budgetMs)
  try {
    // src is a Uint8Array of its own (copied out of Go): transferred, not cloned.
    slot.worker.postMessage({ id, src: job.src, baseURI: job.baseURI, remoteImages: job.remoteImages, end: job.end }, [job.src.buffer])
  } catch (e) {
    failWorker(slot, `the render Worker failed (${e?.message ?? e}); it was restarted`)
  }
}

// failWorker ends a Worker and answers its active job with an error.
function failWorker(slot, message) {
  const a = slot.active
  stopWorker(slot)
  slot.active = null
  if (a) {
    clearTimeout(a.timer)
    answer(a.job, 'error', message)
  }
  pumpRender()
}

function stopWorker(slot) {
  slot.worker?.terminate()
  slot.worker = null
  slot.ready = null
}

function onWorkerMessage(slot, e) {
  const m = e.data
  const a = slot.active
  if (!a || m?.id !== a.id) return
  if (m.crashed !== undefined) {
    failWorker(slot, `the render Worker failed (${m.crashed}); it was restarted`)
    return
  }
  clearTimeout(a.timer)
  slot.active = null
  if (m.error !== undefined) answer(a.job, 'error', String(m.error))
  else answer(a.job, 'ok', m.html, String(m.plain))
  pumpRender()
}

// startWorker resolves true when the slot's Worker is ready, false when none
// can run here.
function startWorker(slot) {
  if (slot.ready) return slot.ready
  slot.ready = new Promise(resolve => {
    let w
    let ready = false
    const fail = why => {
      clearTimeout(timer)
      w?.terminate()
      if (slot.worker === w) slot.worker = null
      slot.ready = null
      renderer.unavailable = why
      resolve(false)
    }
    const timer = setTimeout(() => fail('the render Worker did not start in time'), WORKER_START_MS)
    try {
      if (!renderer.module || typeof Worker !== 'function') throw new Error('no Worker in this environment')
      // Literally this expression, so bundlers carry render-worker.js along.
      w = new Worker(new URL('./render-worker.js', import.meta.url), { type: 'module' })
    } catch (err) {
      fail(`the render Worker cannot be created: ${err?.message ?? err}`)
      return
    }
    slot.worker = w
    w.onmessage = e => {
      if (e.data?.type === 'ready') {
        clearTimeout(timer)
        ready = true
        w.onmessage = e => onWorkerMessage(slot, e)
        resolve(true)
      } else if (e.data?.type === 'failed') {
        fail(`the render Worker did not start: ${e.data.message}`)
      }
    }
    // An error before ready (blocked by CSP, a missing file): no Worker here.
    // After ready: a crash, which fails the active job.
    w.onerror = e => {
      e.preventDefault?.()
      if (slot.worker !== w) return
      if (ready) failWorker(slot, `the render Worker failed (${e.message || 'error'}); it was restarted`)
      else fail(`the render Worker cannot run here: ${e.message || 'error loading render-worker.js'}`)
    }
    w.onmessageerror = () => {
      if (slot.worker !== w) return
      if (ready) failWorker(slot, 'the render Worker failed (a message could not be read); it was restarted')
      else fail('the render Worker did not start: a message could not be read')
    }
    w.postMessage({ type: 'init', module: renderer.module, wasmExec: new URL('./wasm_exec.js', import.meta.url).href })
  })
  return slot.ready
}

// onRuntimeExit fails everything: the page must never hang on a dead runtime.
function onRuntimeExit(reason) {
  if (rt.exited) return
  rt.exited = true
  rt.reason = reason
  const err = exitedError()
  for (const reject of [...pending.values()]) reject(err)
  pending.clear()
  for (const h of [...liveHosts]) h._runtimeExited(reason)
  liveHosts.clear()
}

// callGo performs one asynchronous Go call: fn(callID, done) starts it.
function callGo(start, signal) {
  return new Promise((resolve, reject) => {
    if (rt.exited) return reject(exitedError())
    if (signal?.aborted) {
      return reject(new MCPError(`cancelled: ${reasonText(signal.reason)}`, { kind: 'cancelled' }))
    }
    const callID = ++nextCall
    const onAbort = () => {
      // The Go side cancels the request (notifications/cancelled on the
      // wire) and answers promptly with kind "cancelled" (or with the
      // result, if it won the race: the context then holds what it says).
      try {
        rt.exports.cancel(callID)
      } catch {
        // runtime gone: onRuntimeExit rejects
      }
    }
    const finish = () => {
      pending.delete(callID)
      signal?.removeEventListener('abort', onAbort)
    }
    pending.set(callID, err => {
      finish()
      reject(err)
    })
    const done = (err, value) => {
      if (!pending.has(callID)) return
      finish()
      if (err) reject(fromGo(err))
      else resolve(value)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const bad = start(callID, done)
      if (bad) done(bad)
    } catch (e) {
      finish()
      reject(rt.exited ? exitedError() : new MCPError(`mcphost runtime: ${e?.message ?? e}`, { kind: 'protocol' }))
    }
  })
}

function reasonText(r) {
  return r?.message ?? (r === undefined ? 'aborted' : String(r))
}

function pairs(rec) {
  const out = []
  if (rec && typeof rec === 'object') {
    for (const [k, v] of Object.entries(rec)) {
      if (v !== undefined && v !== null) out.push(k, String(v))
    }
  }
  return out
}

// fixAttachments turns error parts' plain errors into MCPErrors, and puts
// the bytes that stayed in the page (web/blob.js, the part's _held box) in
// a copy of the part. Why a copy: the Go side still references the objects
// it made until its garbage collector runs, which a Go heap that holds no
// bytes does rarely; bytes in those objects would outlive the page's use of
// them (measured: +1.8 MB per image read, never collected).
function fixAttachments(atts) {
  return atts.map(a => {
    if (a.error) a.error = fromGo(a.error)
    if (!a._held) return a
    const { _held, ...part } = a
    part.bytes = _held.bytes ?? new Uint8Array(0)
    return part
  })
}

// fixResults turns restore results' plain errors into MCPErrors (copies,
// as fixAttachments).
function fixResults(results) {
  return results.map(r => {
    if (r.error) r.error = fromGo(r.error)
    return r.parts ? { ...r, parts: fixAttachments(r.parts) } : r
  })
}

function wsURL(url) {
  const base = typeof location !== 'undefined' ? location.href : undefined
  const u = new URL(String(url), base)
  if (u.protocol === 'http:') u.protocol = 'ws:'
  else if (u.protocol === 'https:') u.protocol = 'wss:'
  return u.href
}

// ---- Host ----

class Host extends EventTarget {
  #id = 0
  #url
  #info = { protocolVersion: '', serverInfo: { name: '', version: '' }, capabilities: {}, instructions: '' }
  #ready = false
  #queued = []
  #closed = false

  constructor(url) {
    super()
    this.#url = url
  }

  get url() {
    return this.#url
  }
  get protocolVersion() {
    return this.#info.protocolVersion
  }
  get serverInfo() {
    return this.#info.serverInfo
  }
  get capabilities() {
    return this.#info.capabilities
  }
  get instructions() {
    return this.#info.instructions ?? ''
  }

  _opened(id) {
    this.#id = id
    this.#loadInfo()
    liveHosts.add(this)
    // Events that arrived while connecting wait until the caller's
    // `await connect()` has resumed and could add listeners.
    setTimeout(() => {
      this.#ready = true
      for (const [type, detail] of this.#queued.splice(0)) this.#dispatch(type, detail)
    }, 0)
  }

  _event(type, detailJSON, parts) {
    const detail = JSON.parse(detailJSON)
    if (type === 'restored') detail.results = fixResults(parts)
    else if (parts !== undefined) detail.parts = fixAttachments(parts)
    if (type === 'reconnected') this.#loadInfo()
    if (this.#ready) this.#dispatch(type, detail)
    else this.#queued.push([type, detail])
  }

  _runtimeExited(reason) {
    this.#closed = true
    this.#dispatch('disconnected', { reason })
  }

  #dispatch(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }))
  }

  #loadInfo() {
    try {
      const info = JSON.parse(this.#sync('info'))
      info.capabilities ??= {}
      info.instructions ??= ''
      this.#info = info
    } catch {
      // keep the last known values; calls report the failure
    }
  }

  #sync(op, ...args) {
    if (rt.exited) throw exitedError()
    let r
    try {
      r = rt.exports[op](this.#id, ...args)
    } catch (e) {
      throw rt.exited ? exitedError() : new MCPError(`mcphost runtime: ${e?.message ?? e}`, { kind: 'protocol' })
    }
    if (r[0]) throw fromGo(r[0])
    return r[1]
  }

  #async(op, options, ...args) {
    const { signal, timeoutMs } = options ?? {}
    return callGo(
      (callID, done) => rt.exports[op](this.#id, callID, +timeoutMs > 0 ? +timeoutMs : 0, done, ...args),
      signal,
    )
  }

  resources(options) {
    return this.#async('resources', options)
  }
  templates(options) {
    return this.#async('templates', options)
  }
  prompts(options) {
    return this.#async('prompts', options)
  }
  async getPrompt(name, args, options) {
    const r = await this.#async('getPrompt', options, String(name), pairs(args))
    r.messages = r.messages.map(m => (m.parts ? { ...m, parts: fixAttachments(m.parts) } : m))
    return r
  }
  completePrompt(name, argName, value, contextArgs, options) {
    return this.#async('completePrompt', options, String(name), String(argName), String(value ?? ''), pairs(contextArgs))
  }
  tools(options) {
    return this.#async('tools', options)
  }
  mention(query, options = {}) {
    return JSON.parse(this.#sync('mention', String(query ?? ''), options.limit ?? 0, options.audience ?? ''))
  }
  expand(uriTemplate, vars) {
    return syncNoHost('expand', String(uriTemplate), pairs(vars))
  }
  templateVars(uriTemplate) {
    return JSON.parse(syncNoHost('templateVars', String(uriTemplate)))
  }
  complete(uriTemplate, argName, value, contextArgs, options) {
    return this.#async('complete', options, String(uriTemplate), String(argName), String(value ?? ''), pairs(contextArgs))
  }
  async attach(uri, options) {
    return fixAttachments(await this.#async('attach', options, String(uri)))
  }
  async include(uri, options) {
    return fixAttachments(await this.#async('include', options, String(uri)))
  }
  detach(uri) {
    return this.#sync('detach', String(uri))
  }
  attachments() {
    return fixAttachments(this.#sync('attachments'))
  }
  async refresh(options) {
    await this.#async('refresh', options)
  }
  callTool(name, args, options) {
    return this.#async('callTool', options, String(name), JSON.stringify(args ?? {}))
  }
  filterToolResult(result) {
    const json = JSON.stringify(result)
    if (json === undefined) throw new MCPError('filterToolResult: result is not JSON', { kind: 'invalid' })
    return this.#sync('filterToolResult', json)
  }
  figures() {
    return this.#sync('figures')
  }

  // ---- workspace restore (issue 17): snapshot, restore, replace ----
  snapshot(options) {
    return this.#async('restore', options, 'snapshot', !!options?.includeContent)
  }
  async restore(snapshot, options) {
    let json
    try {
      json = snapshot !== null && typeof snapshot === 'object' && !Array.isArray(snapshot) ? JSON.stringify(snapshot) : undefined
    } catch (e) {
      throw new MCPError(`snapshot: not JSON (${e?.message ?? e})`, { kind: 'invalid', data: { field: 'snapshot' } })
    }
    if (json === undefined) throw new MCPError('snapshot: not an object', { kind: 'invalid', data: { field: 'snapshot' } })
    return fixResults(await this.#async('restore', options, 'restore', json))
  }
  async replace(oldUri, newUri, options) {
    return fixAttachments(await this.#async('restore', options, 'replace', String(oldUri), String(newUri)))
  }
  async close() {
    if (this.#closed) return
    this.#closed = true
    liveHosts.delete(this)
    if (rt.exited) return
    try {
      await this.#async('close', undefined)
    } catch (e) {
      if (e.kind !== 'unavailable') throw e // already closed on the Go side
    }
  }
}

function syncNoHost(op, ...args) {
  if (rt.exited) throw exitedError()
  const r = rt.exports[op](...args)
  if (r[0]) throw fromGo(r[0])
  return r[1]
}

const PROTOCOLS = ['auto', '2026-07-28', '2025-11-25']
const DEFAULT_RENDER_BUDGET_MS = 5000
const DEFAULT_CONNECT_TIMEOUT_MS = 30000
const DEFAULT_MAX_MODEL_TOKENS = 100000

/** Connects to an MCP server. See mcphost.d.ts for the options. */
export async function connect(url, options = {}) {
  const o = {
    timeoutMs: 5000, connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS, toolTimeoutMs: 60000, refreshDeadlineMs: 800,
    acceptImages: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'], remoteImages: false,
    maxPartBytes: 20 << 20, maxReadBytes: 48 << 20, clientInfo: undefined, token: undefined,
    wasmUrl: undefined, reconnect: true, signal: undefined, protocol: 'auto',
    renderBudgetMs: DEFAULT_RENDER_BUDGET_MS, maxModelTokens: DEFAULT_MAX_MODEL_TOKENS,
    ...options,
  }
  if (!PROTOCOLS.includes(o.protocol ?? 'auto')) {
    throw new MCPError(`options.protocol: "${o.protocol}" is not one of ${PROTOCOLS.map((p) => `"${p}"`).join(', ')}`, {
      kind: 'invalid',
    })
  }
  if (o.token !== undefined && o.token !== null && !TOKEN.test(String(o.token))) {
    throw new MCPError('options.token: only the characters [A-Za-z0-9._~-] may travel in the subprotocol', {
      kind: 'invalid',
    })
  }
  const target = wsURL(url)
  // Before the runtime runs, the socket and the first frames start now.
  const pre = rt.exports || o.signal?.aborted ? null : startEarly(target, o)
  try {
    return await connectGo(target, o)
  } finally {
    pre?.release()
  }
}

async function connectGo(target, o) {
  const exports = await runtime(o.wasmUrl)
  const host = new Host(target)
  const goOpts = {
    timeoutMs: +o.timeoutMs || 0,
    connectTimeoutMs: +o.connectTimeoutMs > 0 ? +o.connectTimeoutMs : DEFAULT_CONNECT_TIMEOUT_MS,
    toolTimeoutMs: +o.toolTimeoutMs || 0,
    refreshDeadlineMs: +o.refreshDeadlineMs || 0,
    acceptImages: Array.isArray(o.acceptImages) ? o.acceptImages.map(String) : undefined,
    remoteImages: !!o.remoteImages,
    maxPartBytes: +o.maxPartBytes || 0,
    maxReadBytes: +o.maxReadBytes || 0,
    maxDescriptors: +o.maxDescriptors || 0,
    // Infinity (or any negative number) means no bound: -1 on the Go side.
    maxModelTokens: +o.maxModelTokens > 0 && +o.maxModelTokens !== Infinity ? Math.floor(+o.maxModelTokens)
      : +o.maxModelTokens === Infinity || +o.maxModelTokens < 0 ? -1 : DEFAULT_MAX_MODEL_TOKENS,
    clientInfo: o.clientInfo ? JSON.stringify(o.clientInfo) : undefined,
    token: o.token ? String(o.token) : undefined,
    reconnect: o.reconnect !== false,
    protocol: o.protocol ?? 'auto',
    renderBudgetMs: +o.renderBudgetMs > 0 ? +o.renderBudgetMs : DEFAULT_RENDER_BUDGET_MS,
    render: renderMarkdown,
  }
  const onEvent = (type, detail, parts) => host._event(type, detail, parts)
  const id = await callGo((callID, done) => exports.connect(callID, target, goOpts, onEvent, done), o.signal)
  host._opened(id)
  return host
}
