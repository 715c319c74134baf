/**
 * Verified merges (issue 30), in a real repository with real task trees and the scripted model server: with the
 * workspace setting merges: verified (default), tasks.merge on a task whose merge would land a tree no report checked
 * queues it; the queue updates its branch, the tester (and reviewer where files overlap) re-verify the new head on
 * their automatic turns, and the merge lands by itself: main's tree is the tree the passing test report checked.
 * as-accepted lands at once; a queued merge can be cancelled; where no file is in common only the test runs again;
 * a queue survives a restart and resumes at the next start (a hotfix made meanwhile is handled like a sibling merge).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { memberScripts, type MemberScripts } from '../fixtures/member-scripts'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ws: Workspace
let ivy: Member
let tess: Member
let rita: Member
let replies: MemberScripts

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)
const search = (lines: Record<number, string> = {}) =>
  Array.from({ length: 12 }, (_, i) => lines[i] ?? `line ${i}`).join('\n') + '\n'
const get = (task: Task) => t.core.invoke('tasks.get', { taskId: task.id })
/** The model's call of submit_report: a passing report of this kind on the task, at the head of its checkout. */
const reportCall = (task: Task, kind: 'test' | 'review') => ({
  toolCalls: [
    { name: 'submit_report', arguments: { taskId: task.key, kind, verdict: 'pass', summary: 'ok', claims: [] } },
  ],
})
const concordTurns = async (m: Member) =>
  (await t.core.invoke('sessions.get', { memberId: m.id })).steps.filter((s) => s.origin === 'concord')

beforeEach(async () => {
  replies = memberScripts(() => ({ text: 'noted' }))
  t = await workspaceWithTeam({
    isolation: 'worktree',
    core: { provider: { maxRetries: 0 }, taskStartTurns: false },
    server: { unscripted: replies.unscripted },
    memberDefaults: () => ({ authority: 'proposer' }),
  })
  ws = t.ws
  // These tests script each member's turns for the queue's re-verification; the first checks a delivery asks for
  // itself (autoChecks, checks-asked.test.ts) would take those scripted replies first.
  await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoChecks: false })
  mkdirSync(join(t.repoDir, 'src'))
  writeFileSync(join(t.repoDir, 'src', 'search.js'), search())
  writeFileSync(join(t.repoDir, 'src', 'list.js'), search())
  git(t.repoDir, 'add', '-A')
  git(t.repoDir, 'commit', '-qm', 'search')
  ivy = await t.member('Ivy', { role: 'implementer' })
  tess = await t.member('Tess', { role: 'tester' })
  rita = await t.member('Rita', { role: 'reviewer' })
})
afterEach(() => t.cleanup())

/** A task started, its files committed in its tree, delivered, with passing reports of each kind, and accepted. */
async function accepted(
  title: string,
  files: Record<string, string>,
  kinds: ('test' | 'review')[] = ['test'],
): Promise<Task> {
  const created = await t.core.invoke('tasks.create', {
    workspaceId: ws.id,
    title,
    assigneeId: ivy.id,
    requiredReports: kinds,
  })
  const task = await t.core.invoke('tasks.setStatus', { taskId: created.id, status: 'in_progress' })
  const dir = treeOf(task)
  for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', title)
  const done = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  for (const kind of kinds)
    await t.core.invoke('reports.submit', {
      taskId: task.id,
      authorId: kind === 'test' ? tess.id : rita.id,
      kind,
      verdict: 'pass',
      artifact: { commit: done.artifact!.commit! },
      summary: 'pass',
      claims: [],
    })
  await expect.poll(async () => (await get(task)).base?.commit).toBe(done.artifact!.commit)
  return t.core.invoke('tasks.accept', { taskId: task.id })
}

/** T-1 and T-2 both accepted, T-1 merged: main moved under T-2. */
async function siblings(t2Files: Record<string, string>, kinds: ('test' | 'review')[] = ['test']) {
  const t1 = await accepted('Results', { 'src/search.js': search({ 2: 'return { results, incomplete }' }) })
  const t2 = await accepted('Bullets', t2Files, kinds)
  await t.core.invoke('tasks.merge', { taskId: t1.id })
  await expect.poll(async () => (await get(t2)).base?.landsAsChecked).toBe(false)
  return { t1, t2 }
}

