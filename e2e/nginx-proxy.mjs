// A real Debian nginx for e2e/nginx.test.mjs, run unprivileged from a
// temporary prefix: `nginx -p DIR -c DIR/nginx.conf -g 'daemon off;'`, with
// its pid, logs and every *_temp_path under DIR, listening on 127.0.0.1 only.
// Run as root (as CI is), the test hands DIR to "nobody" and starts nginx as
// that user: nothing in it needs a privilege.
// The site configuration is docs/deploy/nginx.conf with a few exact strings
// replaced (siteConfig), so the test runs the file the docs ship.
import { spawn } from 'node:child_process'
import { chownSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'

/** The nginx binary: $NGINX, then PATH, then /usr/sbin (off a non-root PATH). */
export function nginxBinary() {
  if (process.env.NGINX) return process.env.NGINX
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin']) {
    const p = path.join(dir || '.', 'nginx')
    if (existsSync(p)) return p
  }
  throw new Error('nginx not found (scripts/test-deps.sh installs Debian\'s nginx; or set NGINX)')
}

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

/**
 * Reads template (a path) and applies edits: [from, to, count] — each from
 * (an exact string) must occur exactly count times, so a change to the
 * shipped file that the test no longer matches fails loudly instead of
 * testing something else.
 */
export function siteConfig(template, edits) {
  let text = readFileSync(template, 'utf8')
  for (const [from, to, count] of edits) {
    const n = text.split(from).length - 1
    if (n !== count) throw new Error(`${path.basename(template)}: expected ${count} × ${JSON.stringify(from)}, found ${n}`)
    text = text.split(from).join(to)
  }
  return text
}

/**
 * Starts nginx on site (the text of a configuration that goes inside
 * `http { }`) under dir, and resolves once every port in ports accepts
 * connections. Returns { proc, stop, errorLog(), accessLog(), output }.
 * The access log records, per request, the upstream address that served it.
 */
export async function startNginx({ dir, site, ports }) {
  const conf = `# written by e2e/nginx-proxy.mjs
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
worker_processes 1;
events { worker_connections 256; }
http {
    log_format upstreams '$remote_addr "$request" $status host=$http_host upstream=$upstream_addr rt=$request_time';
    access_log ${dir}/access.log upstreams;
    client_body_temp_path ${dir}/client_body_temp;
    proxy_temp_path ${dir}/proxy_temp;
    fastcgi_temp_path ${dir}/fastcgi_temp;
    uwsgi_temp_path ${dir}/uwsgi_temp;
    scgi_temp_path ${dir}/scgi_temp;
    include ${dir}/site.conf;
}
`
  writeFileSync(path.join(dir, 'site.conf'), site)
  writeFileSync(path.join(dir, 'nginx.conf'), conf)
  const bin = nginxBinary()
  const as = {}
  if (process.getuid?.() === 0) {
    const nobody = 65534
    const chownTree = p => {
      chownSync(p, nobody, nobody)
      for (const e of readdirSync(p, { withFileTypes: true })) {
        if (e.isDirectory()) chownTree(path.join(p, e.name))
        else chownSync(path.join(p, e.name), nobody, nobody)
      }
    }
    chownTree(dir)
    Object.assign(as, { uid: nobody, gid: nobody })
  }
  const output = []
  const proc = spawn(bin, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'pipe', 'pipe'], ...as })
  proc.stdout.on('data', d => output.push(d.toString()))
  proc.stderr.on('data', d => output.push(d.toString()))
  const read = f => { try { return readFileSync(path.join(dir, f), 'utf8') } catch { return '' } }
  const exited = new Promise(resolve => proc.once('exit', resolve))
  // SIGTERM is nginx's fast shutdown (the master ends its workers); should
  // it hang, the workers are killed by pid too, as a killed master leaves
  // them running.
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return
    proc.kill('SIGTERM')
    const t = setTimeout(() => {
      let workers = []
      try { workers = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(/\s+/) } catch {}
      for (const w of workers) if (w) try { process.kill(Number(w), 'SIGKILL') } catch {}
      proc.kill('SIGKILL')
    }, 5000)
    await exited
    clearTimeout(t)
  }
  try {
    await listening(ports, Date.now() + 10000, proc, () => output.join('') + read('error.log'))
  } catch (e) {
    await stop()
    throw e
  }
  return { proc, stop, output, errorLog: () => read('error.log'), accessLog: () => read('access.log') }
}

/** Resolves once every port accepts connections; rejects if proc exits or deadline passes. */
async function listening(ports, deadline, proc, logs) {
  for (const port of ports) {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`nginx exited (${proc.exitCode}):\n${logs()}`)
      const ok = await new Promise(resolve => {
        const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true) })
        c.once('error', () => resolve(false))
      })
      if (ok) break
      if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port} in 10 s:\n${logs()}`)
      await new Promise(resolve => setTimeout(resolve, 50))
    }
  }
}

/**
 * Established TCP connections whose local port is port (the server side of
 * connections to a listener on this machine), from /proc/net/tcp: the remote
 * ports, sorted. Used to tell which mcphost instance holds which sockets.
 */
export function establishedTo(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0')
  const remotes = []
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f.length < 4) continue
    const [, local, remote, state] = f
    if (state === '01' && local.endsWith(':' + hex)) remotes.push(parseInt(remote.split(':')[1], 16))
  }
  return remotes.sort((a, b) => a - b)
}
