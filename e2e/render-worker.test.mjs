// The render Worker (issue 14, the page): Markdown is rendered off the main
// thread, in a Worker running the page's compiled module in render-only mode,
// with a per-part time budget (renderBudgetMs). Headless Debian Chromium, the
// API test page served by mcphost itself (the product's CSP), against the
// built-in documents server on a temporary folder of .md files.
//
// PerformanceObserver sees only the page's own long tasks, never a Worker's:
// the 100 ms bound is asserted on the main thread, the budget on its own.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { launchBrowser, mcphostInLongTasks, observeLongTasks, root, startMcphost } from './harness.mjs'

const DIR = 'render/docs'
const uri = name => `docs://team/${DIR}/${name}`
const CHANGELOG = uri('changelog.md')
const BRACKETS = uri('brackets.md')
const EMPHASIS = uri('emphasis.md')
const SMALL = uri('small.md')
const OTHER = uri('other.md')
const CRASH = uri('crash.md')
const SPLIT = uri('split.md')
const SPLIT_HOSTILE = uri('split-hostile.md')
const CRASH_MARK = 'CRASH-THE-RENDER-WORKER'

// changelog builds a keep-a-changelog document of about size bytes, the
// shape of attach's Go benchmark (many versions, bullets with code,
// emphasis, issue links, snake_case names, a reference definition per
// version at the end).
function changelog(size) {
  let b = ''
  let refs = ''
  for (let v = 0; b.length + refs.length < size; v++) {
    b += `## [1.${v}.0] - 2026-${String((v % 12) + 1).padStart(2, '0')}-${String((v % 28) + 1).padStart(2, '0')}\n\n### Added\n\n`
    for (let k = 0; k < 6; k++) {
      b += `- Support for \`snake_case_${k}\` options in **config_${v}** (#${1000 + v * 6 + k}, by @user_${k})\n`
    }
    b += `\n### Fixed\n\n- A crash when \`max_size * 2\` overflowed; see [the issue](https://github.com/o/r/issues/${v}) and *notes*\n` +
      '- Footnote markers like value* are now kept literally, as are 2 * 3 and a_b_c\n\n'
    refs += `[1.${v}.0]: https://github.com/o/r/compare/v1.${v}.0...v1.${v}.0\n`
  }
  return b + '\n' + refs
}

let docs, srv, browser

before(async () => {
  docs = mkdtempSync(path.join(tmpdir(), 'mcphost-render-docs-'))
  const d = path.join(docs, DIR)
  mkdirSync(d, { recursive: true })
  writeFileSync(path.join(d, 'changelog.md'), changelog(1300 << 10))
  writeFileSync(path.join(d, 'brackets.md'), '[a]('.repeat(20000)) // quadratic in goldmark: 12 s on the main thread before the guard
  writeFileSync(path.join(d, 'emphasis.md'), '*a_ '.repeat(20000))
  writeFileSync(path.join(d, 'small.md'), '# Small\n\nSome *text* & <b>raw</b>.\n')
  writeFileSync(path.join(d, 'other.md'), '# Other\n\n- a list\n')
  // The browser bench's document (no reference definitions: it may be cut),
  // and the same with a pathological tail the guard refuses.
  const sample = readFileSync(path.join(root, 'cmd/mcphost/internal/sampledocs/payments/reference/api-changelog.md'), 'utf8').slice(0, 1 << 20)
  writeFileSync(path.join(d, 'split.md'), sample)
  writeFileSync(path.join(d, 'split-hostile.md'), sample + '\n\n# Tail\n\n' + '[a]('.repeat(20000))
  writeFileSync(path.join(d, 'crash.md'), `# ${CRASH_MARK}\n\n<b>kept</b> as text\n`)
  srv = await startMcphost(['-docs', docs])
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await srv?.stop()
  if (docs) rmSync(docs, { recursive: true, force: true })
})

