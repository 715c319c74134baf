/**
 * run_command in the OS sandbox, with real bubblewrap and real processes: allow-listed environment, read-only file
 * system outside the workspace, hidden data folder, network off unless allowed, nothing outliving the command or
 * Concord. A second Node process stands in for Concord where the test needs to kill it, or to turn the sandbox off.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommandTool } from '../../electron/main/runtime/tools/command-tool'
import { parseArgs } from '../../electron/main/runtime/tools/tool-helpers'
import { assertAllowedEnv } from '../../electron/main/platform/command-env'
import { sandboxStatus } from '../../electron/main/platform/sandbox/status'
import { killRecordedGroup, processStartTime } from '../../electron/main/platform/process-records'
import { ToolError } from '../../electron/main/platform/tool-error'
import type { ProcessInfo, SandboxPolicy } from '../../electron/main/platform/sandbox-policy'
import type { ToolContext } from '../../electron/main/runtime/tools/types'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'

let base: string // under /tmp: workspace and scratch
let outer: string // outside /tmp (the private /tmp must not be what hides the data folder): the data folder's parent
let root: string
let dataDir: string
let scratchDir: string

const SECRETS = {
  OPENAI_API_KEY: 'sk-openai-leak-check',
  ANTHROPIC_API_KEY: 'sk-ant-leak-check',
  CONCORD_TOKEN: 'bridge-token-leak-check',
}
const saved: Record<string, string | undefined> = {}

function ctx(policy: SandboxPolicy = {}, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    workspaceRoot: root,
    signal: new AbortController().signal,
    sandbox: { dataDir, scratchDir, ...policy },
    ...extra,
  }
}

const run = (command: string, c: ToolContext = ctx()): Promise<string> =>
  runCommandTool.run(parseArgs(runCommandTool.args, { command }, 'run_command'), c)

async function expectToolError(p: Promise<unknown>, code: string): Promise<ToolError> {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError)
    expect((err as ToolError).code).toBe(code)
    return err as ToolError
  }
  throw new Error(`expected ToolError ${code}, but the call succeeded`)
}

/** Live (non-zombie) processes whose command line contains `token`. */
function processesWith(token: string): number[] {
  const found: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue
    try {
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ')
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      if (cmdline.includes(token) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(d))
    } catch {
      // exited while we looked
    }
  }
  return found
}

/** Polls an observable condition (a file, a process table) until it holds; fails after `tries` polls. */
async function until(what: string, cond: () => boolean, tries = 600): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`timed out waiting until ${what}`)
}

const token = (): string => `${600 + Math.floor(Math.random() * 300)}.${Math.floor(Math.random() * 1e6)}`

/**
 * A second Node process standing in for Concord: runs run_command with the given context and prints one JSON line
 * per event (`started` from onProcess, then `result` or `error`).
 */
async function startWorker(
  command: string,
  sandbox: SandboxPolicy,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; lines: () => any[]; exited: Promise<number | null> }> {
  const script = path.join(base, 'worker.mts')
  if (!existsSync(script)) {
    const toolPath = path.resolve('electron/main/runtime/tools/command-tool.ts')
    await writeFile(
      script,
      `import { runCommandTool } from ${JSON.stringify(toolPath)}
const [command, root, policy] = process.argv.slice(2)
const say = (o: unknown) => process.stdout.write(JSON.stringify(o) + '\\n')
const ctx = { workspaceRoot: root, signal: new AbortController().signal, sandbox: JSON.parse(policy),
  onProcess: (info: unknown) => { say({ started: info }); return () => say({ ended: true }) } }
try { say({ result: await runCommandTool.run({ command }, ctx) }) } catch (e: any) { say({ error: { code: e.code, message: e.message } }) }
`,
    )
  }
  const child = spawn(process.execPath, ['--import', 'tsx', script, command, root, JSON.stringify(sandbox)], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const lines = (): any[] =>
    out
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => JSON.parse(l))
  return { child, lines, exited }
}

