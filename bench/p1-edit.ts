/**
 * P1: one normative edit of a decision with 1,000 dependent tasks and 10,000 reports (3 claims each),
 * median over several edits. Two bounds, replayed warm in bare SQL (bench/sql-trace.ts) on copies of the
 * database taken just before an edit of the same shape, measured in the same loop as the edit:
 * - the minimal write set: the decision row, its revision, and one set-based UPDATE of the tasks the edit
 *   flags (no impact rows, notices, counters or reads). Target: median ≤ 10 ms and ≤ 2.5× this bound.
 * - the edit's own statements (its writes alone, and its writes with its reads): what the application adds
 *   over SQLite doing exactly its statements (overhead only; target ≤ 2× the writes-plus-reads replay).
 *
 * P1h: 10 affected reports on a decision with 100,000 older, already-stale report links: ≤ 2 ms. The older
 * links are pinned to a content the decision never returns to, so only the 10 reports' pins are in play.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core } from '../electron/main/core'
import { flagOnChangeSql, statusOnChangeSql, touchedByChangeSql } from '../electron/main/store/task-rules-sql'
import type { Decision } from '../shared/schemas'
import { counts, openBare, replayTimed, traceStatements, writeSet, type TracedCall } from './sql-trace'
import { median, ms, verdict, repoIn } from './util'
import { at } from '../eval/at'

const TASKS = 1_000
const REPORTS = 10_000
const CLAIMS = 3
const RUNS = 9
const P1_TARGET = 10
const P1_RATIO = 2
const P1_MINIMAL_RATIO = 2.5
const OLD_LINKS = 100_000
const P1H_REPORTS = 10
const P1H_TARGET = 2

export type Ctx = ReturnType<Core['harness']['ctx']>
const rowOf = (id: string, kind: string) => Number(id.split(`-${kind}`)[1])

/** Seeds tasks linked to `links` and reports whose basis and claims pin `d`'s current content, in bulk through the repositories. */
export function seed(ctx: Ctx, d: Decision, links: Decision[], tasks: number, reports: number, claims: number): void {
  const { store } = ctx
  const statuses = ['todo', 'in_progress', 'delivered', 'accepted'] as const
  const dn = rowOf(d.id, 'd')
  const firstTask = store.tasks.list(undefined, true).length + 1
  store.transaction(() => {
    const at = new Date().toISOString()
    for (let i = 0; i < tasks; i++) {
      const id = store.tasks.insert({
        title: `task ${i}`,
        spec: '',
        acceptance_criteria: '',
        assignee_id: i % 3 ? 1 : null,
        required_reports: '["test"]',
        created_at: at,
      })
      store.tasks.replaceLinks(
        id,
        links.map((l) => ({ decisionId: rowOf(l.id, 'd'), version: l.version, fingerprint: l.fingerprint })),
      )
      const row = store.tasks.get(id)!
      store.tasks.update({ ...row, status: statuses[i % 4]!, updated_at: at })
    }
    for (let r = 0; r < reports; r++) {
      const taskId = firstTask + (r % tasks)
      const rid = store.reports.insert({
        task_id: taskId,
        author_id: 1,
        kind: 'test',
        verdict: 'pass',
        summary: '',
        artifact_commit: 'abcdef1',
        artifact_digest: null,
        claim_count: claims,
        created_at: at,
      })
      store.reports.insertBasis(rid, dn, d.version, d.fingerprint)
      for (let c = 0; c < claims; c++)
        store.reports.insertClaimLink(store.reports.insertClaim(rid, c, `claim ${c}`), rid, dn, d.fingerprint)
    }
  })
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since)
  return (d.user + d.system) / 1000
}

/**
/**
 * The least any normative edit must write, as statements on the traced edit's own arguments: its decision
 * row update and revision insert as traced, and the flagged tasks (flag and status as the edit sets them)
 * in one set-based UPDATE straight from the decision's task links.
 */
