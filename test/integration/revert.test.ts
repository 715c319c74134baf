import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { deliverTask, testAndReview } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

const SHA = 'a'.repeat(40)

let t: OpenWorkspace
let core: Core
let ws: Workspace
let impl: Member, tester: Member, reviewer: Member, proposer: Member

/** How the export names the human: as git does here (the folder is no repository: the user's own git config). */
function gitName(dir: string): string {
  try {
    return execFileSync('git', ['config', '--get', 'user.name'], { cwd: dir, encoding: 'utf8' }).trim()
  } catch {
    return 'the Concord user'
  }
}
const rx = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

beforeEach(async () => {
  t = await openWorkspace()
  ;({ core, ws } = t)
  impl = await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
  tester = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tester', role: 'tester' })
  reviewer = await core.invoke('members.create', { workspaceId: ws.id, name: 'Rev', role: 'reviewer' })
  proposer = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Prop',
    role: 'lead',
    authority: 'proposer',
  })
})
afterEach(() => t.cleanup())

const decide = (statement: string) =>
  core.invoke('decisions.create', { workspaceId: ws.id, title: 'Timeout', statement, rationale: 'Slow upstreams.' })
const edit = (d: Decision, statement: string) =>
  core.invoke('decisions.update', { decisionId: d.id, expectedVersion: d.version, statement, reason: 'changed' })

async function delivered(d: Decision): Promise<Task> {
  const tk = await core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Search',
    assigneeId: impl.id,
    decisionIds: [d.id],
  })
  return deliverTask(core, tk, SHA)
}

const reports = (tk: Task, d: Decision) =>
  testAndReview(core, tk, { tester, reviewer }, [{ text: 'times out as decided', decisionIds: [d.id] }], SHA)

