/**
 * Child processes started off the event loop. `spawn` is synchronous up to the child's exec: libuv forks the whole
 * process, and a fork copies the page tables of Concord's heap — measured 2–50 ms per git on a server of 300–500 MB,
 * more under load, every one of it a stall of every stream and request. A worker thread does not help (the fork holds
 * the address space's lock, so the loop's own page faults wait for it: measured 66 ms stalls with a worker against 14
 * ms with a helper). So a small helper process, started once, forks for Concord: its fork costs ~2 ms, off this
 * process's loop.
 *
 * The helper is Concord's own program (this Node or Electron binary as Node, the code below, an empty environment):
 * it spawns exactly the file, arguments, folder and environment it is given, nothing from a workspace. The children
 * are in their own process groups (`detached`) as before; their pids are reported back, so signals and process groups
 * are handled here as for a direct spawn. When the helper cannot start or dies, calls fall back to a direct spawn (and
 * a dead helper's children are killed: nothing is left running that Concord no longer watches). The helper is not
 * referenced while nothing runs and ends with this process (its IPC channel closes): no shutdown step, and several
 * cores in one process (the tests) share it.
 *
 * spawnOffLoop returns a ChildProcess-shaped object with the events callers use ('spawn', 'error', 'exit', 'close';
 * stdout/stderr 'data', destroy), so a caller reads the same whichever way the child was started.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { createReadStream } from 'node:fs'

interface OffLoopOptions {
  cwd?: string
  env: Record<string, string>
  /** Own process group (setsid): the whole tree can be signalled with -pid. */
  detached?: boolean
  /** stdin is a pipe (write, endInput); else it is closed. */
  input?: boolean
  /** A long-lived child (a batch process) that must not keep this process running. */
  background?: boolean
  /** stdin is this file from byte `start` on, streamed by the helper (a bundle's pack): nothing passes this loop. */
  inputFile?: { path: string; start: number }
}

/** The part of a ChildProcess the callers use. */
export interface OffLoopChild {
  /** Known from the 'spawn' event on. */
  pid: number | undefined
  stdout: OffLoopStream
  stderr: OffLoopStream
  /** To stdin, with `input`: text, or bytes (they cross to the helper as they are, by structured clone). */
  write(data: string | Uint8Array): void
  endInput(): void
  on(event: 'spawn', listener: () => void): this
  on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): this
  on(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this
}

interface OffLoopStream {
  on(event: 'data', listener: (chunk: Buffer) => void): this
  destroy(): void
}

type ToHelper =
  | {
      t: 'spawn'
      id: number
      file: string
      args: string[]
      cwd?: string
      env: Record<string, string>
      detached: boolean
      input: boolean
      inputFile?: { path: string; start: number }
    }
  | { t: 'destroy' | 'end'; id: number }
  | { t: 'write'; id: number; data: string | Uint8Array }

type FromHelper =
  | { t: 'spawn'; id: number; pid: number }
  | { t: 'data'; id: number; fd: 1 | 2; data: Uint8Array }
  | { t: 'error'; id: number; code?: string; message: string }
  | { t: 'exit' | 'close'; id: number; code: number | null; signal: NodeJS.Signals | null }

/** The helper: plain CommonJS, Node built-ins only, so it runs from any build (Electron, the CLI bundle, tests). */
const HELPER = `
const { spawn } = require('node:child_process')
const { createReadStream } = require('node:fs')
const children = new Map()
const send = (m) => { try { process.send(m) } catch {} }
process.on('disconnect', () => process.exit(0))
const pipeFile = (f, to) => createReadStream(f.path, { start: f.start }).on('error', () => to.destroy()).pipe(to)
process.on('message', (m) => {
  if (m.t !== 'spawn') {
    const c = children.get(m.id)
    if (!c) return
    if (m.t === 'destroy') { c.stdout.destroy(); c.stderr.destroy() }
    else if (m.t === 'write') c.stdin && c.stdin.write(m.data)
    else if (m.t === 'end') c.stdin && c.stdin.end()
    return
  }
  let c
  try {
    c = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, detached: m.detached, stdio: [m.input || m.inputFile ? 'pipe' : 'ignore', 'pipe', 'pipe'], windowsHide: true })
    if (c.stdin) c.stdin.on('error', () => {})
    if (m.inputFile) pipeFile(m.inputFile, c.stdin)
  } catch (e) {
    send({ t: 'error', id: m.id, code: e.code, message: e.message })
    send({ t: 'close', id: m.id, code: null, signal: null })
    return
  }
  children.set(m.id, c)
  c.on('spawn', () => send({ t: 'spawn', id: m.id, pid: c.pid }))
  c.stdout.on('data', (d) => send({ t: 'data', id: m.id, fd: 1, data: d }))
  c.stderr.on('data', (d) => send({ t: 'data', id: m.id, fd: 2, data: d }))
  c.on('error', (e) => send({ t: 'error', id: m.id, code: e.code, message: e.message }))
  c.on('exit', (code, signal) => send({ t: 'exit', id: m.id, code, signal }))
  c.on('close', (code, signal) => { children.delete(m.id); send({ t: 'close', id: m.id, code, signal }) })
})
`

class HelperChild extends EventEmitter implements OffLoopChild {
  pid: number | undefined
  readonly stdout: OffLoopStream & EventEmitter
  readonly stderr: OffLoopStream & EventEmitter
  destroyed = false