/** Each test runs several trees, merges and model turns on a small shared machine. */
const SLOW = 90_000

describe('verified merges', () => {
  it(
    'queues a task the base moved under, re-verifies the updated head on automatic turns, and lands what was checked',
    async () => {
      const { t2 } = await siblings({ 'src/search.js': search({ 9: 'bullets(search())' }) }, ['test', 'review'])
      const preview = await t.core.invoke('tasks.mergePreview', { taskId: t2.id })
      expect(preview).toMatchObject({ merges: 'verified', queued: true, blocked: { code: 'base_moved' } })
      expect(preview.text).toContain('Merge queues T-2')
      const mainBefore = git(t.repoDir, 'rev-parse', 'main')
      // Files overlap (src/search.js): everything is checked again, the test and the review.
      replies.script('Tess', reportCall(t2, 'test'))
      replies.script('Rita', reportCall(t2, 'review'))

      const answer = await t.core.invoke('tasks.merge', { taskId: t2.id })
      // Not landed on its old evidence: queued.
      expect(answer.merged).toBeNull()
      expect(answer.mergeQueue).toMatchObject({ position: 1, queuedBy: null })
      expect(git(t.repoDir, 'rev-parse', 'main')).toBe(mainBefore)

      await expect.poll(async () => (await get(t2)).merged, { timeout: 30_000 }).not.toBeNull()
      const done = await get(t2)
      expect(done.mergeQueue).toBeNull()
      // The card said what it waited for, naming the members and the head.
      const states = t.events
        .filter((e) => e.event === 'task.changed' && e.payload.task.id === t2.id)
        .map((e) => (e.payload as { task: Task }).task.mergeQueue?.message ?? '')
      expect(states.some((m) => /waiting for .*Tess's test on [0-9a-f]{7}/.test(m))).toBe(true)

      // main's tree is exactly the tree the passing test report checked, and the review checked the same commit.
      const reports = await t.core.invoke('reports.list', { taskId: t2.id })
      const test = reports.filter((r) => r.kind === 'test').at(-1)!
      const review = reports.filter((r) => r.kind === 'review').at(-1)!
      expect(test.authorId).toBe(tess.id)
      expect(test.artifact.commit).not.toBe(t2.artifact!.commit)
      expect(review.artifact.commit).toBe(test.artifact.commit)
      expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).toBe(
        git(t.repoDir, 'rev-parse', `${test.artifact.commit}^{tree}`),
      )
      // Both changes are in main.
      const landed = git(t.repoDir, 'show', 'main:src/search.js')
      expect(landed).toContain('return { results, incomplete }')
      expect(landed).toContain('bullets(search())')
      // Re-accepted by the queued intent, recorded as such.
      const events = await t.core.invoke('events.list', { workspaceId: ws.id })
      expect(
        events.find((e) => e.type === 'task.accepted' && (e.payload as { by?: string }).by === 'merge_queue'),
      ).toBeDefined()
      expect((await concordTurns(tess)).length).toBe(1)
      expect((await concordTurns(rita)).length).toBe(1)
    },
    SLOW,
  )

  it(
    'a re-verification that fails goes to the assignee; the fix is verified again and lands, never the failing tree',
    async () => {
      // No file in common: the update tells nobody but the tester, whose test fails on the updated head.
      const { t2 } = await siblings({ 'src/list.js': search({ 9: 'bullets(search())' }) })
      const failing = {
        toolCalls: [
          {
            name: 'submit_report',
            arguments: { taskId: t2.key, kind: 'test', verdict: 'fail', summary: 'TypeError in bullets', claims: [] },
          },
        ],
      }
      replies.script('Tess', failing, reportCall(t2, 'test'))
      replies.script(
        'Ivy',
        {
          toolCalls: [
            {
              name: 'write_file',
              arguments: { path: 'src/list.js', content: search({ 9: 'bullets(search().results)' }) },
            },
          ],
        },
        { toolCalls: [{ name: 'git_commit', arguments: { message: 'bullets read results' } }] },
        { toolCalls: [{ name: 'update_task_status', arguments: { taskId: t2.key, status: 'delivered' } }] },
        { text: 'fixed' },
      )
      const mainBefore = git(t.repoDir, 'rev-parse', 'main')
      await t.core.invoke('tasks.merge', { taskId: t2.id })
      // The failing report is on the updated head: the queue says it waits for Ivy, and asks her.
      await expect
        .poll(async () => (await get(t2)).mergeQueue?.message ?? '', { timeout: 30_000 })
        .toContain("waiting for Ivy to fix what Tess's test found")
      expect(git(t.repoDir, 'rev-parse', 'main')).toBe(mainBefore)
      await expect.poll(async () => (await get(t2)).merged, { timeout: 60_000 }).not.toBeNull()
      const asked = await concordTurns(ivy)
      expect(asked).toHaveLength(1)
      expect(asked[0]!.text).toMatch(
        /T-2 is queued to merge, and Tess's test report R-\d+ on [0-9a-f]{7} fails: TypeError in bullets/,
      )
      const tests = (await t.core.invoke('reports.list', { taskId: t2.id })).filter((r) => r.kind === 'test')
      expect(tests.map((r) => r.verdict)).toEqual(['pass', 'fail', 'pass'])
      // What landed is what the last, passing test checked: Ivy's fix, not the tree that failed.
      expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).toBe(
        git(t.repoDir, 'rev-parse', `${tests[2]!.artifact.commit}^{tree}`),
      )
      expect(git(t.repoDir, 'show', 'main:src/list.js')).toContain('bullets(search().results)')
    },
    SLOW,
  )

  it(
    'where the update changes none of the task’s files, the review carries over and only the test runs again',
    async () => {
      const { t2 } = await siblings({ 'src/list.js': search({ 9: 'bullets' }) }, ['test', 'review'])
      replies.script('Tess', reportCall(t2, 'test'))
      const answer = await t.core.invoke('tasks.merge', { taskId: t2.id })
      expect(answer.merged).toBeNull()
      await expect.poll(async () => (await get(t2)).merged, { timeout: 30_000 }).not.toBeNull()
      const reports = await t.core.invoke('reports.list', { taskId: t2.id })
      const tests = reports.filter((r) => r.kind === 'test')
      // One review, on the old head, carried over; the test again on the new head, whose tree is main's.
      expect(reports.filter((r) => r.kind === 'review')).toHaveLength(1)
      expect(tests).toHaveLength(2)
      expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).toBe(
        git(t.repoDir, 'rev-parse', `${tests[1]!.artifact.commit}^{tree}`),
      )
      expect(await concordTurns(rita)).toHaveLength(0)
      expect(await concordTurns(ivy)).toHaveLength(0)
      expect(await concordTurns(tess)).toHaveLength(1)
    },
    SLOW,
  )

  it(
    'several queued merges go through one queue in order, each verified on top of the one before',
    async () => {
      const { t2 } = await siblings({ 'src/search.js': search({ 9: 'bullets(search())' }) })
      const t3 = await accepted('Docs', { 'src/list.js': search({ 4: 'documented' }) })
      replies.script('Tess', reportCall(t2, 'test'), reportCall(t3, 'test'))
      const first = await t.core.invoke('tasks.merge', { taskId: t2.id })
      const second = await t.core.invoke('tasks.merge', { taskId: t3.id })
      expect(first.mergeQueue?.position).toBe(1)
      expect(second.mergeQueue).toMatchObject({ position: 2, state: 'waiting' })
      await expect.poll(async () => (await get(t3)).merged, { timeout: 60_000 }).not.toBeNull()
      const merged2 = (await get(t2)).merged!.commit
      const tests3 = (await t.core.invoke('reports.list', { taskId: t3.id })).filter((r) => r.kind === 'test')
      const checked3 = tests3.at(-1)!.artifact.commit!
      // T-3 was updated only after T-2 landed: its checked head has T-2's merge in it, and main is exactly its tree.
      git(t.repoDir, 'merge-base', '--is-ancestor', merged2, checked3)
      expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).toBe(git(t.repoDir, 'rev-parse', `${checked3}^{tree}`))
      expect(git(t.repoDir, 'show', 'main:src/search.js')).toContain('bullets(search())')
      const order = (await t.core.invoke('events.list', { workspaceId: ws.id }))
        .filter((e) => e.type === 'task.merged')
        .map((e) => (e.payload as { taskId: number }).taskId)
      expect(order.slice(-2)).toEqual([Number(t2.key.slice(2)), Number(t3.key.slice(2))])
    },
    SLOW,
  )

  it(
    'a hotfix on main that conflicts with a queued task hands it to its assignee; resolved, it is verified and lands',
    async () => {
      const { t2 } = await siblings({ 'src/search.js': search({ 9: 'bullets(search())' }) })
      // Tess's first turn ends without a report; her second (on the resolved head) reports.
      replies.script('Tess', { text: 'I will test it later' }, reportCall(t2, 'test'))
      await t.core.invoke('tasks.merge', { taskId: t2.id })
      await expect.poll(async () => (await get(t2)).mergeQueue?.state, { timeout: 20_000 }).toBe('verifying')
      // Your own commit on main, on the line T-2 changed: treated like a sibling merge.
      writeFileSync(join(t.repoDir, 'src', 'search.js'), search({ 2: 'return { results, incomplete }', 9: 'hotfix' }))
      git(t.repoDir, 'commit', '-qam', 'hotfix')
      await expect.poll(async () => (await get(t2)).mergeQueue?.state, { timeout: 20_000 }).toBe('conflict')
      expect((await get(t2)).mergeQueue?.message).toMatch(/conflicts with main in src\/search\.js: waiting for Ivy/)
      expect(git(t.repoDir, 'show', 'main:src/search.js')).not.toContain('bullets')
      // Ivy resolves it (here by hand, in her tree) and delivers again: the queue goes on by itself.
      const tree = treeOf(t2)
      writeFileSync(
        join(tree, 'src', 'search.js'),
        search({ 2: 'return { results, incomplete }', 9: 'hotfix; bullets(search())' }),
      )
      git(tree, 'commit', '-qam', 'resolved')
      await t.core.invoke('tasks.setStatus', { taskId: t2.id, status: 'delivered' })
      await expect.poll(async () => (await get(t2)).merged, { timeout: 30_000 }).not.toBeNull()
      const test = (await t.core.invoke('reports.list', { taskId: t2.id })).filter((r) => r.kind === 'test').at(-1)!
      expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).toBe(
        git(t.repoDir, 'rev-parse', `${test.artifact.commit}^{tree}`),
      )
      expect(git(t.repoDir, 'show', 'main:src/search.js')).toContain('hotfix; bullets(search())')
    },
    SLOW,
  )

  it(
    'as-accepted lands at once, the merged tree not re-verified, and the preview says so',
    async () => {
      await t.core.invoke('workspaces.update', { workspaceId: ws.id, merges: 'as-accepted' })
      expect((await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).merges).toBe('as-accepted')
      const { t2 } = await siblings({ 'src/search.js': search({ 9: 'bullets(search())' }) })
      const preview = await t.core.invoke('tasks.mergePreview', { taskId: t2.id })
      expect(preview).toMatchObject({ merges: 'as-accepted', queued: false })
      expect(preview.text).toContain('As accepted: the merged tree is not re-verified.')
      const merged = await t.core.invoke('tasks.merge', { taskId: t2.id })
      expect(merged.merged).not.toBeNull()
      expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).not.toBe(
        git(t.repoDir, 'rev-parse', `${t2.artifact!.commit}^{tree}`),
      )
      await rejectsWith(
        t.core.invoke('workspaces.update', { workspaceId: ws.id, merges: 'sometimes' as 'verified' }),
        'invalid_params',
      )
    },
    SLOW,
  )

  it(
    'a queued merge can be cancelled: the task stays delivered and never lands by itself',
    async () => {
      const { t2 } = await siblings({ 'src/search.js': search({ 9: 'bullets(search())' }) })
      const queued = await t.core.invoke('tasks.merge', { taskId: t2.id })
      expect(queued.mergeQueue).not.toBeNull()
      // Tess answers without a report (her fallback): the queue waits for her test on the updated head.
      await expect.poll(async () => (await get(t2)).mergeQueue?.state, { timeout: 20_000 }).toBe('verifying')
      expect((await get(t2)).mergeQueue?.waitingFor).toEqual([
        expect.objectContaining({ memberName: 'Tess', kind: 'test' }),
      ])
      const cancelled = await t.core.invoke('tasks.unqueueMerge', { taskId: t2.id })
      expect(cancelled.mergeQueue).toBeNull()
      await rejectsWith(t.core.invoke('tasks.unqueueMerge', { taskId: t2.id }), 'invalid_transition')
      const head = (await get(t2)).artifact!.commit!
      await t.core.invoke('reports.submit', {
        taskId: t2.id,
        authorId: tess.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: head },
        summary: 'pass',
        claims: [],
      })
      const after = await get(t2)
      expect(after.status).toBe('delivered')
      expect(after.readiness.ready).toBe(true)
      expect(after.merged).toBeNull()
    },
    SLOW,
  )

  it(
    'refuses with merge_unverifiable when no member can verify it again',
    async () => {
      const { t2 } = await siblings({ 'src/search.js': search({ 9: 'bullets(search())' }) })
      await t.core.invoke('members.update', { memberId: tess.id, role: 'writer' })
      const err = await rejectsWith(t.core.invoke('tasks.merge', { taskId: t2.id }), 'merge_unverifiable')
      expect(err.details).toMatchObject({ needs: ['test'] })
      expect((await get(t2)).mergeQueue).toBeNull()
    },
    SLOW,
  )

  it(
    'survives a restart and resumes at the next start, handling a hotfix made meanwhile like a sibling merge',
    async () => {
      const { t2 } = await siblings({ 'src/search.js': search({ 9: 'bullets(search())' }) })
      await t.core.invoke('tasks.merge', { taskId: t2.id })
      await expect.poll(async () => (await get(t2)).mergeQueue?.state, { timeout: 20_000 }).toBe('verifying')
      const updated = (await get(t2)).artifact!.commit!
      await t.core.close()
      // While Concord is closed, the user commits a hotfix on main.
      writeFileSync(join(t.repoDir, 'notes.md'), 'hotfix\n')
      git(t.repoDir, 'add', '-A')
      git(t.repoDir, 'commit', '-qm', 'hotfix')
      const hotfix = git(t.repoDir, 'rev-parse', 'main')
      t.core = createCore({ dataDir: t.dataDir, provider: { maxRetries: 0 }, taskStartTurns: false })
      // Nobody calls anything: the queue resumes, brings the hotfix into T-2 and waits for the test on the new head.
      await expect.poll(async () => (await get(t2)).artifact?.commit, { timeout: 20_000 }).not.toBe(updated)
      const head = (await get(t2)).artifact!.commit!
      git(t.repoDir, 'merge-base', '--is-ancestor', hotfix, head)
      await expect.poll(async () => (await get(t2)).mergeQueue?.state, { timeout: 20_000 }).toBe('verifying')
      await t.core.invoke('reports.submit', {
        taskId: t2.id,
        authorId: tess.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: head },
        summary: 'pass',
        claims: [],
      })
      await expect.poll(async () => (await get(t2)).merged, { timeout: 20_000 }).not.toBeNull()
      expect(git(t.repoDir, 'rev-parse', 'main^{tree}')).toBe(git(t.repoDir, 'rev-parse', `${head}^{tree}`))
    },
    SLOW,
  )
})
