import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { deliverTask, testAndReview } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

const SHA = 'a'.repeat(40)
const SHA2 = 'b'.repeat(40)

let t: OpenWorkspace
let core: Core
let ws: Workspace
let lead: Member, impl: Member, tester: Member, reviewer: Member, bystander: Member

beforeEach(async () => {
  t = await openWorkspace()
  ;({ core, ws } = t)
  lead = await core.invoke('members.create', { workspaceId: ws.id, name: 'Lead', role: 'lead', authority: 'decider' })
  impl = await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
  tester = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
  reviewer = await core.invoke('members.create', { workspaceId: ws.id, name: 'Rev', role: 'reviewer' })
  bystander = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Bee',
    role: 'docs',
    authority: 'observer',
  })
})
afterEach(() => t.cleanup())

const decide = (title: string, statement: string) =>
  core.invoke('decisions.create', { workspaceId: ws.id, title, statement })
const task = (title: string, decisions: Decision[], assignee: Member | null = impl) =>
  core.invoke('tasks.create', {
    workspaceId: ws.id,
    title,
    assigneeId: assignee?.id,
    decisionIds: decisions.map((d) => d.id),
  })
const edit = (d: Decision, statement: string, extra: Record<string, unknown> = {}) =>
  core.invoke('decisions.update', {
    decisionId: d.id,
    expectedVersion: d.version,
    statement,
    reason: 'changed',
    ...extra,
  })

const deliver = (tk: Task, commit = SHA) => deliverTask(core, tk, commit)

const passingReports = (tk: Task, claims: { text: string; decisionIds: string[] }[], commit = SHA) =>
  testAndReview(core, tk, { tester, reviewer }, claims, commit)

describe('workspaces and members', () => {
  it('opens a workspace once per path and lists it', async () => {
    const again = await core.invoke('workspaces.open', { repoPath: t.repoDir + '/' })
    expect(again.id).toBe(ws.id)
    expect(await core.invoke('workspaces.list', {})).toEqual([
      expect.objectContaining({ id: ws.id, repoPath: ws.repoPath }),
    ])
    await rejectsWith(core.invoke('workspaces.open', { repoPath: t.repoDir + '/missing' }), 'invalid_params')
  })

  it('keeps the API key write-only', async () => {
    const m = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'K',
      role: 'implementer',
      provider: { kind: 'openai', model: 'gpt-x', apiKey: 'sk-secret-123' },
    })
    expect(m.provider).toEqual({
      kind: 'openai',
      model: 'gpt-x',
      baseURL: null,
      interruptOnAdjustment: false,
      hasKey: true,
    })
    expect(JSON.stringify(await core.invoke('members.list', { workspaceId: ws.id }))).not.toContain('sk-secret-123')
    const updated = await core.invoke('members.update', {
      memberId: m.id,
      provider: { kind: 'openai', model: 'gpt-y' },
    })
    expect(updated.provider?.hasKey).toBe(true)
    const cleared = await core.invoke('members.update', { memberId: m.id, provider: null })
    expect(cleared.provider).toBeNull()
    expect(JSON.stringify(t.events)).not.toContain('sk-secret-123')
  })
})