fileNeedsSandbox()

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'concord-sandbox-')))
  outer = await realpath(await mkdtemp(path.join('/var/tmp', 'concord-sandbox-data-')))
  root = path.join(base, 'repo')
  dataDir = path.join(outer, 'data')
  scratchDir = path.join(base, 'scratch', 'member-1')
  await mkdir(root, { recursive: true })
  await mkdir(path.join(dataDir, 'workspaces'), { recursive: true })
  await writeFile(path.join(dataDir, 'secrets.json'), '{"member-1":"sk-stored-secret"}\n')
  for (const [k, v] of Object.entries(SECRETS)) {
    saved[k] = process.env[k]
    process.env[k] = v
  }
})

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  await rm(base, { recursive: true, force: true })
  await rm(outer, { recursive: true, force: true })
})

describe('sandbox status', () => {
  it('reports bubblewrap as the sandbox on this Linux machine', async () => {
    expect(await sandboxStatus()).toEqual({ available: true, kind: 'bwrap' })
  })
})

describe('environment', () => {
  it('passes no server secret to a command, and HOME and TMPDIR are the member scratch folders', async () => {
    const out = await run('env', ctx({ env: { BUILD_MODE: 'fast' } }))
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(out).not.toContain(name)
      expect(out).not.toContain(value)
    }
    expect(out).not.toMatch(/^CONCORD_/m)
    const vars = Object.fromEntries(
      out
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    )
    expect(vars.HOME).toBe(path.join(scratchDir, 'home'))
    expect(vars.TMPDIR).toBe(path.join(scratchDir, 'tmp'))
    expect(vars.BUILD_MODE).toBe('fast')
    expect(vars.GIT_TERMINAL_PROMPT).toBe('0')
    expect(vars.PATH).toBe(process.env.PATH)
  })

  it('refuses workspace variables that look like secrets or would undo the sandbox, before running anything', async () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GH_TOKEN',
      'MY_SECRET',
      'AWS_SECRET_ACCESS_KEY',
      'CONCORD_DATA_DIR',
      'HOME',
      'TMPDIR',
      'GIT_DIR',
    ]) {
      const err = await expectToolError(run('touch refused-ran', ctx({ env: { [name]: 'x' } })), 'env_refused')
      expect(err.message).toContain(name)
    }
    expect(existsSync(path.join(root, 'refused-ran'))).toBe(false)
    expect(() => assertAllowedEnv({ NODE_ENV: 'test', RUST_LOG: 'debug' })).not.toThrow()
    expect(() => assertAllowedEnv({ 'BAD-NAME': 'x' })).toThrow(ToolError)
  })
})

