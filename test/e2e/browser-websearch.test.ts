/**
 * THE SCENARIO of issue 13 (DESIGN's Web Search example), in the real UI: an implementer, a tester and a reviewer
 * (members on the scripted model server) work on T-1 "Web search tool", linked to the timeout decision D-1, in a
 * worktree workspace with autoDeliver on. The human sends one first message, edits D-1 once in the decisions
 * panel, and later accepts and merges. Everything between (flag, re-verification turns, redelivery, new test and
 * review reports) is Concord's: the human types no message to relay the change. The test counts every human
 * action it performs and writes the tally to /work/notes/issue13-scenario.md (CONCORD_NOTES overrides).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Task } from '../../shared/schemas'
import { initRepo, waitForEvent } from '../fixtures/core'
import { needsSandbox } from '../fixtures/sandbox-gate'
import { startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from '../fixtures/model-server'
import { browserSession, newPage, screenshot } from './support'

// The product's default: starting a task starts its assignee's turn (the human types no first message).
const ui = browserSession({ taskStartTurns: true })
const notesFile = process.env.CONCORD_NOTES ?? '/work/notes/issue13-scenario.md'

type Reply = ScriptedReply | (() => ScriptedReply)
let models: ModelServer
const scripts = new Map<string, Reply[]>()
const nameOf = (r: RecordedRequest) => /You are ([^,]+), the/.exec(r.body.messages[0].content as string)?.[1] ?? '?'
const script = (name: string, ...replies: Reply[]) => scripts.set(name, [...(scripts.get(name) ?? []), ...replies])
beforeAll(async () => {
  models = await startModelServer({
    unscripted: (req) => {
      const next = scripts.get(nameOf(req))?.shift() ?? { text: 'Done.' }
      return typeof next === 'function' ? next() : next
    },
  })
})
afterAll(async () => models.close())

/** Every click, fill and key press the human makes, with what it was for. */
const actions: { what: string; typedMessage: boolean; approval?: 'escape' }[] = []
async function human<T>(what: string, fn: () => Promise<T>, typedMessage = false, approval?: 'escape'): Promise<T> {
  actions.push({ what, typedMessage, ...(approval ? { approval } : {}) })
  return fn()
}

const call = (name: string, args: object): ScriptedReply => ({ toolCalls: [{ name, arguments: args }] })