describe('decision edits', () => {
  it('compare-and-set: a stale expectedVersion gets version_conflict and writes nothing', async () => {
    const d = await decide('Auth', 'Use sessions')
    await edit(d, 'Use JWT')
    const err = await rejectsWith(edit(d, 'Use OAuth'), 'version_conflict')
    expect(err.message).toContain('D-1 is at v2')
    const history = await core.invoke('decisions.history', { decisionId: d.id })
    expect(history.map((r) => r.statement)).toEqual(['Use sessions', 'Use JWT'])
  })

  it('concurrent edits through two connections to the same file: exactly one wins', async () => {
    const d = await decide('Auth', 'Use sessions')
    const { createCore } = await import('../../electron/main/core')
    // A second connection to the same files (transient: a second full Concord on the folder is refused).
    const other = createCore({ dataDir: t.dataDir, transient: true })
    try {
      const results = await Promise.allSettled([
        core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'A' }),
        other.invoke('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'B' }),
      ])
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
      expect(rejected.reason.code).toBe('version_conflict')
      expect((await core.invoke('decisions.history', { decisionId: d.id })).length).toBe(2)
    } finally {
      await other.close()
    }
  })

  it('flags dependents by status, revokes acceptance, leaves cancelled and unrelated tasks alone', async () => {
    const d1 = await decide('API', 'REST')
    const d2 = await decide('DB', 'SQLite')
    const todo = await task('todo', [d1])
    const doing = await task('doing', [d1])
    await core.invoke('tasks.setStatus', { taskId: doing.id, status: 'in_progress' })
    const done = await task('done', [d1])
    await deliver(done)
    const accepted = await task('accepted', [d1])
    await deliver(accepted)
    await passingReports(accepted, [{ text: 'serves REST', decisionIds: [d1.id] }])
    await core.invoke('tasks.accept', { taskId: accepted.id })
    const cancelled = await task('cancelled', [d1])
    await core.invoke('tasks.setStatus', { taskId: cancelled.id, status: 'cancelled' })
    const other = await task('other', [d2])

    const { impact, decision } = await edit(d1, 'GraphQL')
    expect(decision.version).toBe(2)
    expect(impact.normative).toBe(true)
    const byKey = Object.fromEntries(impact.tasks.map((x) => [x.key, x]))
    expect(Object.keys(byKey).sort()).toEqual([todo.key, doing.key, done.key, accepted.key].sort())
    expect(byKey[todo.key]!.flag).toBe('requirements_updated')
    expect(byKey[doing.key]!.flag).toBe('needs_adjustment')
    expect(byKey[done.key]!.flag).toBe('needs_reverification')
    expect(byKey[accepted.key]).toMatchObject({
      flag: 'needs_reverification',
      status: 'delivered',
      acceptanceRevoked: true,
    })
    expect((await core.invoke('tasks.get', { taskId: cancelled.id })).flag).toBeNull()
    const untouched = await core.invoke('tasks.get', { taskId: other.id })
    expect(untouched.flag).toBeNull()
    expect(untouched.links[0]!.state).toBe('current')
    const flagged = await core.invoke('tasks.get', { taskId: doing.id })
    expect(flagged.links).toEqual([
      expect.objectContaining({ decisionId: d1.id, pinnedVersion: 1, currentVersion: 2, state: 'suspect' }),
    ])
    // One event carries the whole impact set.
    const changed = t.events.filter((e) => e.event === 'decision.changed')
    expect(changed).toHaveLength(1)
    expect((changed[0]!.payload as { impact: unknown }).impact).toEqual(impact)
  })

  it('an editorial fix and a title-only change flag nothing', async () => {
    const d = await decide('API', 'Use REST.')
    const tk = await task('t', [d])
    const r1 = await edit(d, 'Use REST (JSON over HTTP).', { editorial: true })
    expect(r1.impact).toMatchObject({ normative: false, tasks: [], reports: [], notifiedMemberIds: [] })
    expect(r1.decision.fingerprint).toBe(d.fingerprint)
    const r2 = await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 2, title: 'HTTP API' })
    expect(r2.impact.tasks).toEqual([])
    const after = await core.invoke('tasks.get', { taskId: tk.id })
    expect(after.flag).toBeNull()
    expect(after.links[0]!.state).toBe('current')
    const history = await core.invoke('decisions.history', { decisionId: d.id })
    expect(history.map((h) => [h.version, h.editorial])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ])
    const m = await core.invoke('metrics.get', { workspaceId: ws.id })
    expect(m.decisionEdits).toEqual({ normative: 0, editorial: 2 })
  })

  it('stales exactly the claims on the changed decision and notifies only the affected members', async () => {
    const d1 = await decide('API', 'REST')
    const d2 = await decide('DB', 'SQLite')
    const tk = await task('build', [d1, d2])
    await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'in_progress' })
    const todoTask = await task('later', [d1], bystander)
    const report = await core.invoke('reports.submit', {
      taskId: tk.id,
      authorId: tester.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: SHA },
      claims: [
        { text: 'GET /items works', decisionIds: [d1.id] },
        { text: 'data persists', decisionIds: [d2.id] },
      ],
    })
    expect(report.validity).toBe('valid')
    expect(report.basis).toEqual([
      { decisionId: d1.id, version: 1, state: 'current' },
      { decisionId: d2.id, version: 1, state: 'current' },
    ])

    const { impact } = await core.invoke('decisions.update', {
      decisionId: d1.id,
      expectedVersion: 1,
      statement: 'GraphQL',
      actorId: lead.id,
    })
    expect(impact.reports).toEqual([
      {
        reportId: report.id,
        key: report.key,
        taskId: tk.id,
        authorId: tester.id,
        staleClaimIds: [report.claims[0]!.id],
        restoredClaimIds: [],
        validity: 'stale',
      },
    ])
    expect(impact.notifiedMemberIds.sort()).toEqual([impl.id, tester.id].sort())
    expect(impact.tasks.map((x) => x.key).sort()).toEqual([tk.key, todoTask.key].sort())

    const after = await core.invoke('reports.get', { reportId: report.id })
    expect(after.validity).toBe('stale')
    expect(after.claims.map((c) => c.state)).toEqual(['stale', 'valid'])

    const implNotices = await core.invoke('notices.list', { memberId: impl.id, pending: true })
    expect(implNotices).toHaveLength(1)
    expect(implNotices[0]!.text).toContain('GraphQL')
    expect(implNotices[0]!.taskIds).toEqual([tk.id])
    const pushed = t.events
      .filter((e) => e.event === 'notice.created')
      .map((e) => (e.payload as { notice: { memberId: string } }).notice.memberId)
    expect(pushed.sort()).toEqual([impl.id, tester.id].sort())
    expect(await core.invoke('notices.list', { memberId: bystander.id })).toEqual([])
    expect(await core.invoke('notices.list', { memberId: reviewer.id })).toEqual([])
    expect(await core.invoke('notices.list', { memberId: lead.id })).toEqual([])

    const m = await core.invoke('metrics.get', { workspaceId: ws.id })
    expect(m.claims).toEqual({ madeStale: 1, keptValid: 1 })
    expect(m.noticesSent).toBe(2)
    expect(m.tasksFlagged).toEqual({ requirements_updated: 1, needs_adjustment: 1, needs_reverification: 0 })
  })

  it('stales claims on a decision the report basis does not name, and basis entries without claims', async () => {
    const d1 = await decide('API', 'REST')
    const d2 = await decide('DB', 'SQLite')
    const tk = await task('t', [d1])
    // r1: basis D-1 only, one claim on D-2. r2: basis on both, claims on nothing.
    const r1 = await core.invoke('reports.submit', {
      taskId: tk.id,
      authorId: tester.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: SHA },
      basis: [{ decisionId: d1.id, version: 1 }],
      claims: [{ text: 'persists', decisionIds: [d2.id] }],
    })
    const r2 = await core.invoke('reports.submit', {
      taskId: tk.id,
      authorId: reviewer.id,
      kind: 'review',
      verdict: 'pass',
      artifact: { commit: SHA },
      basis: [
        { decisionId: d1.id, version: 1 },
        { decisionId: d2.id, version: 1 },
      ],
      claims: [{ text: 'reads well', decisionIds: [] }],
    })
    const { impact } = await edit(d2, 'Postgres')
    expect(impact.reports).toEqual([
      {
        reportId: r1.id,
        key: r1.key,
        taskId: tk.id,
        authorId: tester.id,
        staleClaimIds: [r1.claims[0]!.id],
        restoredClaimIds: [],
        validity: 'stale',
      },
      {
        reportId: r2.id,
        key: r2.key,
        taskId: tk.id,
        authorId: reviewer.id,
        staleClaimIds: [],
        restoredClaimIds: [],
        validity: 'stale',
      },
    ])
    expect(impact.notifiedMemberIds.sort()).toEqual([tester.id, reviewer.id].sort())
    expect((await core.invoke('reports.get', { reportId: r2.id })).validity).toBe('stale')
    expect((await core.invoke('reports.get', { reportId: r1.id })).claims[0]!.state).toBe('stale')
  })

  it('preview shows the impact and writes nothing', async () => {
    const d = await decide('API', 'REST')
    const tk = await task('t', [d])
    await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'in_progress' })
    const before = await core.invoke('events.list', { workspaceId: ws.id })
    const preview = await core.invoke('decisions.previewImpact', { decisionId: d.id, statement: 'gRPC' })
    expect(preview.tasks).toEqual([expect.objectContaining({ key: tk.key, flag: 'needs_adjustment' })])
    expect(preview.notifiedMemberIds).toEqual([impl.id])
    expect(await core.invoke('events.list', { workspaceId: ws.id })).toEqual(before)
    expect((await core.invoke('tasks.get', { taskId: tk.id })).flag).toBeNull()
    expect(await core.invoke('notices.list', { memberId: impl.id })).toEqual([])
    expect(await core.invoke('decisions.previewImpact', { decisionId: d.id, statement: '  REST ' })).toMatchObject({
      tasks: [],
      normative: false,
    })
    const { impact } = await edit(d, 'gRPC')
    expect(impact).toEqual(preview)
  })
})

