/**
 * Issue 12, the report side of an edit from the figures kept with the pins (migration 012): after a random mix
 * of reports (basis at old and current versions, claims with and without a basis on the decision, several
 * authors and none) and edits that go back to earlier contents, every edit's report counts and every notice's
 * reports equal plain SQL over the immutable pins, and the kept figures equal a recount. Migration 012
 * backfills them on a file that already has reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import { openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { random } from '../fixtures/random'
import { insertReport, olderFile, rowNo, type Db } from '../fixtures/store'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let core: Core
let ws: Workspace

beforeEach(async () => {
  t = await openWorkspace()
  ;({ core, ws } = t)
})
afterEach(() => t.cleanup())

/** The kept figures, recounted from claim_links, report_basis and reports. */
function recount(db: Db) {
  const pinned = `SELECT decision_id, pinned_fingerprint AS fp, report_id FROM claim_links UNION SELECT decision_id, fingerprint, report_id FROM report_basis`
  return {
    totals: db
      .prepare(
        `SELECT p.decision_id, p.fp AS fingerprint, count(*) AS reports,
           (SELECT count(*) FROM claim_links c WHERE c.decision_id = p.decision_id AND c.pinned_fingerprint = p.fp) AS claims, sum(r.claim_count) AS report_claims
         FROM (${pinned}) p JOIN reports r ON r.id = p.report_id GROUP BY p.decision_id, p.fp ORDER BY 1, 2`,
      )
      .all(),
    authors: db
      .prepare(
        `SELECT p.decision_id, p.fp AS fingerprint, coalesce(r.author_id, 0) AS author_id, count(*) AS reports FROM (${pinned}) p JOIN reports r ON r.id = p.report_id GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      )
      .all(),
  }
}

const kept = (db: Db) => ({
  totals: db
    .prepare('SELECT decision_id, fingerprint, reports, claims, report_claims FROM pin_totals ORDER BY 1, 2')
    .all(),
  authors: db.prepare('SELECT decision_id, fingerprint, author_id, reports FROM pin_authors ORDER BY 1, 2, 3').all(),
})

describe('the report side of an edit, from the kept pin figures', () => {
  it('equals plain SQL over the pins after random reports and edits that return to earlier contents', async () => {
    const rnd = random(12)
    const members: Member[] = []
    for (const name of ['Tess', 'Rev', 'Ann'])
      members.push(await core.invoke('members.create', { workspaceId: ws.id, name, role: 'tester' }))
    const decisions: Decision[] = [
      await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'A' }),
      await core.invoke('decisions.create', { workspaceId: ws.id, title: 'DB', statement: 'X' }),
    ]
    const tasks: Task[] = []
    for (let i = 0; i < 6; i++)
      tasks.push(
        await core.invoke('tasks.create', {
          workspaceId: ws.id,
          title: `t${i}`,
          decisionIds: i % 2 ? [decisions[0]!.id, decisions[1]!.id] : [decisions[0]!.id],
        }),
      )
    const db = core.harness.ctx(ws.id).store.db
    const contents = ['A', 'B', 'C']
    let edits = 0
    const edited = new Set<string>()
    for (let round = 0; round < 90; round++) {
      const current = await Promise.all(decisions.map((d) => core.invoke('decisions.get', { decisionId: d.id })))
      if (rnd(3)) {
        // A report: basis at the current or an older version; claims on one, both or the other decision.
        const d = current[rnd(2)]
        const version = 1 + rnd(d!.version)
        const author = rnd(4)
        await core.invoke('reports.submit', {
          taskId: tasks[rnd(tasks.length)]!.id,
          ...(author < 3 ? { authorId: members[author]!.id } : {}),
          kind: 'test',
          verdict: 'pass',
          artifact: { commit: 'a'.repeat(40) },
          basis: [{ decisionId: d!.id, version }],
          claims: Array.from({ length: 1 + rnd(3) }, (_, i) => ({
            text: `c${i}`,
            decisionIds: rnd(2) ? [current[0]!.id] : [current[0]!.id, current[1]!.id],
          })),
        })
        continue
      }
      const d = current[rnd(2)]
      const next = contents.filter((c) => c !== d!.statement)[rnd(2)]
      const from = d!.fingerprint
      const { decision, impact } = await core.invoke('decisions.update', {
        decisionId: d!.id,
        expectedVersion: d!.version,
        statement: next,
      })
      edits++
      edited.add(d!.id)
      const to = decision.fingerprint
      const n = rowNo(d!.id)
      const p = { d: n, a: from, b: to }
      const one = (q: string, args: object = p) => db.prepare(q).pluck().get(args) as number
      const touched = one(
        `SELECT count(*) FROM (SELECT report_id FROM claim_links WHERE decision_id = @d AND pinned_fingerprint IN (@a, @b)
           UNION SELECT report_id FROM report_basis WHERE decision_id = @d AND fingerprint IN (@a, @b))`,
      )
      const both = one(
        `SELECT count(*) FROM (SELECT report_id FROM claim_links WHERE decision_id = @d AND pinned_fingerprint = @a UNION SELECT report_id FROM report_basis WHERE decision_id = @d AND fingerprint = @a)
           WHERE report_id IN (SELECT report_id FROM claim_links WHERE decision_id = @d AND pinned_fingerprint = @b UNION SELECT report_id FROM report_basis WHERE decision_id = @d AND fingerprint = @b)`,
      )
      expect(both).toBe(0) // through the API a report pins each decision at one content (its claims read it as its basis does)
      expect(impact.counts.reports).toBe(touched)
      expect(impact.counts.staleClaims).toBe(
        one('SELECT count(*) FROM claim_links WHERE decision_id = @d AND pinned_fingerprint = @a'),
      )
      expect(impact.counts.restoredClaims).toBe(
        one('SELECT count(*) FROM claim_links WHERE decision_id = @d AND pinned_fingerprint = @b'),
      )
      // Each author of a report pinned to the content the edit left gets a notice naming exactly those reports.
      const expected = new Map<string, string[]>()
      for (const row of db
        .prepare(
          `SELECT r.author_id, r.id FROM reports r WHERE r.author_id IS NOT NULL AND r.id IN
             (SELECT report_id FROM claim_links WHERE decision_id = @d AND pinned_fingerprint = @a UNION SELECT report_id FROM report_basis WHERE decision_id = @d AND fingerprint = @a)
           ORDER BY r.id`,
        )
        .all({ d: n, a: from }) as { author_id: number; id: number }[]) {
        const key = `${ws.id}-m${row.author_id}`
        expected.set(key, [...(expected.get(key) ?? []), `${ws.id}-r${row.id}`])
      }
      for (const m of members) {
        const notice = (await core.invoke('notices.list', { memberId: m.id })).find(
          (x) => x.decisionId === d!.id && x.decisionVersion === decision.version,
        )
        expect(notice?.reportIds ?? []).toEqual(expected.get(m.id) ?? [])
      }
    }
    expect(edits).toBeGreaterThan(8)
    expect(edited.size).toBe(2) // the draws reach both decisions (s % 2 of the LCG never picked the second)
    expect(kept(db)).toEqual(recount(db))
  }, 60_000)

  it('counts a report pinned to both contents of an edit once', async () => {
    const tess = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    const d = await core.invoke('decisions.create', { workspaceId: ws.id, title: 'API', statement: 'A' })
    const v2 = (await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'B' }))
      .decision
    const task = await core.invoke('tasks.create', { workspaceId: ws.id, title: 't', decisionIds: [d.id] })
    // Not something the API writes, but a file may hold it: the basis read A, a claim was pinned to B.
    const { store } = core.harness.ctx(ws.id)
    const n = rowNo(d.id)
    store.transaction(() => {
      for (let i = 0; i < 3; i++) {
        const r = insertReport(store, { task_id: rowNo(task.id), author_id: rowNo(tess.id), claim_count: 1 })
        store.reports.insertBasis(r, n, 1, d.fingerprint)
        if (i < 2) store.reports.insertClaimLink(store.reports.insertClaim(r, 0, 'c'), r, n, v2.fingerprint)
      }
    })
    // B → A: the claims on B go stale, the basis on A comes back; three reports are touched, not five.
    const { impact } = await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 2, statement: 'A' })
    expect(impact.counts).toMatchObject({ reports: 3, staleClaims: 2, restoredClaims: 0 })
    expect(kept(store.db)).toEqual(recount(store.db))
  })
})

describe('migration 012 on a file that already has reports', () => {
  it('backfills the pin figures, then the triggers keep them', () => {
    const file = `${t.dataDir}/old.sqlite`
    const { db: v11, at } = olderFile(file, 11, [[1, 'fp2']])
    const report = v11.prepare(
      "INSERT INTO reports (id, task_id, author_id, kind, verdict, claim_count, created_at) VALUES (?, 1, ?, 'test', 'pass', ?, ?)",
    )
    report.run(1, 1, 2, at)
    report.run(2, null, 1, at)
    report.run(3, 1, 1, at)
    const basis = v11.prepare(
      'INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count) VALUES (1, ?, ?, ?, 1, ?, ?)',
    )
    basis.run(1, 1, 'fp1', 1, 2)
    basis.run(3, 2, 'fp2', 1, 1)
    const claim = v11.prepare('INSERT INTO claims (id, report_id, ordinal, text) VALUES (?, ?, 0, ?)')
    const link = v11.prepare(
      'INSERT INTO claim_links (decision_id, report_id, claim_id, pinned_fingerprint) VALUES (1, ?, ?, ?)',
    )
    for (const [id, r, fp] of [
      [1, 1, 'fp2'],
      [2, 1, 'fp2'],
      [3, 2, 'fp1'],
      [4, 3, 'fp2'],
    ] as const) {
      claim.run(id, r, `c${id}`)
      link.run(r, id, fp)
    }
    v11
      .prepare(
        "INSERT INTO notices (member_id, kind, decision_id, decision_version, report_ids, text, created_at) VALUES (1, 'decision_changed', 1, 2, '[1,3]', 'n', ?)",
      )
      .run(at)
    v11.close()
    const db = openDatabase(file, { migrations })
    expect(kept(db)).toEqual(recount(db))
    expect(kept(db).totals).toEqual([
      { decision_id: 1, fingerprint: 'fp1', reports: 2, claims: 1, report_claims: 3 },
      { decision_id: 1, fingerprint: 'fp2', reports: 2, claims: 3, report_claims: 3 },
    ])
    // An older notice keeps its listed reports.
    expect(db.prepare('SELECT report_count, report_ids FROM notices').get()).toEqual({
      report_count: null,
      report_ids: '[1,3]',
    })
    db.prepare(
      "INSERT INTO reports (id, task_id, author_id, kind, verdict, claim_count, created_at) VALUES (4, 1, 1, 'test', 'pass', 1, ?)",
    ).run(at)
    db.prepare(
      "INSERT INTO report_basis (decision_id, report_id, version, fingerprint, task_id, author_id, claim_count) VALUES (1, 4, 2, 'fp2', 1, 1, 1)",
    ).run()
    db.prepare("INSERT INTO claims (id, report_id, ordinal, text) VALUES (5, 4, 0, 'c5')").run()
    db.prepare(
      "INSERT INTO claim_links (decision_id, report_id, claim_id, pinned_fingerprint) VALUES (1, 4, 5, 'fp2')",
    ).run()
    expect(kept(db)).toEqual(recount(db))
    db.close()
  })
})
