/**
 * Issue 21, reports.page totals kept by triggers (migration 015): after every step of a random mix of reports
 * (several decisions, authors and none, kinds, basis at older versions, reports pinned to two contents of one
 * decision) and edits that return to earlier contents, every total reports.page gives equals a plain SQL recount
 * over the immutable pins (claim_links, report_basis) and the decisions, and so does every kept scope. Migration
 * 015 backfills them on a file that already has reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import { openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { random } from '../fixtures/random'
import { insertReport, olderFile, rowNo, STALE, type Db } from '../fixtures/store'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let core: Core
let ws: Workspace

beforeEach(async () => {
  t = await openWorkspace()
  ;({ core, ws } = t)
})
afterEach(() => t.cleanup())

const KINDS = ['implementation', 'test', 'review'] as const

/** Every scope, recounted: '' | a<author> | k<kind> | a<author>k<kind>, with reports and stale reports. */
function recount(db: Db) {
  const scopes = `SELECT '' AS scope, r.id, ${STALE} AS s FROM reports r
    UNION ALL SELECT 'a' || coalesce(r.author_id, 0), r.id, ${STALE} FROM reports r
    UNION ALL SELECT 'k' || r.kind, r.id, ${STALE} FROM reports r
    UNION ALL SELECT 'a' || coalesce(r.author_id, 0) || 'k' || r.kind, r.id, ${STALE} FROM reports r`
  return db
    .prepare(`SELECT scope, count(*) AS reports, sum(s) AS stale FROM (${scopes}) GROUP BY scope ORDER BY scope`)
    .all()
}
const kept = (db: Db) =>
  db.prepare('SELECT scope, reports, stale FROM report_counts WHERE reports > 0 ORDER BY scope').all()

