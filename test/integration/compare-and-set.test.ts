/**
 * A decision edit is a compare-and-set on the decision's version (DESIGN §2, step 1).
 *
 * changeDecisionTx checks the version in JS and updateHead repeats it in SQL (`AND version = ?`), both
 * inside one IMMEDIATE transaction. Because SQLite's write lock serializes those transactions, either
 * check alone stops a lost update, so each is guarded separately: the repository test fails without the
 * SQL condition; the race fails when no comparison is left at all. The race is real: every worker reads
 * the version the way a client does, before any write transaction, and all are released together; a
 * late writer's transaction then starts after the winner's commit, where only a version comparison
 * stands between it and overwriting the winner.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import type { DecisionRow, RevisionRow } from '../../electron/main/store/decisions-repo'
import { WorkspaceStore } from '../../electron/main/store/workspace-store'
import { makeCore } from '../fixtures/core'

const repoRoot = join(import.meta.dirname, '..', '..')
const workerScript = join(repoRoot, 'test', 'fixtures', 'cas-worker.ts')

describe('decisions.updateHead (repository)', () => {
  it('writes nothing for a stale or unknown version and reports it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'concord-cas-'))
    const store = WorkspaceStore.open(join(dir, 'harness.sqlite'))
    try {
      const at = '2025-01-01T00:00:00.000Z'
      const head = (statement: string, fingerprint: string) => ({
        title: 'API style',
        statement,
        rationale: '',
        status: 'accepted' as const,
        fingerprint,
        updated_at: at,
      })
      const revision = (version: number, statement: string, fingerprint: string): RevisionRow => ({
        decision_id: id,
        version,
        title: 'API style',
        statement,
        rationale: '',
        status: 'accepted',
        content_hash: fingerprint,
        fingerprint,
        reason: '',
        actor_id: null,
        editorial: 0,
        source_message_id: null,
        created_at: at,
      })
      const id = store.decisions.insert({
        ...head('Use REST', 'fp-rest'),
        source_message_id: null,
        supersedes: null,
        created_by: null,
        created_at: at,
      })
      store.decisions.insertRevision(revision(1, 'Use REST', 'fp-rest'))
      // The editor that saw v1 gets its write: the decision is now at v2.
      expect(store.transaction(() => store.decisions.updateHead(id, 1, head('Use GraphQL', 'fp-graphql')))).toBe(true)
      store.decisions.insertRevision(revision(2, 'Use GraphQL', 'fp-graphql'))
      const row: DecisionRow = store.decisions.get(id)!
      const history = store.decisions.history(id)
      expect(row).toMatchObject({ version: 2, statement: 'Use GraphQL', fingerprint: 'fp-graphql' })

      // A second editor that also saw v1, and one claiming a version that does not exist yet.
      expect(store.transaction(() => store.decisions.updateHead(id, 1, head('Use gRPC', 'fp-grpc')))).toBe(false)
      expect(store.transaction(() => store.decisions.updateHead(id, 3, head('Use gRPC', 'fp-grpc')))).toBe(false)
      expect(store.decisions.get(id)).toEqual(row)
      expect(store.decisions.history(id)).toEqual(history)

      // The refusal is about the version, not the write: at v2 the same edit goes through.
      expect(store.transaction(() => store.decisions.updateHead(id, 2, head('Use gRPC', 'fp-grpc')))).toBe(true)
      expect(store.decisions.get(id)).toMatchObject({ version: 3, statement: 'Use gRPC' })
    } finally {
      store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

type WorkerLine =
  | { ready: true; version: number }
  | { won: true; version: number }
  | { won: false; code: string | null; message: string }
  | { unexpected: string }

interface Worker {
  child: ChildProcess
  /** The next JSON line the worker prints. */
  next(): Promise<WorkerLine>
  /** Releases the worker from its barrier. */
  release(): void
  exited: Promise<number | null>
}

/** Starts one editor process (test/fixtures/cas-worker.ts) on the shared data folder. */
function startWorker(args: { dataDir: string; decisionId: string; statement: string }): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', workerScript, JSON.stringify(args)], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const lines: WorkerLine[] = []
  const waiting: ((l: WorkerLine) => void)[] = []
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as WorkerLine
    const wake = waiting.shift()
    if (wake) wake(line)
    else lines.push(line)
  })
  // 'close' comes after the last line of stdout (unlike 'exit').
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  return {
    child,
    next: () =>
      new Promise((resolve, reject) => {
        const queued = lines.shift()
        if (queued) return resolve(queued)
        waiting.push(resolve)
        // A worker that dies early fails the test with its stderr instead of leaving it waiting.
        void exited.then((code) =>
          reject(new Error(`worker ${child.pid} exited (${code}) before its next line; stderr:\n${stderr}`)),
        )
      }),
    release: () => child.stdin.write('go\n'),
    exited,
  }
}

describe('decisions.update across processes', () => {
  it('N editors releasing the same expectedVersion together: exactly one wins, the others get version_conflict', async () => {
    const t = makeCore()
    const workers: Worker[] = []
    try {
      const core = t.core
      const ws = await core.invoke('workspaces.open', { repoPath: t.repoDir })
      const impl = await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
      const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API style', statement: 'Use REST' })
      const task = await core.invoke('tasks.create', {
        workspaceId: ws.id,
        title: 'Build the API',
        assigneeId: impl.id,
        decisionIds: [d.id],
      })
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })

      const N = 4
      const statements = Array.from({ length: N }, (_, i) => `Use protocol ${i + 1}`)
      for (const statement of statements) workers.push(startWorker({ dataDir: t.dataDir, decisionId: d.id, statement }))
      // Every editor has read v1 before any of them is released.
      expect(await Promise.all(workers.map((w) => w.next()))).toEqual(Array(N).fill({ ready: true, version: 1 }))
      for (const w of workers) w.release()
      const results = await Promise.all(workers.map((w) => w.next()))
      expect(await Promise.all(workers.map((w) => w.exited))).toEqual(Array(N).fill(0))

      const winners = results.flatMap((r, i) => ('won' in r && r.won ? [i] : []))
      expect(winners, JSON.stringify(results)).toHaveLength(1)
      const winner = winners[0]
      results.forEach((r, i) => {
        if (i === winner) expect(r).toEqual({ won: true, version: 2 })
        else expect(r).toMatchObject({ won: false, code: 'version_conflict' })
      })

      // Exactly one new revision, the winner's; nothing of the others was written.
      const after = await core.invoke('decisions.get', { decisionId: d.id })
      expect(after).toMatchObject({ version: 2, statement: statements[winner!] })
      const history = await core.invoke('decisions.history', { decisionId: d.id })
      expect(history.map((h) => [h.version, h.statement])).toEqual([
        [1, 'Use REST'],
        [2, statements[winner!]],
      ])
      // The change propagated once: one notice to the assignee of the task in progress.
      const notices = await core.invoke('notices.list', { memberId: impl.id })
      expect(notices.map((n) => n.decisionVersion)).toEqual([2])
    } finally {
      for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL')
      await t.cleanup()
    }
  }, 120_000)
})