describe('file system', () => {
  it('writes inside the workspace and the scratch home, and nowhere else', async () => {
    const target = `/etc/concord-sandbox-${process.pid}`
    const out = await run(
      `touch inside.txt && echo ws=ok; touch "$HOME/h.txt" && echo home=ok; touch ${target} || echo etc=refused; ` +
        `touch ${outer}/outside.txt || echo outer=refused; mkdir ${outer}/newdir || echo mkdir=refused`,
    )
    expect(out).toContain('ws=ok')
    expect(out).toContain('home=ok')
    expect(out).toContain('etc=refused')
    expect(out).toContain('outer=refused')
    expect(out).toContain('mkdir=refused')
    expect(out).toMatch(/Read-only file system/)
    expect(existsSync(path.join(root, 'inside.txt'))).toBe(true)
    expect(existsSync(path.join(scratchDir, 'home', 'h.txt'))).toBe(true)
    expect(existsSync(target)).toBe(false)
    expect(existsSync(path.join(outer, 'outside.txt'))).toBe(false)
    expect(existsSync(path.join(outer, 'newdir'))).toBe(false)
  })

  it('shows the data folder and hidden paths empty, even to root trying to unmount them', async () => {
    const hiddenFile = path.join(outer, 'notes.txt')
    await writeFile(hiddenFile, 'private notes\n')
    const out = await run(
      `echo "listing:[$(ls -A ${dataDir})]"; cat ${dataDir}/secrets.json || echo read=refused; echo "file:[$(cat ${hiddenFile})]"; ` +
        `umount ${dataDir} 2>/dev/null; cat ${dataDir}/secrets.json 2>/dev/null || echo still=hidden`,
      ctx({ hide: [hiddenFile] }),
    )
    expect(out).toContain('listing:[]')
    expect(out).toContain('read=refused')
    expect(out).toContain('file:[]')
    expect(out).toContain('still=hidden')
    expect(out).not.toContain('sk-stored-secret')
    expect(out).not.toContain('private notes')
    // And outside the sandbox the files are of course still there.
    expect(await readFile(path.join(dataDir, 'secrets.json'), 'utf8')).toContain('sk-stored-secret')
  })

  it('hides the real home: its credential folders and files, and everything else in it (deny by default, sandbox-home.test.ts)', async () => {
    // A second process whose real home (os.homedir(), from HOME) is a fake one with credentials in it.
    const home = path.join(outer, 'real-home')
    await mkdir(path.join(home, '.ssh'), { recursive: true })
    await mkdir(path.join(home, '.aws'), { recursive: true })
    await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n')
    await writeFile(path.join(home, '.aws', 'credentials'), 'aws_secret\n')
    await writeFile(path.join(home, '.netrc'), 'machine example.com password hunter2\n')
    await writeFile(path.join(home, 'notes.txt'), 'not a secret\n')
    const w = await startWorker(
      `echo "ssh:[$(ls -A ${home}/.ssh)] aws:[$(ls -A ${home}/.aws)] netrc:[$(cat ${home}/.netrc)]"; cat ${home}/notes.txt`,
      { dataDir, scratchDir },
      { HOME: home },
    )
    expect(await w.exited).toBe(0)
    const result = w.lines().find((l) => 'result' in l)?.result as string
    expect(result).toContain('ssh:[] aws:[] netrc:[]')
    expect(result).not.toContain('not a secret')
  }, 60_000)
})