export function minimalWriteSet(calls: TracedCall[]): TracedCall[] {
  const decision = calls.find((c) => !c.reader && /^\s*UPDATE\s+decisions\b/i.test(c.sql))
  const revision = calls.find((c) => !c.reader && /^\s*INSERT\s+INTO\s+decision_revisions\b/i.test(c.sql))
  if (!decision || !revision) throw new Error('P1: the traced edit wrote no decision row or revision')
  const row = decision.args[0] as { id: number; fingerprint: string; updated_at: string }
  const flagTasks: TracedCall = {
    // The flag rule and the untouched tasks as the store writes them (store/task-rules-sql.ts: one home).
    sql: `UPDATE tasks AS t SET status = ${statusOnChangeSql('t')}, flag = ${flagOnChangeSql('t')},
            version = t.version + 1, updated_at = @at
          WHERE t.id IN (SELECT task_id FROM task_links WHERE decision_id = @d AND pinned_fingerprint <> @to)
            AND ${touchedByChangeSql('t')}`,
    method: 'run',
    args: [{ d: row.id, to: row.fingerprint, at: row.updated_at }],
    reader: false,
    changes: 0,
  }
  return [decision, revision, flagTasks]
}

/**
 * Alternates A → B (timed) and B → A (untimed) `runs` times. Before each timed edit, an edit of the same
 * shape is traced: the live database is backed up three times, the same A → B edit is traced and undone,
 * and statements are replayed warm on the copies (the minimal write set on one, the edit's writes alone on
 * one, its writes and reads on the last).
 */
async function measure(core: Core, ctx: Ctx, decisionId: string, root: string, a: string, b: string, runs: number) {
  let version = (await core.invoke('decisions.get', { decisionId })).version
  const edit: number[] = []
  const editCpu: number[] = []
  const boundWrites: number[] = []
  const boundAll: number[] = []
  const boundMinimal: number[] = []
  const minimalCpu: number[] = []
  const allCpu: number[] = []
  let minimalRows = 0
  let calls: TracedCall[] = []
  let impact = { tasks: 0, reports: 0, staleClaims: 0, restoredClaims: 0 }
  for (let i = 0; i < runs; i++) {
    // Copies of the state the traced edit starts from: one per bound variant.
    const copies = [join(root, `bound-${i}-w.db`), join(root, `bound-${i}-rw.db`), join(root, `bound-${i}-min.db`)]
    for (const copy of copies) await ctx.store.db.backup(copy)
    const traced = await traceStatements(ctx.store.db, () =>
      core.invoke('decisions.update', { decisionId, expectedVersion: version++, statement: b }),
    )
    calls = traced.calls
    await core.invoke('decisions.update', { decisionId, expectedVersion: version++, statement: a })

    const c0 = process.cpuUsage()
    const t0 = performance.now()
    const result = await core.invoke('decisions.update', { decisionId, expectedVersion: version++, statement: b })
    edit.push(performance.now() - t0)
    editCpu.push(cpuMs(c0))
    impact = {
      tasks: result.impact.counts.tasks,
      reports: result.impact.counts.reports,
      staleClaims: result.impact.counts.staleClaims,
      restoredClaims: result.impact.counts.restoredClaims,
    }
    await core.invoke('decisions.update', { decisionId, expectedVersion: version++, statement: a })

    const minimal = minimalWriteSet(calls)
    const variants = [
      { copy: at(copies, 2), calls: minimal, into: boundMinimal },
      { copy: at(copies, 0), calls: calls.filter((c) => !c.reader), into: boundWrites },
      { copy: at(copies, 1), calls, into: boundAll },
    ]
    for (const v of variants) {
      const bare = openBare(v.copy)
      try {
        // Its CPU time too: on a loaded machine wall-clock ratios drift with the scheduler.
        const t = replayTimed(bare, v.calls, { warm: true })
        v.into.push(t.wall)
        if (v.calls === minimal) minimalCpu.push(t.cpu)
        if (v.calls === calls) allCpu.push(t.cpu)
        if (v.calls === minimal) minimalRows = bare.prepare('SELECT changes() AS n').pluck().get() as number
      } finally {
        bare.close()
      }
      rmSync(v.copy, { force: true })
      rmSync(`${v.copy}-wal`, { force: true })
      rmSync(`${v.copy}-shm`, { force: true })
    }
  }
  return {
    edit: median(edit),
    editCpu: median(editCpu),
    boundWrites: median(boundWrites),
    boundAll: median(boundAll),
    boundMinimal: median(boundMinimal),
    minimalCpu: median(minimalCpu),
    allCpu: median(allCpu),
    minimalRows,
    calls,
    impact,
  }
}