  constructor(
    readonly id: number,
    readonly background: boolean,
    private readonly post: (m: ToHelper) => void,
  ) {
    super()
    const destroy = () => post({ t: 'destroy', id })
    const stream = (): OffLoopStream & EventEmitter =>
      Object.assign(new EventEmitter(), {
        destroy: () => {
          this.destroyed = true
          destroy()
        },
      })
    this.stdout = stream()
    this.stderr = stream()
  }

  write(data: string | Uint8Array): void {
    this.post({ t: 'write', id: this.id, data })
  }

  endInput(): void {
    this.post({ t: 'end', id: this.id })
  }
}

class Spawner {
  private helper: ChildProcess | null = null
  private readonly children = new Map<number, HelperChild>()
  private next = 1
  /** Set when the helper could not be started: direct spawns from then on. */
  private broken = false

  spawn(file: string, args: string[], opts: OffLoopOptions): OffLoopChild {
    const helper = this.broken ? null : this.ensureHelper()
    if (!helper) return directSpawn(file, args, opts)
    const id = this.next++
    const child = new HelperChild(id, opts.background ?? false, (m) => this.post(m))
    this.children.set(id, child)
    this.reference()
    this.post({
      t: 'spawn',
      id,
      file,
      args,
      cwd: opts.cwd,
      env: opts.env,
      detached: opts.detached ?? false,
      input: opts.input ?? false,
      inputFile: opts.inputFile,
    })
    return child
  }

  private post(m: ToHelper): void {
    try {
      this.helper?.send(m)
    } catch {
      // the helper is gone: its 'exit' settles the children
    }
  }

  private ensureHelper(): ChildProcess | null {
    if (this.helper) return this.helper
    let h: ChildProcess
    try {
      // This process's own binary as Node (Electron needs ELECTRON_RUN_AS_NODE), with nothing from the environment.
      h = spawn(process.execPath, ['-e', HELPER], {
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
        serialization: 'advanced',
        env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
        windowsHide: true,
      })
    } catch {
      this.broken = true
      return null
    }
    this.helper = h
    // The helper must not keep Concord (or a test) running; its children's events keep it referenced while they run.
    h.unref()
    const channel = h.channel as { unref?: () => void } | undefined
    channel?.unref?.()
    h.on('message', (m: FromHelper) => this.receive(m))
    h.on('error', () => {
      if (h.pid) return
      this.broken = true
      if (this.helper === h) this.helper = null
      this.orphaned()
    })
    h.on('exit', () => {
      if (this.helper === h) this.helper = null
      this.orphaned()
    })
    return h
  }

  private receive(m: FromHelper): void {
    const c = this.children.get(m.id)
    if (!c) return
    if (m.t === 'spawn') {
      c.pid = m.pid
      c.emit('spawn')
    } else if (m.t === 'data') {
      if (!c.destroyed)
        (m.fd === 1 ? c.stdout : c.stderr).emit(
          'data',
          Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength),
        )
    } else if (m.t === 'error') {
      c.emit('error', Object.assign(new Error(m.message), { code: m.code }))
    } else if (m.t === 'exit') {
      c.emit('exit', m.code, m.signal)
    } else {
      this.children.delete(m.id)
      this.reference()
      c.emit('close', m.code, m.signal)
    }
  }

  /** While a child runs, the helper's channel keeps this process alive, as a direct child's pipes would. */
  private reference(): void {
    const channel = this.helper?.channel as { ref?: () => void; unref?: () => void } | undefined
    if ([...this.children.values()].some((c) => !c.background)) channel?.ref?.()
    else channel?.unref?.()
  }

  /** The helper died: its children are killed (nobody would read them any more) and their callers told. */
  private orphaned(): void {
    const left = [...this.children.values()]
    this.children.clear()
    for (const c of left) {
      if (c.pid) {
        try {
          process.kill(-c.pid, 'SIGKILL')
        } catch {
          try {
            process.kill(c.pid, 'SIGKILL')
          } catch {
            // already gone
          }
        }
      }
      c.emit('error', Object.assign(new Error('the process helper stopped'), { code: 'EHELPER' }))
      c.emit('close', null, 'SIGKILL')
    }
  }
}

function directSpawn(file: string, args: string[], opts: OffLoopOptions): OffLoopChild {
  const child = spawn(file, args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: opts.detached ?? false,
    stdio: [opts.input || opts.inputFile ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    windowsHide: true,
  })
  child.stdin?.on('error', () => {})
  if (opts.inputFile && child.stdin) {
    const to = child.stdin
    createReadStream(opts.inputFile.path, { start: opts.inputFile.start })
      .on('error', () => to.destroy())
      .pipe(to)
  }
  if (opts.background) {
    child.unref()
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as { unref?: () => void } | null)?.unref?.()
  }
  return Object.assign(child, {
    write: (data: string | Uint8Array) => void child.stdin?.write(data),
    endInput: () => void child.stdin?.end(),
  }) as unknown as OffLoopChild
}

const spawner = new Spawner()

/** Starts `file` with `args` off the event loop (see above); stdout and stderr are pipes, stdin one with `input`. */
export function spawnOffLoop(file: string, args: string[], opts: OffLoopOptions): OffLoopChild {
  return spawner.spawn(file, args, opts)
}
