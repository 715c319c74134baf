/**
 * The program that starts a member's agent on a runner, as a `node -e` source (nothing of Concord's is installed
 * there). Its first line of stdin says what to start — the program, its folder, its environment with the member's key
 * — so that the key travels only inside the channel and reaches only the agent's process environment: never a file
 * on the runner, never a command line. The rest of stdin is the agent's (ACP); its stdout and stderr are the agent's.
 *
 * The agent runs in its own process group, which the launcher ends when the channel closes (stdin ends: Concord
 * stopped the member, or the connection dropped), when it is told to stop, or when the agent exits: nothing it
 * started is left running. A launcher of the same member still running from a connection that dropped without the
 * runner noticing is ended first (its pid file, checked to be a launcher's).
 */

/** What the launcher's first line holds. */
export interface LaunchSpec {
  argv: string[]
  /** Relative to the runner's home, or absolute. */
  cwd: string
  env: Record<string, string>
  /** Variables set to a folder of the member's own under the runner's home (an isolated home): name → folder. */
  homes: Record<string, string>
  /** The pid file of this member's launcher, relative to the runner's home. */
  pidFile: string
  /**
   * Bubblewrap on the runner, when it has it: the agent sees the runner's files read-only and writes only its tree
   * (unless `readOnly`), these folders (relative to the home: its own state) and a /tmp of its own; network stays on
   * (the agent needs its model). Null: it runs as the login, unconfined.
   */
  sandbox: { bwrap: string; writable: string[]; readOnly: boolean } | null
  /** Files the launcher removes when it ends (the forwarded socket), relative to the runner's home or absolute. */
  leaves: string[]
}

/** The word in the launcher's command line that marks it as one (what the next launcher checks before ending it). */
export const LAUNCHER_MARK = 'concord-launcher'

/** The exit code and the message when the agent's program is not on the runner. */
export const NOT_FOUND_EXIT = 127

export const LAUNCHER_SOURCE = `
const cp = require('node:child_process'), fs = require('node:fs'), path = require('node:path')
const home = process.env.HOME || '/'
let head = Buffer.alloc(0)
const onData = (chunk) => {
  head = Buffer.concat([head, chunk])
  const nl = head.indexOf(10)
  if (nl < 0) { if (head.length > 1 << 20) process.exit(2); return }
  process.stdin.off('data', onData)
  process.stdin.pause()
  start(JSON.parse(head.subarray(0, nl).toString('utf8')), head.subarray(nl + 1))
}
process.stdin.on('data', onData)
process.stdin.on('end', () => { if (!started) process.exit(0) })
let started = false
function endEarlier(pidFile) {
  try {
    const [launcher, group] = fs.readFileSync(pidFile, 'utf8').trim().split(' ').map(Number)
    const cmd = fs.readFileSync('/proc/' + launcher + '/cmdline', 'utf8')
    if (cmd.includes('${LAUNCHER_MARK}')) {
      try { process.kill(-group, 'SIGKILL') } catch {}
      try { process.kill(launcher, 'SIGKILL') } catch {}
    }
  } catch {}
}
function start(spec, rest) {
  started = true
  const pidFile = path.resolve(home, spec.pidFile)
  fs.mkdirSync(path.dirname(pidFile), { recursive: true, mode: 0o700 })
  endEarlier(pidFile)
  const env = { ...process.env, ...spec.env }
  for (const [k, dir] of Object.entries(spec.homes)) {
    const p = path.resolve(home, dir)
    fs.mkdirSync(p, { recursive: true, mode: 0o700 })
    env[k] = p
  }
  const cwd = path.resolve(home, spec.cwd)
  // Looked for first: inside bubblewrap a missing program is bubblewrap's failure.
  const runnable = (p) => { try { fs.accessSync(p, fs.constants.X_OK); return fs.statSync(p).isFile() } catch { return false } }
  const program = spec.argv[0]
  const found = program.includes('/') ? runnable(path.resolve(cwd, program))
    : (env.PATH || '').split(':').some((d) => d && runnable(path.join(d, program)))
  if (!found) {
    process.stderr.write('concord: ' + program + ': not found on this host\\n')
    process.exit(${NOT_FOUND_EXIT})
  }
  let argv = spec.argv
  if (spec.sandbox) {
    const binds = []
    for (const w of spec.sandbox.writable) {
      const p = path.resolve(home, w)
      if (!w.endsWith('.json')) fs.mkdirSync(p, { recursive: true, mode: 0o700 })
      if (fs.existsSync(p)) binds.push('--bind', p, p)
    }
    for (const k of Object.keys(spec.homes)) binds.push('--bind', env[k], env[k])
    // The forwarded socket's folder: the agent connects to Concord's tools there.
    for (const f of spec.leaves) binds.push('--bind', path.dirname(path.resolve(home, f)), path.dirname(path.resolve(home, f)))
    argv = [spec.sandbox.bwrap, '--die-with-parent', '--unshare-all', '--share-net', '--ro-bind', '/', '/',
      '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...binds,
      spec.sandbox.readOnly ? '--ro-bind' : '--bind', cwd, cwd, '--chdir', cwd, '--', ...argv]
  }
  const child = cp.spawn(argv[0], argv.slice(1), {
    cwd, env, stdio: ['pipe', 'inherit', 'inherit'], detached: true,
  })
  child.on('error', (e) => {
    process.stderr.write('concord: ' + spec.argv[0] + ': ' + (e.code === 'ENOENT' ? 'not found on this host' : e.message) + '\\n')
    process.exit(${NOT_FOUND_EXIT})
  })
  if (!child.pid) return
  fs.writeFileSync(pidFile, process.pid + ' ' + child.pid + '\\n', { mode: 0o600 })
  child.stdin.on('error', () => {})
  if (rest.length) child.stdin.write(rest)
  process.stdin.pipe(child.stdin)
  process.stdin.resume()
  const group = (sig) => { try { process.kill(-child.pid, sig) } catch {} }
  const stop = () => {
    group('SIGTERM')
    setTimeout(() => {
      group('SIGKILL')
      for (const f of spec.leaves) try { fs.rmSync(path.resolve(home, f), { force: true }) } catch {}
      process.exit(0)
    }, 2000).unref()
  }
  process.stdin.on('end', stop)
  for (const s of ['SIGHUP', 'SIGTERM', 'SIGINT']) process.on(s, stop)
  child.on('exit', (code, signal) => {
    group('SIGKILL')
    try { if (fs.readFileSync(pidFile, 'utf8').startsWith(process.pid + ' ')) fs.rmSync(pidFile) } catch {}
    for (const f of spec.leaves) try { fs.rmSync(path.resolve(home, f), { force: true }) } catch {}
    process.exit(code ?? (signal ? 1 : 0))
  })
}
`