describe('decisions.revert', () => {
  it('reverting to v1 is a new revision with v1 content that restores the evidence pinned to v1 and lets the task be accepted', async () => {
    const d = await decide('Timeout 5 s.')
    const tk = await delivered(d)
    const { test } = await reports(tk, d)
    const v2 = await edit(d, 'Timeout 10 s.')
    expect(v2.impact.tasks).toEqual([expect.objectContaining({ key: tk.key, flag: 'needs_reverification' })])
    expect((await core.invoke('reports.get', { reportId: test.id })).validity).toBe('stale')

    const v3 = await core.invoke('decisions.revert', {
      decisionId: d.id,
      toVersion: 1,
      expectedVersion: 2,
      reason: '10 s was never measured',
    })
    expect(v3.decision).toMatchObject({ version: 3, statement: 'Timeout 5 s.', fingerprint: d.fingerprint })
    expect((await core.invoke('reports.get', { reportId: test.id })).validity).toBe('valid')
    expect((await core.invoke('tasks.accept', { taskId: tk.id })).status).toBe('accepted')

    const history = await core.invoke('decisions.history', { decisionId: d.id })
    expect(history.map((r) => [r.version, r.statement, r.reason])).toEqual([
      [1, 'Timeout 5 s.', 'created'],
      [2, 'Timeout 10 s.', 'changed'],
      [3, 'Timeout 5 s.', 'revert to v1: 10 s was never measured'],
    ])
  })

  it('reverting away from content evidence was pinned to flags it, as any normative edit does', async () => {
    const d = await decide('Timeout 5 s.')
    const v2 = await edit(d, 'Timeout 10 s.')
    const tk = await delivered(v2.decision)
    const { test, review } = await reports(tk, v2.decision)
    const v3 = await core.invoke('decisions.revert', { decisionId: d.id, toVersion: 1, expectedVersion: 2 })
    expect(v3.impact.normative).toBe(true)
    expect(v3.impact.tasks).toEqual([expect.objectContaining({ key: tk.key, flag: 'needs_reverification' })])
    expect(v3.impact.reports.map((r) => r.reportId).sort()).toEqual([test.id, review.id].sort())
    expect((await core.invoke('reports.get', { reportId: test.id })).validity).toBe('stale')
    await rejectsWith(core.invoke('tasks.accept', { taskId: tk.id }), 'evidence_stale')
  })

  it('refuses a revert to the current version or to content it already has, and one made against an older version', async () => {
    const d = await decide('Timeout 5 s.')
    const v2 = await edit(d, 'Timeout 10 s.')
    const current = await rejectsWith(
      core.invoke('decisions.revert', { decisionId: d.id, toVersion: 2, expectedVersion: 2 }),
      'already_current',
    )
    expect(current.message).toMatch(/already at v2/)
    await rejectsWith(
      core.invoke('decisions.revert', { decisionId: d.id, toVersion: 5, expectedVersion: 2 }),
      'already_current',
    )
    const stale = await rejectsWith(
      core.invoke('decisions.revert', { decisionId: d.id, toVersion: 1, expectedVersion: 1 }),
      'version_conflict',
    )
    expect(stale.details).toEqual({ currentVersion: 2 })
    await core.invoke('decisions.revert', { decisionId: d.id, toVersion: 1, expectedVersion: v2.decision.version })
    // v3 says what v1 said: reverting to v1 again changes nothing.
    const same = await rejectsWith(
      core.invoke('decisions.revert', { decisionId: d.id, toVersion: 1, expectedVersion: 3 }),
      'already_current',
    )
    expect(same.message).toMatch(/nothing to revert/)
    expect((await core.invoke('decisions.get', { decisionId: d.id })).version).toBe(3)
  })

  it('a proposer reverting proposes; the history and the MADR export say who proposed and who accepted', async () => {
    const d = await decide('Timeout 5 s.')
    await edit(d, 'Timeout 10 s.')
    const asked = await core.invoke('decisions.revert', {
      decisionId: d.id,
      toVersion: 1,
      expectedVersion: 2,
      actorId: proposer.id,
    })
    expect(asked.proposal).toMatchObject({ state: 'pending', statement: 'Timeout 5 s.', title: null, rationale: null })
    expect((await core.invoke('decisions.get', { decisionId: d.id })).version).toBe(2)
    await core.invoke('proposals.accept', { proposalId: asked.proposal!.id })

    const history = await core.invoke('decisions.history', { decisionId: d.id })
    expect(history.map((r) => [r.version, r.actorId, r.proposalId, r.proposedBy])).toEqual([
      [1, null, null, null],
      [2, null, null, null],
      [3, null, asked.proposal!.id, proposer.id],
    ])

    const result = await core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr' })
    const madr = readFileSync(result.files[0]!, 'utf8')
    const human = rx(gitName(t.repoDir))
    expect(madr).toMatch(new RegExp(`\\ndecision-makers:\\n {2}- "${human}"\\nconsulted:\\n {2}- "Prop \\(lead\\)"\\n`))
    expect(madr).toMatch(new RegExp(`\\| v3 \\| [^|]+ \\| ${human}, proposed by Prop \\(lead\\) \\|`))
    const log = readFileSync(
      (await core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'markdown' })).files[0]!,
      'utf8',
    )
    expect(log).toMatch(new RegExp(`\\n#### v3 · [^·]+ · ${human}, proposed by Prop \\(lead\\) · normative\\n`))
  })

  it('a decision a proposer created is proposed by it and decided by whoever accepted it', async () => {
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Cache',
      statement: 'Cache for 60 s.',
      actorId: proposer.id,
    })
    expect(d.status).toBe('proposed')
    await core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      status: 'accepted',
      reason: 'agreed',
    })
    const result = await core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr' })
    const madr = readFileSync(result.files[0]!, 'utf8')
    const human = rx(gitName(t.repoDir))
    expect(madr).toMatch(new RegExp(`\\ndecision-makers:\\n {2}- "${human}"\\nconsulted:\\n {2}- "Prop \\(lead\\)"\\n`))
  })
})