describe('acceptance', () => {
  it('refuses with exact reasons, then accepts on current evidence', async () => {
    const d = await decide('API', 'REST')
    const tk = await task('t', [d])
    await rejectsWith(core.invoke('tasks.accept', { taskId: tk.id }), 'invalid_transition')
    await deliver(tk)
    const missing = await rejectsWith(core.invoke('tasks.accept', { taskId: tk.id }), 'evidence_missing')
    expect(missing.message).toContain(`${tk.key} has no test report`)
    expect(missing.message).toContain(`${tk.key} has no review report`)

    const { test } = await passingReports(tk, [{ text: 'works', decisionIds: [d.id] }])
    const { decision } = await edit(d, 'GraphQL')
    const stale = await rejectsWith(core.invoke('tasks.accept', { taskId: tk.id }), 'evidence_stale')
    expect(stale.message).toContain(`${test.key} is based on D-1 v1; D-1 is at v2`)
    expect((stale.details as { reasons: unknown[] }).reasons.length).toBeGreaterThan(0)

    // Fresh reports on the wrong artifact are still refused.
    await passingReports(tk, [{ text: 'works', decisionIds: [d.id] }], SHA2)
    const wrong = await rejectsWith(core.invoke('tasks.accept', { taskId: tk.id }), 'evidence_stale')
    expect(wrong.message).toContain(`checked commit ${SHA2.slice(0, 10)}`)

    await passingReports(tk, [{ text: 'works', decisionIds: [d.id] }])
    const accepted = await core.invoke('tasks.accept', { taskId: tk.id })
    expect(accepted).toMatchObject({ status: 'accepted', flag: null })
    // Accepted on evidence based on the current decisions: the task is aligned with them.
    expect(accepted.links).toEqual([expect.objectContaining({ pinnedVersion: 2, currentVersion: 2, state: 'current' })])
    expect(decision.version).toBe(2)
    const m = await core.invoke('metrics.get', { workspaceId: ws.id })
    expect(m.acceptances).toEqual({ accepted: 1, refusedStale: 2, refusedMissing: 1 })
  })

  it('a failing verdict is not evidence', async () => {
    const d = await decide('API', 'REST')
    const tk = await task('t', [d])
    await deliver(tk)
    await passingReports(tk, [])
    await core.invoke('reports.submit', {
      taskId: tk.id,
      kind: 'test',
      verdict: 'fail',
      artifact: { commit: SHA },
      claims: [],
    })
    const err = await rejectsWith(core.invoke('tasks.accept', { taskId: tk.id }), 'evidence_missing')
    expect(err.message).toMatch(/R-3 failed/)
  })

  it('reverting a decision restores the validity of evidence pinned to that content', async () => {
    const d = await decide('API', 'REST')
    const tk = await task('t', [d])
    await deliver(tk)
    const { test } = await passingReports(tk, [{ text: 'works', decisionIds: [d.id] }])
    const v2 = await edit(d, 'GraphQL')
    expect((await core.invoke('reports.get', { reportId: test.id })).validity).toBe('stale')
    const v3 = await core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: v2.decision.version,
      statement: 'REST',
      reason: 'revert',
    })
    expect(v3.decision.fingerprint).toBe(d.fingerprint)
    // Back at the content the evidence was pinned to: nothing stale, and the impact lists the claims restored.
    expect(v3.impact.reports.flatMap((r) => r.staleClaimIds)).toEqual([])
    expect(v3.impact.reports.find((r) => r.reportId === test.id)?.restoredClaimIds).toEqual(
      test.claims.map((c) => c.id),
    )
    expect(v3.impact.counts.restoredClaims).toBe(v3.impact.reports.reduce((n, r) => n + r.restoredClaimIds.length, 0))
    const again = await core.invoke('reports.get', { reportId: test.id })
    expect(again.validity).toBe('valid')
    expect(again.basis[0]).toMatchObject({ version: 1, state: 'current' })
    const accepted = await core.invoke('tasks.accept', { taskId: tk.id })
    expect(accepted.status).toBe('accepted')
  })

  it('only deciders accept', async () => {
    const d = await decide('API', 'REST')
    const tk = await task('t', [d])
    await deliver(tk)
    await rejectsWith(core.invoke('tasks.accept', { taskId: tk.id, actorId: impl.id }), 'forbidden')
  })
})