describe('browser UI: the Web Search scenario closes its loop with zero relays', () => {
  it('one decision edit, then flags, automatic turns, reports and acceptance take T-1 to accepted and merged', async (ctx) => {
    // The scenario runs under a new team's default policy, sandboxed, which exists only where the OS sandbox does.
    await needsSandbox(ctx)
    const core = ui.stack.core
    const repo = ui.stack.repoDir
    initRepo(repo)
    const ws = await core.invoke('workspaces.open', {
      repoPath: repo,
      name: 'web-search',
      isolation: 'worktree',
      baseBranch: 'main',
    })
    const provider = { kind: 'openai' as const, model: 'gpt-test', baseURL: models.openaiBaseURL, apiKey: 'sk-test' }
    // The default policy of a new team: no approval given, so Concord's (sandboxed where the OS sandbox works).
    const mk = (name: string, role: string) =>
      core.invoke('members.create', { workspaceId: ws.id, name, role, provider, authority: 'proposer' })
    const impl = await mk('Implementer', 'implementer')
    const tester = await mk('Tester', 'tester')
    const reviewer = await mk('Reviewer', 'reviewer')
    expect([impl, tester, reviewer].map((m) => m.approval)).toEqual(['sandboxed', 'sandboxed', 'sandboxed'])
    // Every call any member waited on, by its arguments: only the escape attempt may be among them.
    const asked = new Map<string, string>()
    core.bus.on((e) => {
      if (e.event === 'session.state')
        for (const a of e.payload.session.pendingApprovals) asked.set(a.callId, `${a.name} ${a.argumentsText}`)
    })
    const d1 = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Web search timeout',
      statement: 'Web search gives up after 5 s and returns an error.',
      rationale: 'Fail fast: a slow search blocks the answer.',
    })
    const t1 = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Web search tool',
      spec: 'A web_search(query) tool that calls the search provider.',
      acceptanceCriteria: 'Honours D-1 exactly.',
      assigneeId: impl.id,
      decisionIds: [d1.id],
      requiredReports: ['test', 'review'],
    })
    let latest: Task = await core.invoke('tasks.get', { taskId: t1.id })
    core.bus.on((e) => {
      if (e.event === 'task.changed' && e.payload.task.id === t1.id) latest = e.payload.task
    })
    // The head of T-1's tree (a repository of its own; Concord brings it into the user's repository when it reads it).
    const branchHead = () =>
      execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: join(ui.stack.dataDir, 'worktrees', ws.id, 'T-1'),
        encoding: 'utf8',
      }).trim()
    const reportOn = (kind: 'test' | 'review', version: number) =>
      waitForEvent(
        core,
        (e) =>
          e.event === 'report.submitted' &&
          e.payload.report.kind === kind &&
          e.payload.report.basis[0]?.version === version,
        30_000,
      )

    // ---- the work before the change: the implementer builds, asks for a test and a review, reports; autoDeliver delivers ----
    script(
      'Implementer',
      call('write_file', {
        path: 'search.ts',
        content: 'export const timeoutMs = 5_000\nexport const onTimeout = "error"\n',
      }),
      call('run_command', { command: 'grep -c timeoutMs search.ts' }),
      // The escape attempt: a write outside the task's tree. It leaves the sandbox, so it asks; the human denies it.
      call('write_file', { path: '../escape.txt', content: 'outside the tree\n' }),
      call('git_commit', { message: 'web_search: give up after 5 s with an error (D-1)' }),
      {
        toolCalls: [
          {
            name: 'message_member',
            arguments: { memberId: 'Tester', text: 'T-1 is committed on its branch: please test it against D-1.' },
          },
          {
            name: 'message_member',
            arguments: { memberId: 'Reviewer', text: 'T-1 is committed on its branch: please review it.' },
          },
        ],
      },
      call('submit_report', {
        taskId: 'T-1',
        kind: 'implementation',
        verdict: 'pass',
        summary: '5 s timeout, error on timeout',
        claims: [{ text: 'gives up after 5 s', decisionIds: ['D-1'] }],
      }),
    )
    // They check the branch head the implementer committed (their own turn has no task of theirs to check out).
    script('Tester', () =>
      call('submit_report', {
        taskId: 'T-1',
        kind: 'test',
        verdict: 'pass',
        summary: 'timeout test green',
        commit: branchHead(),
        claims: [{ text: 'a 6 s search fails with an error', decisionIds: ['D-1'] }],
      }),
    )
    script('Reviewer', () =>
      call('submit_report', {
        taskId: 'T-1',
        kind: 'review',
        verdict: 'pass',
        summary: 'reads well',
        commit: branchHead(),
        claims: [{ text: 'the timeout is one constant', decisionIds: ['D-1'] }],
      }),
    )
    const tested1 = reportOn('test', 1)
    const reviewed1 = reportOn('review', 1)
    const delivered1 = waitForEvent<{ task: Task }>(
      core,
      (e) => e.event === 'task.changed' && e.payload.task.id === t1.id && e.payload.task.status === 'delivered',
      30_000,
    )

    const page = ui.page
    await page.goto(ui.stack.url)
    // Everything from here is the human's, in the UI: one setting, the task's start, and what the work asks of them.
    await human('turn on "Deliver on a passing implementation report"', () =>
      page.getByTestId('setting-autoDeliver').click(),
    )
    await expect
      .poll(async () => (await core.invoke('workspaces.settings', { workspaceId: ws.id })).autoDeliver)
      .toBe(true)
    await human('open Tasks', () => page.getByTestId('tab-tasks').click())
    // Starting T-1 starts the Implementer's turn on it (Concord's message names the task, its spec and criteria).
    await human('move T-1 to in progress', () => page.getByLabel('Move T-1').selectOption('in_progress'))
    await human('open the Implementer (it waits for an approval)', () =>
      page.getByTestId('member-item').filter({ hasText: 'Implementer' }).click(),
    )
    const bar = page.locator('[data-testid=member-session]').getByTestId('approval-bar')
    await bar.getByTestId('approval-item').filter({ hasText: 'escape.txt' }).waitFor()
    expect(await bar.getByTestId('approval-why').textContent()).toContain("outside the task's tree")
    await screenshot(page, 'websearch-00-escape-asks-1440')
    await human('Deny… the escape', () => bar.getByRole('button', { name: 'Deny…' }).click(), false, 'escape')
    await human(
      'type why',
      () => bar.getByLabel('Reason for denying').fill('stay inside the task’s tree'),
      false,
      'escape',
    )
    await human('Deny', () => bar.getByRole('button', { name: 'Deny', exact: true }).click(), false, 'escape')
    await bar.waitFor({ state: 'detached' })
    const c1 = (await delivered1).payload.task.artifact!.commit!
    await Promise.all([tested1, reviewed1])
    await screenshot(page, 'websearch-01-before-the-change-1440')

    // ---- the change, made once by the human in the decisions panel; the scripted members react to it ----
    script(
      'Implementer',
      call('update_task_status', { taskId: 'T-1', status: 'in_progress' }),
      call('write_file', {
        path: 'search.ts',
        content: 'export const timeoutMs = 10_000\nexport const onTimeout = "partial results"\n',
      }),
      call('git_commit', { message: 'web_search: 10 s, then partial results (D-1 v2)' }),
      call('acknowledge_task', { taskId: 'T-1' }),
      call('submit_report', {
        taskId: 'T-1',
        kind: 'implementation',
        verdict: 'pass',
        summary: '10 s, partial results',
        claims: [{ text: 'returns partial results after 10 s', decisionIds: ['D-1'] }],
      }),
    )
    script(
      'Tester',
      call('submit_report', {
        taskId: 'T-1',
        kind: 'test',
        verdict: 'pass',
        summary: 'timeout test updated',
        claims: [{ text: 'a 12 s search returns partial results', decisionIds: ['D-1'] }],
      }),
    )
    script(
      'Reviewer',
      call('submit_report', {
        taskId: 'T-1',
        kind: 'review',
        verdict: 'pass',
        summary: 'still one constant',
        claims: [{ text: 'partial results are labelled', decisionIds: ['D-1'] }],
      }),
    )
    const tested2 = reportOn('test', 2)
    const reviewed2 = reportOn('review', 2)

    await human('open Decisions', () => page.getByTestId('tab-decisions').click())
    await human('open D-1', () => page.locator('[data-testid=decision-row][data-key="D-1"]').click())
    await human('Edit', () =>
      page.getByTestId('decision-detail').getByRole('button', { name: 'Edit', exact: true }).click(),
    )
    const editor = page.getByTestId('decision-editor')
    await human('type the new statement', () =>
      editor.getByLabel('Statement').fill('Web search gives up after 10 s and returns the partial results it has.'),
    )
    await human('rewrite the rationale', () =>
      editor.getByLabel('Rationale').fill('Slow providers: a partial answer beats none.'),
    )
    await human('type the reason', () => editor.getByLabel('Reason').fill('Slow providers: partial results beat none'))
    await expect.poll(() => editor.getByTestId('impact-preview').textContent()).toContain('T-1')
    await screenshot(page, 'websearch-02-the-one-edit')
    await human('Confirm', () => editor.getByRole('button', { name: /Confirm/ }).click())

    await Promise.all([tested2, reviewed2])
    await expect.poll(() => latest.status).toBe('delivered')
    const c2 = latest.artifact!.commit!
    expect(c2).not.toBe(c1)

    await human('open Tasks', () => page.getByTestId('tab-tasks').click())
    const card = page.locator('[data-testid=task-card][data-key="T-1"]')
    await card.getByTestId('ready-to-accept').waitFor()
    await screenshot(page, 'websearch-03-ready-to-accept-1440')
    const { page: narrow, context } = await newPage(ui.browser, { width: 1024, height: 800 })
    await narrow.goto(ui.stack.url)
    await narrow.getByTestId('tab-tasks').click()
    await narrow.locator('[data-testid=task-card][data-key="T-1"] [data-testid=ready-to-accept]').waitFor()
    await screenshot(narrow, 'websearch-04-ready-to-accept-1024')
    await narrow.getByTestId('member-item').filter({ hasText: 'Tester' }).click()
    await narrow.locator('[data-origin=concord]').first().waitFor()
    await screenshot(narrow, 'websearch-05-tester-started-by-concord-1024')
    await context.close()

    await human('Accept', () => card.getByTestId('accept-task').click())
    await expect.poll(() => latest.status).toBe('accepted')
    await human('Merge', () => card.getByTestId('merge-task').click())
    await expect.poll(() => latest.merged?.commit ?? null).not.toBeNull()
    await screenshot(page, 'websearch-06-accepted-merged-1440')

    // ---- what happened, checked in the store and the repository ----
    expect(readFileSync(join(repo, 'search.ts'), 'utf8')).toContain('timeoutMs = 10_000')
    // Approvals: the escape attempt asked (and was denied, so nothing was written); nothing inside the tree did.
    expect([...asked.values()]).toEqual([expect.stringContaining('escape.txt')])
    expect(existsSync(join(ui.stack.dataDir, 'worktrees', ws.id, 'escape.txt'))).toBe(false)
    const approvalClicks = actions.filter((a) => a.approval)
    expect(approvalClicks.map((a) => a.approval)).toEqual(['escape', 'escape', 'escape'])
    const insideClicks = approvalClicks.filter((a) => a.approval !== 'escape').length
    expect(insideClicks).toBe(0)
    const sessions = await Promise.all(
      [impl, tester, reviewer].map((m) => core.invoke('sessions.get', { memberId: m.id })),
    )
    const byConcord = sessions.map((s) => s.steps.filter((x) => x.origin === 'concord'))
    expect(byConcord.map((s) => s.length)).toEqual([2, 1, 1])
    expect(byConcord[0]![0]!.text).toMatch(/^Start T-1: Web search tool/)
    expect(byConcord[0]![1]!.text).toContain('T-1 was delivered on')
    expect(byConcord[1]![0]!.text).toContain(`Re-verify T-1 on ${c2.slice(0, 7)}`)
    expect(byConcord[2]![0]!.text).toContain(`Re-verify T-1 on ${c2.slice(0, 7)}`)
    // The human typed no message at all: the task's start gave the Implementer its brief, and Concord passed on
    // everything one member had to tell another (no typed relay).
    const typed = sessions.flatMap((s) => s.steps.filter((x) => x.kind === 'user'))
    expect(typed.map((s) => s.text)).toEqual([])
    const metrics = await core.invoke('metrics.get', { workspaceId: ws.id })
    expect(metrics.autoTurns).toBe(3)
    expect(ui.errors).toEqual([])

    // The count (issue 22): every click, selection, typed field and typed message the human made in the browser,
    // from the first (the setting) to the merge, at most 25; no typed relay (a message to a member carrying what
    // another member said: here any typed message at all, since the task's start is the brief).
    expect(actions.length).toBeLessThanOrEqual(25)
    const typedMessages = actions.filter((a) => a.typedMessage)
    const relays = typedMessages.length
    expect(relays).toBe(0)
    const editIndex = actions.findIndex((a) => a.what === 'open Decisions')
    const after = actions.slice(editIndex)
    const lines = [
      '# Issue 13 — the Web Search scenario, counted',
      '',
      `Run by test/e2e/browser-websearch.test.ts (${new Date().toISOString().slice(0, 10)}).`,
      '',
      `Approvals under the default policy of a new team (sandboxed): ${insideClicks} clicks for work inside the task's tree; the one escape attempt (a write outside the tree) asked and took ${approvalClicks.length} actions to deny.`,
      '',
      `After issue 22: ${actions.length} human actions from the first to the merged task (at most 25 asserted), ${relays} typed messages, ${relays} typed relays;`,
      `from the decision edit to merged: ${after.length} actions, ${relays} typed relays. Concord started ${metrics.autoTurns} turns itself (Figures: relays you did not have to make).`,
      '',
      ...actions.map((a, i) => `${i + 1}. ${a.what}${a.typedMessage ? ' (typed message)' : ''}`),
      '',
      'Before this issue, the same change needed (counted on the old flow: idle members did nothing until told, a',
      'passing implementation report delivered nothing, a refusal offered no next step):',
      '1. a typed relay to the Implementer (D-1 changed: re-verify T-1, adjust, commit, report),',
      '2. Move to… → Delivered, paste the new commit, Deliver (3 actions; or a 4th relay asking the Implementer to do it),',
      '3. a typed relay to the Tester (re-verify T-1 on the new commit),',
      '4. a typed relay to the Reviewer (review the new commit),',
      '5. Accept (often refused first, then a hunt for which report was missing), Merge.',
      'That is 3 typed relays (each: open the member, type, send = 9 actions) + 3 for delivery on top of the same',
      'edit, accept and merge: ' + `${after.length + 12} actions after the edit began, against ${after.length} now.`,
      '',
    ]
    mkdirSync(dirname(notesFile), { recursive: true })
    writeFileSync(notesFile, lines.join('\n'))
    console.log(lines.join('\n'))
  }, 180_000)
})