async function pageTotals(members: Member[], tasks: Task[]) {
  const db = core.harness.ctx(ws.id).store.db
  const count = (where: string, args: object = {}) =>
    db.prepare(`SELECT count(*) FROM reports r WHERE ${where}`).pluck().get(args) as number
  const filters: { f: Record<string, unknown>; where: string; args?: object }[] = [
    { f: {}, where: '1' },
    { f: { stale: true }, where: STALE },
    { f: { stale: false }, where: `NOT ${STALE}` },
    { f: { kind: 'test' }, where: "r.kind = 'test'" },
    { f: { kind: 'review', stale: true }, where: `r.kind = 'review' AND ${STALE}` },
    ...members.map((m) => ({ f: { authorId: m.id }, where: 'r.author_id = @a', args: { a: rowNo(m.id) } })),
    ...members.map((m) => ({
      f: { authorId: m.id, kind: 'test', stale: false },
      where: `r.author_id = @a AND r.kind = 'test' AND NOT ${STALE}`,
      args: { a: rowNo(m.id) },
    })),
    ...tasks.slice(0, 2).map((x) => ({
      f: { taskId: x.id, stale: true },
      where: `r.task_id = @t AND ${STALE}`,
      args: { t: rowNo(x.id) },
    })),
  ]
  for (const { f, where, args } of filters) {
    const staleWhere = where.replace(/(AND )?(NOT )?\(EXISTS[\s\S]*$/, '').trim()
    const page = await core.invoke('reports.page', { workspaceId: ws.id, ...f, limit: 3 })
    expect({ f, total: page.total }).toEqual({ f, total: count(where, args) })
    expect({ f, staleTotal: page.staleTotal }).toEqual({
      f,
      staleTotal: count(`${staleWhere || '1'} AND ${STALE}`, args),
    })
    // The page itself: the newest matching reports.
    const ids = db
      .prepare(`SELECT r.id FROM reports r WHERE ${where} ORDER BY r.id DESC LIMIT 3`)
      .pluck()
      .all(args ?? {})
    expect(page.items.map((r) => rowNo(r.id))).toEqual(ids)
  }
}

describe('reports.page totals kept by triggers', () => {
  it('equal a plain SQL recount after every step of random reports and edits that return to earlier contents', async () => {
    const rnd = random(21)
    const members: Member[] = []
    for (const name of ['Tess', 'Rev'])
      members.push(await core.invoke('members.create', { workspaceId: ws.id, name, role: 'tester' }))
    const decisions: Decision[] = []
    for (const title of ['API', 'DB', 'UI'])
      decisions.push(await core.invoke('decisions.create', { workspaceId: ws.id, title, statement: 'A' }))
    const tasks: Task[] = []
    for (let i = 0; i < 4; i++)
      tasks.push(
        await core.invoke('tasks.create', { workspaceId: ws.id, title: `t${i}`, decisionIds: [decisions[i % 3]!.id] }),
      )
    const { store } = core.harness.ctx(ws.id)
    const contents = ['A', 'B', 'C']
    let edits = 0
    for (let round = 0; round < 120; round++) {
      const current = await Promise.all(decisions.map((d) => core.invoke('decisions.get', { decisionId: d.id })))
      const roll = rnd(10)
      if (roll < 5) {
        const d = current[rnd(3)]
        const author = rnd(3)
        await core.invoke('reports.submit', {
          taskId: tasks[rnd(tasks.length)]!.id,
          ...(author < 2 ? { authorId: members[author]!.id } : {}),
          kind: KINDS[rnd(3)]!,
          verdict: 'pass',
          artifact: { commit: 'a'.repeat(40) },
          ...(rnd(4) ? { basis: [{ decisionId: d!.id, version: 1 + rnd(d!.version) }] } : {}),
          claims: Array.from({ length: rnd(3) }, (_, i) => ({
            text: `c${i}`,
            decisionIds: current.filter(() => rnd(2)).map((x) => x.id),
          })),
        })
      } else if (roll < 6) {
        // Not something the API writes, but a file may hold it: one report pinned to two contents of a decision.
        const d = current[rnd(3)]
        const older = store.db
          .prepare('SELECT fingerprint FROM decision_revisions WHERE decision_id = ? ORDER BY version LIMIT 1')
          .pluck()
          .get(rowNo(d!.id)) as string | undefined
        store.transaction(() => {
          const r = insertReport(store, {
            task_id: rowNo(tasks[0]!.id),
            author_id: rnd(2) ? rowNo(members[0]!.id) : null,
            claim_count: 1,
          })
          store.reports.insertBasis(r, rowNo(d!.id), d!.version, d!.fingerprint)
          store.reports.insertClaimLink(
            store.reports.insertClaim(r, 0, 'c'),
            r,
            rowNo(d!.id),
            older ?? 'fp-of-no-content',
          )
        })
      } else {
        const d = current[rnd(3)]
        const next = contents.filter((c) => c !== d!.statement)[rnd(2)]
        await core.invoke('decisions.update', { decisionId: d!.id, expectedVersion: d!.version, statement: next })
        edits++
      }
      expect(kept(store.db)).toEqual(recount(store.db))
      if (round % 10 === 9) await pageTotals(members, tasks)
    }
    expect(edits).toBeGreaterThan(20)
    expect((await core.invoke('reports.page', { workspaceId: ws.id })).staleTotal).toBeGreaterThan(0)
  }, 120_000)

  it('a report stale when submitted, and one stale on two decisions, are counted once each until both come back', async () => {
    const [d1, d2] = [
      await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'A' }),
      await core.invoke('decisions.create', { workspaceId: ws.id, title: 'DB', statement: 'A' }),
    ]
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 't', decisionIds: [d1.id, d2.id] })
    const submit = (basis?: { decisionId: string; version: number }[]) =>
      core.invoke('reports.submit', {
        taskId: task.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: 'a'.repeat(40) },
        ...(basis ? { basis } : {}),
        claims: [{ text: 'c', decisionIds: [d1.id, d2.id] }],
      })
    const staleTotal = async () => (await core.invoke('reports.page', { workspaceId: ws.id, limit: 1 })).staleTotal
    const db = core.harness.ctx(ws.id).store.db
    await submit() // pinned to d1:A and d2:A
    await core.invoke('decisions.update', { decisionId: d1.id, expectedVersion: 1, statement: 'B' })
    expect(await staleTotal()).toBe(1)
    await submit([{ decisionId: d1.id, version: 1 }]) // stale from the start: its basis and claims read d1 at v1
    expect(await staleTotal()).toBe(2)
    await core.invoke('decisions.update', { decisionId: d2.id, expectedVersion: 1, statement: 'B' })
    expect(await staleTotal()).toBe(2) // each stale on two decisions now, still counted once
    await core.invoke('decisions.update', { decisionId: d1.id, expectedVersion: 2, statement: 'A' })
    expect(await staleTotal()).toBe(2) // d1 is back, d2 still moved on
    await core.invoke('decisions.update', { decisionId: d2.id, expectedVersion: 2, statement: 'A' })
    expect(await staleTotal()).toBe(0)
    expect((await core.invoke('reports.page', { workspaceId: ws.id, stale: false })).total).toBe(2)
    expect(kept(db)).toEqual(recount(db))
  })

  it('an edit that stales thousands of reports writes a row per signature, not per report', async () => {
    const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'A' })
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 't', decisionIds: [d.id] })
    const { store } = core.harness.ctx(ws.id)
    store.transaction(() => {
      for (let i = 0; i < 3000; i++) {
        const r = insertReport(store, { task_id: rowNo(task.id), author_id: null, claim_count: 0, created_at: '' })
        store.reports.insertBasis(r, rowNo(d.id), d.version, d.fingerprint)
      }
    })
    const writes = () => store.db.prepare('SELECT total_changes()').pluck().get() as number
    const before = writes()
    await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: d.version, statement: 'B' })
    const written = writes() - before
    expect((await core.invoke('reports.page', { workspaceId: ws.id, limit: 1 })).staleTotal).toBe(3000)
    // The edit's own rows (decision, revision, notices, log) and its counts: far fewer than the 3,000 reports.
    expect(written).toBeLessThan(100)
    expect(kept(store.db)).toEqual(recount(store.db))
  })
})