describe('authority and proposals', () => {
  it('observers may not edit; a proposer edit becomes a proposal that a decider accepts once', async () => {
    const d = await decide('API', 'REST')
    const tk = await task('t', [d])
    await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'in_progress' })
    await rejectsWith(
      core.invoke('decisions.update', { decisionId: d.id, expectedVersion: 1, statement: 'X', actorId: bystander.id }),
      'forbidden',
    )
    await rejectsWith(
      core.invoke('decisions.create', { workspaceId: ws.id, title: 'x', statement: 'y', actorId: bystander.id }),
      'forbidden',
    )

    const res = await core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'GraphQL',
      reason: 'clients want it',
      actorId: impl.id,
    })
    expect(res.proposal).toMatchObject({ state: 'pending', statement: 'GraphQL', baseVersion: 1, authorId: impl.id })
    expect(res.decision.version).toBe(1)
    expect(res.impact.tasks).toEqual([])
    expect((await core.invoke('tasks.get', { taskId: tk.id })).flag).toBeNull()

    await rejectsWith(core.invoke('proposals.accept', { proposalId: res.proposal!.id, actorId: impl.id }), 'forbidden')
    const accepted = await core.invoke('proposals.accept', { proposalId: res.proposal!.id, actorId: lead.id })
    expect(accepted.decision).toMatchObject({ version: 2, statement: 'GraphQL' })
    expect(accepted.impact.tasks.map((x) => x.key)).toEqual([tk.key])
    expect(accepted.proposal.state).toBe('accepted')
    await rejectsWith(core.invoke('proposals.accept', { proposalId: res.proposal!.id }), 'invalid_transition')
    const history = await core.invoke('decisions.history', { decisionId: d.id })
    expect(history[1]).toMatchObject({ reason: 'clients want it', actorId: lead.id })
  })

  it('a proposal written against an old version cannot overwrite a newer edit', async () => {
    const d = await decide('API', 'REST')
    const p = await core.invoke('proposals.create', { decisionId: d.id, statement: 'SOAP', actorId: impl.id })
    await edit(d, 'GraphQL')
    await rejectsWith(core.invoke('proposals.accept', { proposalId: p.id }), 'version_conflict')
    expect((await core.invoke('proposals.list', { workspaceId: ws.id })).map((x) => x.state)).toEqual(['pending'])
    const rejected = await core.invoke('proposals.reject', { proposalId: p.id, reason: 'outdated' })
    expect(rejected.state).toBe('rejected')
  })

  it('a proposer records decisions as proposed; superseding marks the old one superseded', async () => {
    const proposed = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 't',
      statement: 's',
      status: 'accepted',
      actorId: impl.id,
    })
    expect(proposed.status).toBe('proposed')
    const old = await decide('Cache', 'Redis')
    const tk = await task('t', [old])
    const next = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Cache v2',
      statement: 'Memcached',
      supersedes: old.id,
    })
    const oldNow = await core.invoke('decisions.get', { decisionId: old.id })
    expect(oldNow).toMatchObject({ status: 'superseded', supersededBy: next.id, version: 2 })
    expect(next.supersedes).toBe(old.id)
    expect((await core.invoke('tasks.get', { taskId: tk.id })).flag).toBe('requirements_updated')
  })
})