// openPage opens the API test page, counting the page's Workers. With
// noWorker, the page has no Worker constructor (the fallback: rendering in
// the main instance). With crashOn, render-worker.js is served with a test
// stand-in for a stack overflow inside the module: a job whose source holds
// the mark recurses until the engine throws RangeError, inside the same call
// that runs Go. Nothing of this is in the product. With cores, the page's
// navigator.hardwareConcurrency says so (mcphost.js runs a second render
// Worker from two cores on).
async function openPage({ noWorker = false, crashOn = '', workerSrcNone = false, cores = 0 } = {}) {
  const page = await browser.context.newPage()
  const problems = []
  page.on('pageerror', e => problems.push(String(e)))
  page.on('console', m => {
    if (m.type() === 'error' && !/favicon/.test(m.location()?.url ?? '')) problems.push(m.text())
  })
  const workers = { started: 0, closed: 0 }
  page.on('worker', w => {
    if (!/render-worker\.js/.test(w.url())) return
    workers.started++
    w.on('close', () => workers.closed++)
  })
  if (noWorker) await page.addInitScript(() => { delete globalThis.Worker })
  if (cores) await page.addInitScript(n => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }), cores)
  if (crashOn) {
    const src = readFileSync(path.join(root, 'web', 'render-worker.js'), 'utf8')
    const patched = src.replace('    out = render(m.src',
      `    if (new TextDecoder().decode(m.src).includes(${JSON.stringify(crashOn)})) (function overflow() { overflow() })()\n    out = render(m.src`)
    assert.notEqual(patched, src, 'the crash stand-in must patch render-worker.js')
    await page.route('**/render-worker.js', async route => {
      const resp = await route.fetch()
      await route.fulfill({ response: resp, body: patched })
    })
  }
  await page.goto(srv.url + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 })
  if (workerSrcNone) {
    // The product's policy plus worker-src 'none' (a <meta> policy adds to
    // the header's from the moment it is inserted): a page that forbids Workers.
    await page.evaluate(() => {
      const m = document.createElement('meta')
      m.httpEquiv = 'Content-Security-Policy'
      m.content = "worker-src 'none'"
      document.head.append(m)
    })
  }
  // Long tasks of the main thread and the scripts in them from here on.
  await observeLongTasks(page)
  page.problems = problems
  page.workers = workers
  return page
}

// longestSince is the longest main-thread task that started after t0.
const longestSince = (page, t0) =>
  page.evaluate(t0 => Math.max(0, ...window.longTasks.filter(e => e.start >= t0).map(e => e.duration)), t0)


const partInfo = p => ({
  kind: p.kind, state: p.state, forModel: p.forModel, htmlLen: p.html?.length ?? 0, textLen: p.text?.length ?? 0,
  pre: p.html?.startsWith('<pre>') ?? false, h1: /<h1>/.test(p.html ?? ''), h2: /<h2>/.test(p.html ?? ''),
  warnings: p.warnings,
})