export async function p1(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-p1-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repoIn(root), isolation: 'shared' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'A' })
    const other = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'DB', statement: 'SQLite' })
    const ctx = core.harness.ctx(ws.id)
    seed(ctx, d, [d, other], TASKS, REPORTS, CLAIMS)
    // The traced and replayed edits run on a database state equal to the timed ones' (same flags and pins).
    const r = await measure(core, ctx, d.id, root, 'A', 'B', RUNS)
    const c = counts(r.calls)
    console.log(
      `P1  normative edit, ${TASKS} dependent tasks, ${REPORTS} reports x ${CLAIMS} claims (impact: ${r.impact.tasks} tasks, ${r.impact.reports} reports, ${r.impact.staleClaims} stale claims)`,
    )
    console.log(
      `    the edit's statements: ${c.reads} reads, ${c.writes} writes changing ${c.rowsWritten} rows (${writeSet(r.calls)}; trigger rows not counted)`,
    )
    console.log(
      `    wall: median edit ${ms(r.edit)} (target ≤ ${P1_TARGET} ms: ratio ${(r.edit / P1_TARGET).toFixed(2)} → ${verdict(r.edit <= P1_TARGET)})`,
    )
    console.log(
      `          the minimal write set (decision row, revision, one set-based UPDATE of the ${r.minimalRows} flagged tasks) replayed warm in bare SQL ${ms(r.boundMinimal)}: ratio ${(r.edit / r.boundMinimal).toFixed(2)}x (target ≤ ${P1_MINIMAL_RATIO}x: ${verdict(r.edit / r.boundMinimal <= P1_MINIMAL_RATIO)})`,
    )
    console.log(
      `          its own writes replayed warm in bare SQL ${ms(r.boundWrites)}: ratio ${(r.edit / r.boundWrites).toFixed(2)}x`,
    )
    console.log(
      `          its own writes and reads replayed warm in bare SQL ${ms(r.boundAll)}: ratio ${(r.edit / r.boundAll).toFixed(2)}x (overhead only; target ≤ ${P1_RATIO}x: ${verdict(r.edit / r.boundAll <= P1_RATIO)})`,
    )
    console.log(
      `    cpu:  median edit ${ms(r.editCpu)}, minimal write set ${ms(r.minimalCpu)} (ratio ${(r.editCpu / r.minimalCpu).toFixed(2)}x), its writes and reads ${ms(r.allCpu)} (ratio ${(r.editCpu / r.allCpu).toFixed(2)}x)   (load average ${at(loadavg(), 0).toFixed(2)} on ${cpus().length} cores)`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
  await p1h()
}

async function p1h(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-p1h-'))
  const core = createCore({ dataDir: join(root, 'data') })
  try {
    const ws = await core.invoke('workspaces.open', { repoPath: repoIn(root), isolation: 'shared' })
    await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const d0 = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Timeout', statement: 'S0' })
    const other = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Storage', statement: 'SQLite' })
    const ctx = core.harness.ctx(ws.id)
    // 100,000 claim links on an older content (S0) the decision leaves and never returns to: stale history, on
    // tasks that since depend on another decision only.
    seed(ctx, d0, [other], 100, OLD_LINKS / CLAIMS, CLAIMS)
    const d1 = (
      await core.invoke('decisions.update', { decisionId: d0.id, expectedVersion: d0.version, statement: 'S1' })
    ).decision
    // The 10 reports that are current: the only ones an edit S1 ↔ S2 changes.
    seed(ctx, d1, [d1], P1H_REPORTS, P1H_REPORTS, CLAIMS)
    const r = await measure(core, ctx, d0.id, root, 'S1', 'S2', RUNS)
    const c = counts(r.calls)
    const oldLinks = Math.floor(OLD_LINKS / CLAIMS) * CLAIMS
    console.log(
      `P1h ${r.impact.reports} affected reports on a decision with ${oldLinks.toLocaleString()} older stale claim links (impact: ${r.impact.tasks} tasks, ${r.impact.staleClaims} stale claims)`,
    )
    console.log(`    the edit's statements: ${c.reads} reads, ${c.writes} writes changing ${c.rowsWritten} rows`)
    console.log(
      `    wall: median edit ${ms(r.edit)} (target ≤ ${P1H_TARGET} ms: ${verdict(r.edit <= P1H_TARGET)}); its statements replayed warm in bare SQL ${ms(r.boundAll)} (ratio ${(r.edit / r.boundAll).toFixed(2)}x); minimal write set ${ms(r.boundMinimal)} (ratio ${(r.edit / r.boundMinimal).toFixed(2)}x); cpu ${ms(r.editCpu)} (statements ${ms(r.allCpu)}, minimal ${ms(r.minimalCpu)})`,
    )
  } finally {
    await core.close()
    rmSync(root, { recursive: true, force: true })
  }
}