describe('tasks', () => {
  it('acknowledging re-pins links and clears the flag unless re-verification is owed', async () => {
    const d = await decide('API', 'REST')
    const a = await task('a', [d])
    await core.invoke('tasks.setStatus', { taskId: a.id, status: 'in_progress' })
    const b = await task('b', [d])
    await deliver(b)
    await edit(d, 'GraphQL')
    const ackA = await core.invoke('tasks.acknowledge', { taskId: a.id, actorId: impl.id })
    expect(ackA.flag).toBeNull()
    expect(ackA.links[0]).toMatchObject({ pinnedVersion: 2, state: 'current' })
    const ackB = await core.invoke('tasks.acknowledge', { taskId: b.id })
    expect(ackB.flag).toBe('needs_reverification')
    await rejectsWith(core.invoke('tasks.acknowledge', { taskId: a.id, actorId: tester.id }), 'forbidden')
  })

  it('blockers hold a task back until they are accepted, and cannot form a cycle', async () => {
    const a = await task('a', [])
    const b = await core.invoke('tasks.create', { workspaceId: ws.id, title: 'b', blockedBy: [a.id] })
    await rejectsWith(core.invoke('tasks.setStatus', { taskId: b.id, status: 'in_progress' }), 'task_blocked')
    await rejectsWith(core.invoke('tasks.update', { taskId: a.id, blockedBy: [b.id] }), 'invalid_params')
    await core.invoke('tasks.setStatus', { taskId: a.id, status: 'cancelled' })
    expect((await core.invoke('tasks.setStatus', { taskId: b.id, status: 'in_progress' })).status).toBe('in_progress')
  })

  it('refuses delivery without an artifact and accepted through setStatus', async () => {
    const tk = await task('t', [])
    await core.invoke('tasks.setStatus', { taskId: tk.id, status: 'in_progress' })
    await rejectsWith(core.invoke('tasks.setStatus', { taskId: tk.id, status: 'delivered' }), 'invalid_params')
    await rejectsWith(core.invoke('tasks.setStatus', { taskId: tk.id, status: 'accepted' }), 'invalid_transition')
  })
})

