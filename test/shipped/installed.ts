/**
 * The shipped suite's own helpers: Concord as a user gets it (`npm pack`, then `npm install ./concord-*.tgz` in an
 * empty folder, the agents with `npm i -g` as the README says), `concord serve` started from that installation, and
 * a client that speaks only its HTTP API and event WebSocket. Nothing here imports the project's sources.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import WebSocket from 'ws'
import { agentPackages } from '../fixtures/agent-cli'

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const run = promisify(execFile)
/** PATH without this checkout's folders (`npm test` puts its node_modules/.bin first, where the agents are too). */
const userPath = (process.env.PATH ?? '/usr/bin:/bin')
  .split(':')
  .filter((p) => p && !p.startsWith(projectRoot))
  .join(':')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

function newestMtime(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path))
    if (entry !== 'node_modules') newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

/** out/ is what the package ships: build it when a part is missing or older than the sources (CI built it already). */
export function ensureBuilt(): void {
  const built = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/cli/concord.js'].map(
    (f) => join(projectRoot, f),
  )
  const sources = Math.max(
    ...['electron', 'shared', 'renderer', 'bin', 'package.json'].map((p) => newestMtime(join(projectRoot, p))),
  )
  if (built.every((f) => existsSync(f) && statSync(f).mtimeMs >= sources)) return
  execFileSync(npm, ['run', 'build'], {
    cwd: projectRoot,
    stdio: 'pipe',
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  })
}

export interface Installation {
  /** The user's folder the tarball was installed into. */
  dir: string
  /** The installed package's bin (node_modules/.bin/concord links to it). */
  bin: string
  /** PATH with the agents' global prefix first, as after `npm i -g`. */
  path: string
  /** Seconds for npm pack and for the two installs (run side by side). */
  seconds: { pack: number; install: number }
}

/** npm pack the project, install the tarball into `<base>/user` and the agents globally into `<base>/global`. */
export async function installShipped(base: string): Promise<Installation> {
  const dir = join(base, 'user')
  const global = join(base, 'global')
  mkdirSync(dir, { recursive: true })
  mkdirSync(global, { recursive: true })
  let t = Date.now()
  const packed = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', base], {
    cwd: projectRoot,
    maxBuffer: 64 * 1024 * 1024,
  })
  const tarball = join(base, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename)
  const pack = (Date.now() - t) / 1000
  const dev = (
    JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
  ).devDependencies
  const agents = [
    ...['@zed-industries/claude-agent-acp', '@zed-industries/codex-acp', '@google/gemini-cli'].map(
      (n) => `${n}@${dev[n]}`,
    ),
    ...Object.entries(agentPackages).map(([n, v]) => `${n}@${v}`),
  ]
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'a-user', private: true }))
  // None of the npm settings `npm test` passes down (npm_config_local_prefix is this checkout): a user's install knows
  // nothing of it. The local npm cache first; the registry for what it lacks.
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'INIT_CWD'),
  )
  Object.assign(env, {
    PATH: userPath,
    ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  })
  t = Date.now()
  const options = { env, maxBuffer: 64 * 1024 * 1024, timeout: 20 * 60_000 }
  await Promise.all([
    run(npm, ['install', tarball], { ...options, cwd: dir }),
    run(npm, ['install', '-g', '--prefix', global, ...agents], { ...options, cwd: base }),
  ])
  const install = (Date.now() - t) / 1000
  const bin = join(dir, 'node_modules', 'concord', 'bin', 'concord.js')
  if (!existsSync(join(dir, 'node_modules', '.bin', 'concord')))
    throw new Error('npm install did not link the concord command')
  return { dir, bin, path: `${join(global, 'bin')}:${userPath}`, seconds: { pack, install } }
}

/** The installed `concord` with these arguments, to its end. */
export async function concord(
  inst: Installation,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [inst.bin, ...args], {
      cwd,
      env: { ...process.env, PATH: inst.path, ...env },
    })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

export interface Envelope {
  event: string
  payload: any
}

export interface Served {
  url: string
  port: number
  token: string
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  call<T = any>(method: string, params: object): Promise<T>
  /** Resolves with the first event (from now on) that matches; rejects after timeoutMs. */
  waitForEvent(match: (e: Envelope) => boolean, timeoutMs?: number): Promise<Envelope>
  stop(): Promise<void>
}

/** A POST /api/<method> that throws the API's error (with its code) on failure. */
export async function apiCall<T>(port: number, token: string, method: string, params: object): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  })
  const body = (await res.json()) as { ok: boolean; value?: T; error?: { code: string; message: string } }
  if (!body.ok)
    throw Object.assign(new Error(`${method}: ${body.error?.code}: ${body.error?.message}`), { code: body.error?.code })
  return body.value as T
}

/** `concord serve` from the installation on a port of its own; resolves once it serves and its event socket is open. */
export async function serve(inst: Installation, dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const token = `shipped-${Math.random().toString(36).slice(2)}-${Date.now()}`
  const child = spawn(process.execPath, [inst.bin, 'serve', '--port', '0', '--data-dir', dataDir, `--token=${token}`], {
    cwd: inst.dir,
    env: { ...process.env, PATH: inst.path, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
  const url = await new Promise<string>((ok, fail) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8')
      const m = /Concord serving on (\S+)/.exec(out)
      if (m) ok(m[1]!)
    })
    child.once('exit', (code) => fail(new Error(`concord serve exited (${code}) before serving: ${err || out}`)))
  })
  const port = Number(new URL(url).port)
  const ws = new WebSocket(`ws://127.0.0.1:${port}/events?token=${encodeURIComponent(token)}`)
  await new Promise<void>((ok, fail) => {
    ws.once('open', () => ok())
    ws.once('error', fail)
  })
  const waiters = new Set<(e: Envelope) => void>()
  ws.on('message', (data: Buffer) => {
    const e = JSON.parse(data.toString()) as Envelope
    for (const w of [...waiters]) w(e)
  })
  return {
    url,
    port,
    token,
    child,
    stdout: () => out,
    stderr: () => err,
    call: (method, params) => apiCall(port, token, method, params),
    waitForEvent(match, timeoutMs = 90_000) {
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => {
          waiters.delete(w)
          fail(new Error(`no matching event within ${timeoutMs} ms`))
        }, timeoutMs)
        const w = (e: Envelope) => {
          if (!match(e)) return
          clearTimeout(timer)
          waiters.delete(w)
          ok(e)
        }
        waiters.add(w)
      })
    },
    async stop() {
      ws.terminate()
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((ok) => child.once('exit', ok))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** A git repository with one commit, the way a user's project starts. */
export function gitRepo(dir: string): string {
  mkdirSync(dir, { recursive: true })
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=User', '-c', 'user.email=user@example.com', ...args], {
      cwd: dir,
      stdio: 'pipe',
    })
  git('init', '-q', '-b', 'main')
  writeFileSync(join(dir, 'README.md'), '# Shop\n')
  git('add', '.')
  git('commit', '-qm', 'start')
  return dir
}