describe('the render Worker', () => {
  test('a 1.3 MB changelog and pathological documents attach with no main-thread task over 100 ms of mcphost\'s; HTML present', async () => {
    // What is bounded is mcphost's scripts within a long task (long
    // animation frames attribute them), not the task: the refresh's task was
    // 92-116 ms with 67-87 of mcphost's, the rest the browser's style and
    // paint for the keystrokes and its message dispatch. Script durations
    // are wall-clock time: on a loaded machine (two cores shared by
    // Chromium's main thread, the Worker and other processes) a script can
    // be stretched past the bound by preemption. A second run on a fresh
    // page decides.
    const runs = []
    for (let attempt = 0; attempt < 2; attempt++) {
      const page = await openPage()
      try {
        const r = await page.evaluate(async ([changelog, others, small]) => {
          const info = p => ({ kind: p.kind, htmlLen: p.html?.length ?? 0, textLen: p.text?.length ?? 0,
            pre: p.html?.startsWith('<pre>'), h2: /<h2>/.test(p.html ?? ''), warnings: p.warnings, forModel: p.forModel })
          // No token bound: this test is about rendering, and the changelog
          // (~340,000 tokens) would be withheld with a warning (sizes.test.mjs).
          const h = await window.mcphost.connect('/mcp', { maxModelTokens: Infinity })
          await h.resources()
          // One small document first: the read path's first call compiles
          // its code (V8 compiles each wasm function at its first call),
          // a one-time cost of the session this test is not about; what it
          // bounds is what a large or hostile document costs.
          await h.attach(small)
          h.detach(small)
          const t0 = performance.now()
          // Typing goes on while the documents render: every keystroke answers.
          let keystrokes = 0
          const typing = setInterval(() => { h.mention('change', { limit: 20 }); keystrokes++ }, 20)
          const c0 = performance.now()
          const [cl] = await h.attach(changelog)
          const changelogMs = performance.now() - c0
          const patho = []
          for (const u of others) patho.push(info((await h.attach(u))[0]))
          // A refresh re-reads all three; the same text is not rendered again.
          const f0 = performance.now()
          await h.refresh()
          const refreshMs = performance.now() - f0
          clearInterval(typing)
          const ctx = h.attachments()
          await h.close()
          return { t0, changelog: info(cl), changelogMs, patho, refreshMs, keystrokes, states: ctx.map(p => p.state) }
        }, [CHANGELOG, [BRACKETS, EMPHASIS], SMALL])
        await new Promise(res => setTimeout(res, 100)) // the observers report the last frames
        r.longest = await longestSince(page, r.t0)
        r.ours = (await mcphostInLongTasks(page, r.t0)).ours
        console.log(`  changelog attach ${r.changelogMs.toFixed(0)} ms, refresh ${r.refreshMs.toFixed(0)} ms, ` +
          `longest main-thread task ${r.longest.toFixed(0)} ms (mcphost's scripts ${r.ours.toFixed(0)} ms of one), ${r.keystrokes} keystrokes`)
        assert.equal(r.changelog.kind, 'text')
        assert.ok(r.changelog.h2 && !r.changelog.pre, 'the changelog is rendered, not plain text')
        assert.ok(r.changelog.htmlLen > r.changelog.textLen * 0.9, `html ${r.changelog.htmlLen} for text ${r.changelog.textLen}`)
        assert.deepEqual(r.changelog.warnings, [])
        for (const p of r.patho) {
          assert.ok(p.pre && p.htmlLen > 0, 'a pathological document is escaped text, never nothing')
          assert.ok(p.warnings.some(w => /shown as escaped plain text/.test(w)), JSON.stringify(p.warnings))
          assert.equal(p.forModel, true)
        }
        assert.deepEqual(r.states, ['fresh', 'fresh', 'fresh'], 'the refresh applied every copy before its deadline')
        assert.ok(r.keystrokes > 10, `${r.keystrokes} keystrokes answered`)
        assert.equal(page.workers.started, 1, 'one Worker, started lazily and kept')
        assert.deepEqual(page.problems, [])
        runs.push(r.ours)
      } finally {
        await page.close()
      }
      if (runs.at(-1) <= 100) break
    }
    assert.ok(Math.min(...runs) <= 100, `mcphost's scripts held one main-thread task for ${runs.map(x => x.toFixed(0)).join(' and ')} ms`)
  })

  test('a large document renders in two Workers at once, byte for byte as in one; with a pathological tail it is escaped text', async () => {
    const run = async cores => {
      const page = await openPage({ cores })
      try {
        const r = await page.evaluate(async ([split, hostile]) => {
          const h = await window.mcphost.connect('/mcp', { maxModelTokens: Infinity })
          const [a] = await h.attach(split)
          const [b] = await h.attach(hostile)
          await h.close()
          return { html: a.html, warnings: a.warnings, hostile: { pre: b.html?.startsWith('<pre>'), htmlLen: b.html?.length ?? 0,
            textLen: b.text?.length ?? 0, warnings: b.warnings } }
        }, [SPLIT, SPLIT_HOSTILE])
        assert.deepEqual(page.problems, [])
        return { ...r, workers: page.workers.started }
      } finally {
        await page.close()
      }
    }
    const two = await run(2)
    const one = await run(1)
    assert.equal(two.workers, 2, 'two cores: a second Worker renders the second piece')
    assert.equal(one.workers, 1, 'one core: one Worker, the document whole')
    assert.ok(/<h2>/.test(two.html) && !two.html.startsWith('<pre>'), 'rendered, not plain text')
    assert.deepEqual(two.warnings, [])
    assert.ok(two.html === one.html, `the pieces' HTML (${two.html.length} chars) is the whole document's (${one.html.length})`)
    for (const r of [two, one]) {
      assert.ok(r.hostile.pre && r.hostile.htmlLen >= r.hostile.textLen, 'the guard decides on the whole document: escaped text')
      assert.ok(r.hostile.warnings.some(w => /superlinear work/.test(w) && /shown as escaped plain text/.test(w)), JSON.stringify(r.hostile.warnings))
    }
  })

  test('a part past its budget is escaped text with a warning, the Worker restarts, the next part renders; a second host keeps working', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async ([changelog, small, otherDoc]) => {
        const info = p => ({ htmlLen: p.html?.length ?? 0, textLen: p.text?.length ?? 0, pre: p.html?.startsWith('<pre>'),
          h1: /<h1>/.test(p.html ?? ''), warnings: p.warnings, forModel: p.forModel, state: p.state })
        const tight = await window.mcphost.connect('/mcp', { renderBudgetMs: 50, maxModelTokens: Infinity })
        const other = await window.mcphost.connect('/mcp')
        await other.resources()
        // The other host attaches and answers while the tight one's part runs
        // past its budget: in the page's second render Worker (or after it,
        // in turn, where there is one).
        const [slow, mine, matches] = await Promise.all([
          tight.attach(changelog).then(ps => info(ps[0])),
          other.attach(small).then(ps => info(ps[0])),
          new Promise(r => setTimeout(() => r(other.mention('small', { limit: 5 }).length), 10)),
        ])
        const [next] = await tight.attach(small)
        // And after the restart, the other host too.
        const [later] = await other.attach(otherDoc)
        const laterMatches = other.mention('other', { limit: 5 }).length
        const ctx = other.attachments().map(p => p.uri)
        await tight.close()
        await other.close()
        return { slow, mine, matches, next: info(next), later: info(later), laterMatches, ctx }
      }, [CHANGELOG, SMALL, OTHER])
      assert.ok(r.slow.pre && r.slow.htmlLen >= r.slow.textLen, 'past the budget: escaped text, never nothing')
      assert.ok(r.slow.warnings.some(w => /took longer than its 50 ms budget \(renderBudgetMs\)/.test(w) && /shown as escaped plain text/.test(w)),
        JSON.stringify(r.slow.warnings))
      assert.equal(r.slow.forModel, true)
      assert.ok(r.next.h1 && !r.next.pre, 'the next part renders normally')
      assert.deepEqual(r.next.warnings, [])
      assert.ok(r.mine.h1 && !r.mine.pre)
      assert.ok(r.matches > 0 && r.laterMatches > 0)
      assert.ok(r.later.h1 && !r.later.pre)
      assert.deepEqual(r.ctx, [SMALL, OTHER])
      assert.ok(page.workers.started >= 2, `Workers started: ${page.workers.started} (a second one, or a restart)`)
      // The end of a Worker stopped inside the module reaches the test
      // late on a loaded machine (over 1 s at load 10): wait up to 10 s.
      for (let i = 0; i < 500 && page.workers.closed < 1; i++) await new Promise(r => setTimeout(r, 20))
      assert.ok(page.workers.closed >= 1, 'the Worker past the budget was terminated')
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test('a Worker that crashes (RangeError inside the render call) loses no part: escaped text with a warning, later renders work', async () => {
    const page = await openPage({ crashOn: CRASH_MARK })
    try {
      const r = await page.evaluate(async ([crash, small, other]) => {
        const info = p => ({ html: p.html, pre: p.html?.startsWith('<pre>'), h1: /<h1>/.test(p.html ?? ''), warnings: p.warnings })
        const h = await window.mcphost.connect('/mcp')
        const [before] = await h.attach(small)
        h.detach(small)
        const [crashed] = await h.attach(crash)
        const [afterwards] = await h.attach(other)
        const ctx = h.attachments().length
        await h.close()
        return { before: info(before), crashed: info(crashed), afterwards: info(afterwards), ctx }
      }, [CRASH, SMALL, OTHER])
      assert.ok(r.before.h1)
      assert.ok(r.crashed.pre, 'the crashed part is escaped text')
      assert.match(r.crashed.html, /&lt;b&gt;kept&lt;\/b&gt; as text/)
      assert.ok(r.crashed.warnings.some(w => /the render Worker failed \(RangeError: Maximum call stack size exceeded\); it was restarted; shown as escaped plain text/.test(w)),
        JSON.stringify(r.crashed.warnings))
      assert.ok(r.afterwards.h1 && !r.afterwards.pre, 'a later part renders in the restarted Worker')
      assert.equal(page.workers.started, 2)
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test('without a Worker (none in this environment), parts render in the main instance', async () => {
    const page = await openPage({ noWorker: true })
    try {
      const r = await page.evaluate(async ([changelog, small]) => {
        const h = await window.mcphost.connect('/mcp')
        await h.resources()
        const [s] = await h.attach(small)
        const t0 = performance.now()
        const [c] = await h.attach(changelog)
        await h.close()
        return { t0, small: /<h1>/.test(s.html), changelog: /<h2>/.test(c.html), hasWorker: typeof Worker }
      }, [CHANGELOG, SMALL])
      const longest = await longestSince(page, r.t0)
      console.log(`  without a Worker: longest main-thread task ${longest.toFixed(0)} ms on the 1.3 MB changelog`)
      assert.equal(r.hasWorker, 'undefined')
      assert.ok(r.small && r.changelog)
      assert.equal(page.workers.started, 0)
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test("under a CSP with worker-src 'none', parts render in the main instance", async () => {
    const page = await openPage({ workerSrcNone: true })
    try {
      const r = await page.evaluate(async ([small, other]) => {
        const h = await window.mcphost.connect('/mcp')
        const [s] = await h.attach(small)
        const [o] = await h.attach(other)
        await h.close()
        return { small: /<h1>/.test(s.html), other: /<h1>/.test(o.html), warnings: [...s.warnings, ...o.warnings] }
      }, [SMALL, OTHER])
      assert.deepEqual(r, { small: true, other: true, warnings: [] })
      assert.equal(page.workers.started, 0)
      // Chromium reports the refused Worker on the console; nothing else.
      assert.deepEqual(page.problems.filter(p => !/Content Security Policy|worker-src/.test(p)), [])
    } finally {
      await page.close()
    }
  })
})