describe('bad input', () => {
  it('names the field and writes nothing', async () => {
    const d = await decide('API', 'REST')
    const e1 = await rejectsWith(
      core.call('decisions.update', { decisionId: d.id, expectedVersion: 'one' }),
      'invalid_params',
    )
    expect(e1.message).toContain('expectedVersion')
    const e2 = await rejectsWith(
      core.call('decisions.create', { workspaceId: ws.id, title: '  ', statement: 'x' }),
      'invalid_params',
    )
    expect(e2.message).toContain('title')
    const e3 = await rejectsWith(
      core.call('tasks.create', { workspaceId: ws.id, title: 't', decisionIds: [d.id, `${ws.id}-d99`] }),
      'not_found',
    )
    expect(e3.message).toContain('decisionIds[1]')
    expect(await core.invoke('tasks.list', { workspaceId: ws.id })).toEqual([])
    const e4 = await rejectsWith(
      core.call('reports.submit', { taskId: `${ws.id}-t1`, kind: 'test', verdict: 'pass', artifact: {}, claims: [] }),
      'invalid_params',
    )
    expect(e4.message).toContain('artifact')
    await rejectsWith(core.call('decisions.get', { decisionId: 'nope' }), 'invalid_params')
    await rejectsWith(core.call('decisions.get', { decisionId: 'w00000000-d1' }), 'not_found')
    await rejectsWith(core.call('no.such', {}), 'unknown_method')
    const e5 = await rejectsWith(
      core.call('decisions.update', { decisionId: d.id, expectedVersion: 1, statment: 'typo' }),
      'invalid_params',
    )
    expect(e5.message).toContain('statment')
    const tk = await task('t', [d])
    await deliver(tk)
    const e6 = await rejectsWith(
      core.call('reports.submit', {
        taskId: tk.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: SHA },
        claims: [{ text: 'ok', decisionIds: [`${ws.id}-d5`] }],
      }),
      'not_found',
    )
    expect(e6.message).toContain('claims[0].decisionIds[0]')
    expect(await core.invoke('reports.list', { taskId: tk.id })).toEqual([])
  })
})
