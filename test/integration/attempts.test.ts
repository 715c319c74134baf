/**
 * Several attempts (issue 33, the review loop): "Try it with…" starts one task on 2–4 members, each attempt a task of
 * its own in its own branch and tree, its decisions and required reports copied; tasks.attempts lays out what each
 * changed (git diff against its base), its reports and verdicts, tokens and time; tasks.pickAttempt makes one the
 * task's delivery in one transaction and archives the others, their trees removed. Errors have stable codes.
 * Real SQLite file, real git repository, the scripted model server.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task } from '../../shared/schemas'
import { rejectsWith, waitForEvent } from '../fixtures/core'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ivy: Member
let kim: Member
let lee: Member

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const commit = (dir: string, msg: string) => {
  git(dir, 'add', '-A')
  git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', msg)
}
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', t.ws.id, task.key)

beforeEach(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree' })
  ivy = await t.member('Ivy')
  kim = await t.member('Kim')
  lee = await t.member('Lee')
  writeFileSync(join(t.repoDir, 'search.js'), 'export const timeout = 30\n')
  commit(t.repoDir, 'base: search.js')
})
afterEach(() => t.cleanup())

async function todo(): Promise<Task> {
  const d = await t.core.invoke('decisions.create', {
    workspaceId: t.ws.id,
    title: 'Search timeout',
    statement: 'Search gives up after 30 s.',
  })
  return t.core.invoke('tasks.create', {
    workspaceId: t.ws.id,
    title: 'Search timeout',
    spec: 'Stop searching after the timeout',
    decisionIds: [d.id],
    requiredReports: ['test'],
  })
}

describe('several attempts at one task', () => {
  it('tries a task with two members, compares them, picks one: its work becomes the task’s, the other is archived and its tree gone', async () => {
    const task = await todo()
    const { task: tried, attempts } = await t.core.invoke('tasks.tryWith', {
      taskId: task.id,
      memberIds: [ivy.id, kim.id],
    })
    expect(tried).toMatchObject({ status: 'todo', attempts: 2 })
    expect(attempts).toHaveLength(2)
    const [a, b] = attempts as [Task, Task]
    for (const [attempt, member] of [
      [a, ivy],
      [b, kim],
    ] as const) {
      expect(attempt).toMatchObject({
        status: 'in_progress',
        assigneeId: member.id,
        attemptOf: task.id,
        title: 'Search timeout',
        spec: 'Stop searching after the timeout',
        requiredReports: ['test'],
      })
      expect(attempt.links.map((l) => l.decisionId)).toEqual(task.links.map((l) => l.decisionId))
      expect(attempt.branch).toMatch(new RegExp(`^concord/${attempt.key}`))
      expect(existsSync(join(treeOf(attempt), 'search.js'))).toBe(true)
    }
    // The original cannot start on its own while its attempts run.
    await rejectsWith(
      t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' }),
      'invalid_transition',
    )

    // Each member delivers a different change; one turn on Ivy's attempt records tokens and time.
    writeFileSync(join(treeOf(a), 'search.js'), 'export const timeout = 5\n')
    commit(treeOf(a), 'timeout 5')
    writeFileSync(join(treeOf(b), 'search.js'), 'export const timeout = 10\nexport const retries = 2\n')
    writeFileSync(join(treeOf(b), 'retry.js'), 'export const retry = () => {}\n')
    commit(treeOf(b), 'timeout 10 with retries')
    t.server.enqueue({ text: 'Done.', usage: { input: 120, output: 30 } })
    const idle = waitForEvent(
      t.core,
      (e) => e.event === 'session.state' && e.payload.session.memberId === ivy.id && e.payload.session.state === 'idle',
      10_000,
      'Ivy idle after her turn',
    )
    await t.core.invoke('sessions.send', { memberId: ivy.id, text: 'Go', taskId: a.id })
    await idle
    const da = await t.core.invoke('tasks.setStatus', { taskId: a.id, status: 'delivered' })
    await t.core.invoke('tasks.setStatus', { taskId: b.id, status: 'delivered' })
    await t.core.invoke('reports.submit', {
      taskId: a.id,
      authorId: lee.id,
      kind: 'test',
      verdict: 'pass',
      summary: 'times out at 5 s',
      artifact: { commit: da.artifact!.commit! },
      basis: task.links.map((l) => ({ decisionId: l.decisionId, version: l.pinnedVersion })),
      claims: [{ text: 'gives up after 5 s', decisionIds: task.links.map((l) => l.decisionId) }],
    })

    const compared = await t.core.invoke('tasks.attempts', { taskId: task.id })
    expect(compared.pickedId).toBeNull()
    const [ca, cb] = compared.attempts
    expect(ca!.member?.name).toBe('Ivy')
    expect(ca!.files.map((f) => [f.path, f.additions, f.deletions])).toEqual([['search.js', 1, 1]])
    expect([ca!.additions, ca!.deletions]).toEqual([1, 1])
    expect(ca!.reports).toEqual([expect.objectContaining({ kind: 'test', verdict: 'pass', claims: 1 })])
    expect(ca!.tokens).toEqual({ input: 120, output: 30 })
    expect(ca!.durationMs).toBeGreaterThanOrEqual(0)
    expect(cb!.member?.name).toBe('Kim')
    expect(cb!.files.map((f) => [f.path, f.additions, f.deletions])).toEqual([
      ['retry.js', 1, 0],
      ['search.js', 2, 1],
    ])
    expect(cb!.reports).toEqual([])
    expect(cb!.tokens).toBeNull()
    // The same view from an attempt's own id.
    expect((await t.core.invoke('tasks.attempts', { taskId: b.id })).attempts.map((x) => x.task.id)).toEqual([
      a.id,
      b.id,
    ])

    // ---- the pick ----
    const picked = await t.core.invoke('tasks.pickAttempt', { taskId: task.id, attemptId: a.id })
    expect(picked.pickedId).toBe(a.id)
    const after = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(after).toMatchObject({
      status: 'delivered',
      assigneeId: ivy.id,
      artifact: { commit: da.artifact!.commit },
      branch: a.branch,
      pickedAttempt: a.id,
    })
    // The task has the picked attempt's diff and its reports.
    const diff = await t.core.invoke('tasks.diff', { taskId: task.id })
    expect(diff.patch).toContain('+export const timeout = 5')
    expect((await t.core.invoke('reports.list', { taskId: task.id })).map((r) => r.verdict)).toEqual(['pass'])
    expect(after.readiness, JSON.stringify(after.readiness)).toMatchObject({ ready: true })
    // The other attempt is cancelled and archived, its tree removed (its branch stays); the picked one is archived.
    const other = await t.core.invoke('tasks.get', { taskId: b.id })
    expect(other).toMatchObject({ status: 'cancelled', archivedAt: expect.any(String) })
    expect(existsSync(treeOf(b))).toBe(false)
    expect(git(t.repoDir, 'branch', '--list', b.branch!)).toContain(b.branch!)
    expect(existsSync(treeOf(a))).toBe(true)
    expect((await t.core.invoke('tasks.get', { taskId: a.id })).archivedAt).toEqual(expect.any(String))
    const listed = (await t.core.invoke('tasks.list', { workspaceId: t.ws.id })).map((x) => x.id)
    expect(listed).toEqual([task.id])
    // The compare view after the pick still reads both, the picked one's reports where they went.
    const [pa, pb] = picked.attempts
    expect(pa).toMatchObject({ picked: true, hasTree: true })
    expect(pa!.reports).toHaveLength(1)
    expect(pb).toMatchObject({ picked: false, hasTree: false })
    // Recorded as one event.
    const events = await t.core.invoke('events.list', { workspaceId: t.ws.id })
    expect(events.filter((e) => e.type === 'task.attemptPicked')).toHaveLength(1)
    // A second pick is refused; the task accepts like any delivered one.
    await rejectsWith(t.core.invoke('tasks.pickAttempt', { taskId: task.id, attemptId: b.id }), 'invalid_transition')
    expect((await t.core.invoke('tasks.accept', { taskId: task.id })).status).toBe('accepted')

    // The export keeps who tried what and which was picked; an import restores it.
    const exported = await t.core.invoke('export.decisionLog', { workspaceId: t.ws.id, format: 'json' })
    const doc = JSON.parse(readFileSync(exported.files[0]!, 'utf8')) as { tasks: Record<string, unknown>[] }
    expect(doc.tasks.map((x) => [x.id, x.attemptOf ?? null, x.pickedAttempt ?? null])).toEqual([
      ['T-1', null, 'T-2'],
      ['T-2', 'T-1', null],
      ['T-3', 'T-1', null],
    ])
    const repo2 = join(t.repoDir, '..', 'repo2')
    mkdirSync(repo2)
    const restored = await t.core.invoke('import.workspace', { path: exported.files[0]!, repoPath: repo2 })
    const again = (await t.core.invoke('tasks.list', { workspaceId: restored.id }))[0]!
    expect(again).toMatchObject({ key: 'T-1', attempts: 2, pickedAttempt: expect.stringMatching(/-t2$/) })
  })

  it('interrupts a member still working on an attempt that was not picked, before its tree goes', async () => {
    const task = await todo()
    const { attempts } = await t.core.invoke('tasks.tryWith', { taskId: task.id, memberIds: [ivy.id, kim.id] })
    const [a, b] = attempts as [Task, Task]
    writeFileSync(join(treeOf(a), 'search.js'), 'export const timeout = 5\n')
    commit(treeOf(a), 'timeout 5')
    await t.core.invoke('tasks.setStatus', { taskId: a.id, status: 'delivered' })
    // Kim's turn on her attempt is still streaming (the model never finishes) when Ivy's is picked.
    t.server.enqueue({ text: 'Still thinking about', hang: true })
    const running = waitForEvent(
      t.core,
      (e) =>
        e.event === 'session.state' && e.payload.session.memberId === kim.id && e.payload.session.state === 'running',
      10_000,
      'Kim running',
    )
    await t.core.invoke('sessions.send', { memberId: kim.id, text: 'Go', taskId: b.id })
    await running
    await t.server.waitForRequests(1)
    const idle = waitForEvent(
      t.core,
      (e) => e.event === 'session.state' && e.payload.session.memberId === kim.id && e.payload.session.state === 'idle',
      10_000,
      'Kim stopped by the pick',
    )
    await t.core.invoke('tasks.pickAttempt', { taskId: task.id, attemptId: a.id })
    await idle
    expect(existsSync(treeOf(b))).toBe(false)
    const session = await t.core.invoke('sessions.get', { memberId: kim.id, taskId: b.id })
    expect(session.steps.some((s) => s.kind === 'interrupted' || s.status === 'interrupted')).toBe(true)
  })

  it('refuses bad tries and picks with stable codes', async () => {
    const task = await todo()
    await rejectsWith(t.core.invoke('tasks.tryWith', { taskId: task.id, memberIds: [ivy.id] }), 'too_few_attempts')
    await rejectsWith(
      t.core.invoke('tasks.tryWith', { taskId: task.id, memberIds: [ivy.id, ivy.id] }),
      'too_few_attempts',
    )
    const more = [await t.member('Max'), await t.member('Noa')]
    await rejectsWith(
      t.core.invoke('tasks.tryWith', {
        taskId: task.id,
        memberIds: [ivy.id, kim.id, lee.id, ...more.map((m) => m.id)],
      }),
      'too_many_attempts',
    )
    const ghost = ivy.id.replace(/m\d+$/, 'm999')
    await rejectsWith(t.core.invoke('tasks.tryWith', { taskId: task.id, memberIds: [ivy.id, ghost] }), 'not_found')
    await rejectsWith(
      t.core.invoke('tasks.tryWith', { taskId: task.id, memberIds: [ivy.id, kim.id], actorId: lee.id }),
      'forbidden',
    )
    // Nothing was made by the refused tries.
    expect(await t.core.invoke('tasks.list', { workspaceId: t.ws.id })).toHaveLength(1)

    const started = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Started', assigneeId: ivy.id })
    await t.core.invoke('tasks.setStatus', { taskId: started.id, status: 'in_progress' })
    await rejectsWith(
      t.core.invoke('tasks.tryWith', { taskId: started.id, memberIds: [ivy.id, kim.id] }),
      'invalid_transition',
    )

    const { attempts } = await t.core.invoke('tasks.tryWith', { taskId: task.id, memberIds: [ivy.id, kim.id, lee.id] })
    expect(attempts).toHaveLength(3)
    // Tried once: again is refused, and so is a try of an attempt.
    await rejectsWith(
      t.core.invoke('tasks.tryWith', { taskId: task.id, memberIds: [ivy.id, kim.id] }),
      'invalid_transition',
    )
    await rejectsWith(
      t.core.invoke('tasks.tryWith', { taskId: attempts[0]!.id, memberIds: [ivy.id, kim.id] }),
      'invalid_transition',
    )
    // An attempt that has not delivered cannot be picked; a task that is not this one's attempt neither.
    await rejectsWith(
      t.core.invoke('tasks.pickAttempt', { taskId: task.id, attemptId: attempts[0]!.id }),
      'invalid_transition',
    )
    await rejectsWith(t.core.invoke('tasks.pickAttempt', { taskId: task.id, attemptId: started.id }), 'invalid_params')
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).attempts).toBe(3)
  })
})
