/**
 * One Concord per data folder (issue 19). A second `concord serve` on a folder another one uses would take the
 * first one's live turn for a crash's leftovers: it refuses to start instead, with data_dir_locked naming the pid.
 * A lock whose process is gone, or whose pid now belongs to another process, is taken over.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import { LOCK_FILE } from '../../electron/main/platform/data-dir-lock'
import { processStartTime } from '../../electron/main/platform/process-records'
import { initRepo, rejectsWith } from '../fixtures/core'
import { apiClient, memberMidTurn, startServe } from '../fixtures/http'
import { startModelServer, type ModelServer } from '../fixtures/model-server'

const projectRoot = join(import.meta.dirname, '..', '..')
const bin = join(projectRoot, 'bin', 'concord.js')
const TOKEN = 'data-dir-lock-test-token'

let root = ''
let dataDir = ''
let children: ChildProcess[] = []
let server: ModelServer | null = null

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'concord-lock-'))
  dataDir = join(root, 'data')
  children = []
})
afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await server?.close()
  server = null
  rmSync(root, { recursive: true, force: true })
})

/** `concord serve` on the data folder, as a child process the test ends. */
function serve(): { child: ChildProcess; url: Promise<string> } {
  const served = startServe(dataDir, TOKEN, { cwd: root, env: { ...process.env, CONCORD_DATA_DIR: '' } })
  children.push(served.child)
  return served
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: { ...process.env, CONCORD_DATA_DIR: '' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        done({
          code: err
            ? typeof (err as { code?: unknown }).code === 'number'
              ? (err as { code: number }).code
              : null
            : 0,
          stdout,
          stderr,
        })
      },
    )
  })
}

/** A pid no process has any more: a child that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const c = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((r) => c.once('exit', r))
  return c.pid!
}

describe('one Concord per data folder', { timeout: 90_000 }, () => {
  it('a second concord serve on the folder exits 1 with data_dir_locked and leaves the first one’s streaming turn alone', async () => {
    const repo = join(root, 'repo')
    mkdirSync(repo)
    initRepo(repo)
    server = await startModelServer()
    const first = serve()
    const base = await first.url
    const api = apiClient(base, TOKEN)
    const m = await memberMidTurn(api, repo, server, {
      text: 'A long answer that is still streaming',
      hang: true,
      chunkSize: 4,
      chunkDelayMs: 5,
    })
    await expect
      .poll(
        async () =>
          (await api('sessions.get', { memberId: m.id })).steps.find((s: { kind: string }) => s.kind === 'model')
            ?.status,
      )
      .toBe('streaming')

    // The second one: it must stop on its own; if it starts serving (before the fix it did, after killing the
    // first one's command and marking its turn interrupted), it is stopped and the test fails below.
    const started = serve()
    const second = await started.url.then(
      () => ({ served: true, code: null as number | null, out: '' }),
      (err: unknown) => ({ served: false, code: started.child.exitCode, out: (err as Error).message }),
    )
    if (second.served) started.child.kill('SIGTERM')
    expect(second.served).toBe(false)
    expect(second.code).toBe(1)
    expect(second.out).toContain(`concord: data_dir_locked: another Concord (pid ${first.child.pid}) uses ${dataDir}`)

    const lock = join(dataDir, LOCK_FILE)
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(first.child.pid)
    expect(statSync(lock).mode & 0o777).toBe(0o600)

    // The first one's turn is still live: not marked interrupted, and it still answers.
    const page = await api('sessions.get', { memberId: m.id })
    expect(page.steps.map((s: { kind: string; status: string }) => [s.kind, s.status])).toEqual([
      ['user', 'done'],
      ['model', 'streaming'],
    ])
    expect(page.state).not.toBe('idle')
    // A transient command (export) on the same folder still runs beside it.
    const exported = await run([
      'export',
      '--repo',
      repo,
      '--format',
      'json',
      '--out',
      join(root, 'out'),
      '--data-dir',
      dataDir,
    ])
    expect(exported.code).toBe(0)

    // A clean stop releases the lock; the next serve starts.
    first.child.kill('SIGTERM')
    await new Promise((r) => first.child.once('exit', r))
    expect(() => statSync(lock)).toThrow()
    const third = serve()
    await third.url
  })

  it('takes over the lock of a process that is gone, or of a pid now used by another process', async () => {
    mkdirSync(dataDir, { recursive: true })
    const lock = join(dataDir, LOCK_FILE)
    const gone = await deadPid()
    writeFileSync(
      lock,
      JSON.stringify({ pid: gone, startTime: '12345', token: 'old', startedAt: '2026-01-01T00:00:00Z' }),
    )
    let core = createCore({ dataDir })
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid)
    await core.close()
    expect(() => statSync(lock)).toThrow()

    // A live process whose start time differs from the recorded one: the pid was reused; it is not a Concord.
    const bystander = spawn('sleep', ['60'], { stdio: 'ignore' })
    children.push(bystander)
    await new Promise((r) => bystander.once('spawn', r))
    expect(processStartTime(bystander.pid!)).toBeDefined()
    writeFileSync(
      lock,
      JSON.stringify({ pid: bystander.pid, startTime: '1', token: 'reused', startedAt: '2026-01-01T00:00:00Z' }),
    )
    core = createCore({ dataDir })
    expect(JSON.parse(readFileSync(lock, 'utf8')).token).not.toBe('reused')
    await core.close()
    expect(bystander.exitCode).toBeNull()

    // A damaged lock (empty) is stale too.
    writeFileSync(lock, '')
    core = createCore({ dataDir })
    await core.close()
  })

  it('a live holder refuses a second core, a transient one runs beside it, and a failed start releases the lock', async () => {
    const first = createCore({ dataDir })
    try {
      expect(() => createCore({ dataDir })).toThrow(
        expect.objectContaining({
          code: 'data_dir_locked',
          message: expect.stringContaining(`another Concord (pid ${process.pid}) uses ${dataDir}`),
        }),
      )
      const transient = createCore({ dataDir, transient: true })
      expect(await transient.invoke('workspaces.list', {})).toEqual([])
      await transient.close()
      // The transient core's close did not remove the holder's lock.
      expect(() => createCore({ dataDir })).toThrow(expect.objectContaining({ code: 'data_dir_locked' }))
    } finally {
      await first.close()
    }
    // A live holder with the recorded start time (this process) is never taken over, whatever its token.
    writeFileSync(
      join(dataDir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, startTime: processStartTime(process.pid), token: 'x', startedAt: '' }),
    )
    await rejectsWith(
      Promise.resolve().then(() => createCore({ dataDir })),
      'data_dir_locked',
    )
    rmSync(join(dataDir, LOCK_FILE))
    // A start that fails after taking the lock (a damaged registry) leaves no lock behind.
    writeFileSync(
      join(dataDir, 'concord.sqlite'),
      'not a database, just text long enough to be read as a damaged header '.repeat(20),
    )
    expect(() => createCore({ dataDir })).toThrow(expect.objectContaining({ code: 'storage_corrupt' }))
    expect(() => statSync(join(dataDir, LOCK_FILE))).toThrow()
  })
})
