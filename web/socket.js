// socket.js: the browser WebSocket behind mcphost's sessions. The module's Go
// side (bridge/socket_js.go) speaks MCP; this glue owns the socket object and
// hands frames to Go in batches.
//
// Why: every call from JavaScript into Go costs a resume of the Go runtime
// (several crossings and a scheduler round). One crossing per frame made a
// flood of 200,000 notifications take 42 s to get through in Chromium, far
// behind the ~10 s the browser itself needs to deliver them, and the answer
// queued behind them timed out. Here a frame costs a push onto an array; Go
// is woken once per batch (a MessageChannel task, so a batch gathers every
// frame that arrived meanwhile) and takes the whole batch in one call: its
// UTF-8 bytes in one Uint8Array, their lengths in one Int32Array.

const encoder = new TextEncoder()
// Frames past LARGE bytes are taken one at a time (see take).
const LARGE = 1 << 20

/**
 * Opens a WebSocket. wake() is called (from a task of its own, never from
 * inside a WebSocket event) when frames or the close are waiting for take().
 */
export function openSocket(url, protocols, wake) {
  const ws = new WebSocket(url, protocols)
  ws.binaryType = 'arraybuffer'
  const frames = [] // string (text) or ArrayBuffer (binary)
  let head = 0
  let closed = null // { code, reason, wasClean } once the close event came
  let opened = false
  let scheduled = false
  let scratch = new Uint8Array(64 << 10)
  const channel = new MessageChannel()
  channel.port1.onmessage = () => {
    scheduled = false
    wake?.()
  }
  const kick = () => {
    if (!scheduled) {
      scheduled = true
      channel.port2.postMessage(0)
    }
  }
  ws.onopen = () => {
    opened = true
    kick()
  }
  ws.onmessage = e => {
    frames.push(e.data)
    kick()
  }
  ws.onerror = () => {} // a close event always follows
  ws.onclose = e => {
    closed = { code: e.code, reason: e.reason, wasClean: e.wasClean }
    kick()
  }

  return {
    /** The state Go polls: 0 connecting, 1 open, 2 closed (frames may remain). */
    state: () => (closed ? 2 : opened ? 1 : 0),
    /** The close event's fields, once it came. */
    closeInfo: () => closed,
    subprotocol: () => ws.protocol,
    /**
     * Takes up to maxFrames waiting frames and at most maxBytes of their
     * UTF-8 (a first frame over maxBytes is taken alone and flagged). Returns
     * { bytes: Uint8Array, lens: Int32Array (negative: a binary frame of
     * -len-1 bytes), count, tooBig: byte length of a frame over limit, or 0 }.
     */
    take(maxFrames, maxBytes, limit) {
      let off = 0
      let count = 0
      const lens = new Int32Array(Math.min(maxFrames, frames.length - head))
      while (head < frames.length && count < lens.length) {
        const f = frames[head]
        let bin = false
        let src = f
        if (typeof f !== 'string') {
          bin = true
          src = new Uint8Array(f)
        }
        // A large frame travels alone, encoded at its exact size: a scratch
        // sized for the worst case (3 bytes per UTF-16 unit) would cost three
        // times its length in allocation and zeroing.
        if (bin ? src.length > LARGE : f.length > LARGE / 3) {
          if (count > 0) break // deliver what came before first
          const u8 = bin ? src : encoder.encode(f)
          frames[head++] = undefined
          this.compact()
          if (u8.length > limit) return { bytes: new Uint8Array(0), lens, count: 0, tooBig: u8.length }
          lens[0] = bin ? -u8.length - 1 : u8.length
          return { bytes: u8, lens: lens.subarray(0, 1), count: 1, tooBig: 0 }
        }
        const need = bin ? src.length : f.length * 3
        if (count > 0 && off + need > maxBytes) break
        if (off + need > scratch.length) {
          const grown = new Uint8Array(Math.max(off + need, scratch.length * 2))
          grown.set(scratch.subarray(0, off))
          scratch = grown
        }
        let n
        if (bin) {
          scratch.set(src, off)
          n = src.length
        } else {
          n = encoder.encodeInto(f, scratch.subarray(off)).written
        }
        lens[count++] = bin ? -n - 1 : n
        off += n
        frames[head++] = undefined
      }
      this.compact()
      const bytes = scratch.subarray(0, off)
      return { bytes, lens: lens.subarray(0, count), count, tooBig: 0 }
    },
    /** Asks for a wake() from a task of its own (Go yields to the page until then). */
    kick,
    /** Drops the taken frames' slots from the queue. */
    compact() {
      if (head === frames.length) {
        frames.length = 0
        head = 0
      } else if (head > 4096) {
        frames.splice(0, head)
        head = 0
      }
    },
    /** Frames waiting for take(). */
    waiting: () => frames.length - head,
    send(data) {
      ws.send(data)
    },
    readyState: () => ws.readyState,
    /** Go released wake: never call it again. */
    stop() {
      wake = null
      channel.port1.close()
    },
    close(code, reason) {
      if (code === undefined) ws.close()
      else ws.close(code, reason)
    },
  }
}