describe('network', () => {
  let server: net.Server
  let port: number
  let connections = 0

  beforeAll(async () => {
    server = net.createServer((s) => {
      connections++
      s.end('hello from the host\n')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    port = (server.address() as net.AddressInfo).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const connect = (): string =>
    `${JSON.stringify(process.execPath)} -e "require('net').connect(${port}, '127.0.0.1')` +
    `.on('data', d => { console.log('CONNECTED ' + d); process.exit(0) }).on('error', e => { console.log('FAILED ' + e.code); process.exit(1) })"`

  it('is off by default: a server on the host loopback cannot be reached', async () => {
    const out = await run(connect())
    expect(out).toContain('FAILED')
    expect(out).toContain('[exit code: 1]')
    expect(connections).toBe(0)
  })

  it('is on for a member allowed the network', async () => {
    const out = await run(connect(), ctx({ network: true }))
    expect(out).toContain('CONNECTED hello from the host')
    expect(out).toContain('[exit code: 0]')
    expect(connections).toBe(1)
  })
})

describe('process lifetime', () => {
  it('a setsid background process does not outlive the command', async () => {
    // Were it to survive, it would write the marker after a second; the unique sleep marks it in the process table.
    const t = `1.${Math.floor(Math.random() * 1e6)}`
    const marker = path.join(root, `setsid-marker-${t}`)
    const out = await run(
      `setsid sh -c 'echo up > started-${t}; sleep ${t}; touch ${marker}' >/dev/null 2>&1 & ` +
        `while [ ! -e started-${t} ]; do sleep 0.01; done; echo background started`,
    )
    expect(out).toContain('background started')
    expect(out).toContain('[exit code: 0]')
    await until('the background process is gone', () => processesWith(t).length === 0)
    expect(existsSync(marker)).toBe(false)
  })

  it('the sandboxed command dies with Concord (its process SIGKILLed)', async () => {
    const t = token()
    const ready = path.join(root, `ready-${t}`)
    const w = await startWorker(`echo up > ${ready}; sleep ${t}`, { dataDir, scratchDir })
    // The worker's line saying it started can reach us after the command is visible: wait for both.
    await until(
      'the command runs and the worker said so',
      () => existsSync(ready) && processesWith(t).length > 0 && w.lines().some((l) => l.started),
    )
    const started = w.lines().find((l) => l.started)?.started as ProcessInfo
    expect(started.pid).toBeGreaterThan(0)
    w.child.kill('SIGKILL')
    expect(await w.exited).toBeNull()
    await until('the sandboxed command is gone', () => processesWith(t).length === 0)
    expect(processesWith(t)).toEqual([])
  }, 60_000)

  it('reports each command process to onProcess, and its end after it exits', async () => {
    const events: string[] = []
    let info: ProcessInfo | undefined
    const out = await run(
      'echo running',
      ctx(
        {},
        {
          onProcess: (i) => {
            info = i
            events.push('started')
            expect(processStartTime(i.pid)).toBe(i.startTime)
            return () => events.push('ended')
          },
        },
      ),
    )
    events.push('returned')
    expect(out).toContain('running')
    expect(events).toEqual(['started', 'ended', 'returned'])
    expect(info!.pgid).toBe(info!.pid)
    expect(info!.startTime).toMatch(/^\d+$/)
  })
})

describe('killRecordedGroup', () => {
  function leftover(command: string): { pid: number; startTime: string } {
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: 'ignore' })
    child.unref()
    return { pid: child.pid!, startTime: processStartTime(child.pid!)! }
  }

  it('kills a recorded group only while its leader is the same process', async () => {
    const t = token()
    const p = leftover(`sleep ${t}; true`)
    await until('the leftover runs', () => processesWith(t).length > 0)
    expect(killRecordedGroup(p.pid, p.pid, String(BigInt(p.startTime) - 1n))).toBe('different_process')
    expect(killRecordedGroup(p.pid, p.pid)).toBe('unverifiable')
    expect(processesWith(t).length).toBeGreaterThan(0)
    expect(killRecordedGroup(p.pid, p.pid, p.startTime)).toBe('killed')
    await until('the group is gone', () => processesWith(t).length === 0)
    expect(killRecordedGroup(p.pid, p.pid, p.startTime)).toBe('gone')
  })

  it('kills what is left of a group whose leader has exited', async () => {
    const t = token()
    const p = leftover(`sleep ${t} & exit 0`)
    await until(
      'the leader exited and the member runs',
      () => processStartTime(p.pid) === undefined && processesWith(t).length > 0,
    )
    expect(killRecordedGroup(p.pid, p.pid, p.startTime)).toBe('killed')
    await until('the member is gone', () => processesWith(t).length === 0)
  })
})

describe('without a sandbox', () => {
  it('still runs the command with the allow-listed environment and says plainly that it is not sandboxed', async () => {
    const w = await startWorker('echo hello; env', { dataDir, scratchDir }, { CONCORD_SANDBOX: 'off' })
    expect(await w.exited).toBe(0)
    const result = w.lines().find((l) => 'result' in l)?.result as string
    expect(result).toContain('hello')
    expect(result).toMatch(/\[not sandboxed: the sandbox is turned off \(CONCORD_SANDBOX=off\);/)
    expect(result).not.toContain(SECRETS.OPENAI_API_KEY)
    expect(result).not.toMatch(/^CONCORD_/m)
    expect(result).toContain(`HOME=${path.join(scratchDir, 'home')}`)
  }, 60_000)

  it('says nothing of the kind when sandboxed', async () => {
    expect(await run('echo hi')).not.toContain('not sandboxed')
  })
})