describe('migration 015 on a file that already has reports', () => {
  it('backfills the totals, then the triggers keep them', () => {
    const file = `${t.dataDir}/old.sqlite`
    const { db: before, at } = olderFile(file, 14, [
      [1, 'fp2'],
      [2, 'gp1'],
    ])
    const report = before.prepare(
      'INSERT INTO reports (id, task_id, author_id, kind, verdict, claim_count, created_at) VALUES (?, 1, ?, ?, ?, 1, ?)',
    )
    // 1: current on both; 2: stale on decision 1 (basis fp1); 3: no pins; 4: stale on both decisions; 5: current, no author.
    for (const [id, author, kind] of [
      [1, 1, 'test'],
      [2, 1, 'review'],
      [3, null, 'test'],
      [4, 1, 'test'],
      [5, null, 'implementation'],
    ] as const)
      report.run(id, author, kind, 'pass', at)
    const basis = before.prepare(
      'INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count) VALUES (?, ?, 1, ?, 1, ?, 1)',
    )
    const link = before.prepare(
      'INSERT INTO claim_links (decision_id, report_id, claim_id, pinned_fingerprint) VALUES (?, ?, ?, ?)',
    )
    const claim = before.prepare("INSERT INTO claims (id, report_id, ordinal, text) VALUES (?, ?, 0, 'c')")
    basis.run(1, 1, 'fp2', 1)
    claim.run(1, 1)
    link.run(2, 1, 1, 'gp1')
    basis.run(1, 2, 'fp1', 1)
    basis.run(1, 4, 'fp1', 1)
    claim.run(2, 4)
    link.run(2, 4, 2, 'gp0')
    basis.run(1, 5, 'fp2', null)
    before.close()
    const db = openDatabase(file, { migrations })
    expect(kept(db)).toEqual(recount(db))
    expect(db.prepare("SELECT reports, stale FROM report_counts WHERE scope = ''").get()).toEqual({
      reports: 5,
      stale: 2,
    })
    // Then kept: a new report, a pin, an edit back to the content reports 2 and 4 were pinned to.
    db.prepare(
      "INSERT INTO reports (id, task_id, author_id, kind, verdict, claim_count, created_at) VALUES (6, 1, 1, 'test', 'pass', 1, ?)",
    ).run(at)
    db.prepare(
      "INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count) VALUES (1, 6, 1, 'fp1', 1, 1, 1)",
    ).run()
    expect(kept(db)).toEqual(recount(db))
    db.prepare("UPDATE decisions SET fingerprint = 'fp1', version = 3 WHERE id = 1").run()
    expect(kept(db)).toEqual(recount(db))
    expect(db.prepare("SELECT reports, stale FROM report_counts WHERE scope = ''").get()).toEqual({
      reports: 6,
      stale: 3,
    })
    db.close()
  })
})
