/**
 * The case of issue 30, whole, through the UI, on real code: T-1 makes search() return { results, incomplete } and
 * T-2 adds bullets() built on search(), both in src/search.js on different lines, each with a passing `node --test`
 * on its own branch. T-1 is merged. T-2 is merged with "Merge when verified": it never lands on its old evidence; the
 * queue updates it, the tester's automatic turn really runs `node --test` on the updated head and reports the
 * TypeError, the implementer fixes it, the tester passes it, and it lands: main's tree is exactly the tree the passing
 * test report checked, and `node --test` passes on main. Then the user's own commit on main takes an overlapping
 * delivered task out of "Ready to accept" by itself, and a revert of T-1's decision to the version it was merged on
 * creates no follow-up. The members are scripted models that act on what their tools return (tester and implementer
 * below); git, the trees, the sandboxed commands and the UI are real.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Task } from '../../shared/schemas'
import { initRepo } from '../fixtures/core'
import type { ScriptedReply } from '../fixtures/model-server'
import { memberScripts } from '../fixtures/member-scripts'
import { scriptedOpenAI } from '../fixtures/workspace'
import { git, shots } from './code-moves'
import { browserSession } from './support'

// src/search.js, line by line; the tasks change lines 1, 3 and 9, the user's hotfix line 6.
const BASE = [
  `'use strict'`,
  '// Search over a list of strings.',
  'function search(items, q) {',
  '  return items.filter((i) => i.includes(q))',
  '}',
  '// -',
  '// -',
  '// -',
  '// -',
  'module.exports = { search }',
]
const source = (lines: Record<number, string>) => BASE.map((l, i) => lines[i] ?? l).join('\n') + '\n'
const RESULTS = '  return { results: items.filter((i) => i.includes(q)), incomplete: false }'
const bullets = (expr: string) =>
  `function bullets(items, q) {\n  return ${expr}.map((r) => '- ' + r).join('\\n')\n}\nmodule.exports = { search, bullets }`
const searchTest = (expr: string) =>
  `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { search } = require('../src/search')\n` +
  `test('search finds', () => assert.deepStrictEqual(${expr}, ['ab']))\n`
const bulletsTest =
  `const { test } = require('node:test')\nconst assert = require('node:assert')\nconst { bullets } = require('../src/search')\n` +
  `test('bullets', () => assert.strictEqual(bullets(['ab', 'cd'], 'a'), '- ab'))\n`
/** T-2's search.js after main (with T-1) was brought in, bullets fixed to read the results. */
const FIXED = source({ 3: RESULTS, 9: bullets('search(items, q).results') })

type Msg = { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] }
const text = (m: Msg | undefined) =>
  typeof m?.content === 'string'
    ? m.content
    : Array.isArray(m?.content)
      ? (m.content as { text?: string }[]).map((p) => p.text ?? '').join('')
      : ''

/** What the member's last request says: the tool it called last and what that returned, and the task it is about. */
function turnState(messages: Msg[]) {
  const last = messages.at(-1)
  const call = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)
  const asked = text([...messages].reverse().find((m) => m.role === 'user'))
  return {
    tool: last?.role === 'tool' ? call?.tool_calls?.[0]?.function.name : undefined,
    result: last?.role === 'tool' ? text(last) : '',
    taskKey: /\bT-\d+\b/.exec(asked)?.[0] ?? 'T-2',
  }
}
const passed = (output: string) => /\[exit code: 0\]/.test(output)
const NODE_TEST = { name: 'run_command', arguments: { command: 'node --test' } }

const replies = memberScripts(() => ({ text: 'noted' }))
const lastRequest = (name: string) => replies.asked.get(name)!.at(-1)!.body.messages as Msg[]

/** The tester: runs `node --test` in its checkout and reports what it saw. */
function tester(): ScriptedReply {
  const s = turnState(lastRequest('Tess'))
  if (s.tool === 'run_command') {
    const ok = passed(s.result)
    const lines = s.result.split('\n')
    const finding = (lines.find((l) => /is not a function/.test(l)) ?? lines.find((l) => /Error/.test(l)))?.trim()
    return {
      toolCalls: [
        {
          name: 'submit_report',
          arguments: {
            taskId: s.taskKey,
            kind: 'test',
            verdict: ok ? 'pass' : 'fail',
            summary: ok ? 'node --test passes' : `node --test fails: ${finding ?? 'see the output'}`,
            claims: [],
          },
        },
      ],
    }
  }
  if (s.tool) return { text: 'reported' }
  return { toolCalls: [NODE_TEST] }
}

/** The implementer: runs the tests in its tree; when they fail, fixes bullets, commits and delivers again. */
function implementer(): ScriptedReply {
  const s = turnState(lastRequest('Ivy'))
  if (s.tool === 'run_command')
    return passed(s.result)
      ? { text: 'the tests pass' }
      : { toolCalls: [{ name: 'write_file', arguments: { path: 'src/search.js', content: FIXED } }] }
  if (s.tool === 'write_file')
    return { toolCalls: [{ name: 'git_commit', arguments: { message: 'bullets read the results' } }] }
  if (s.tool === 'git_commit')
    return { toolCalls: [{ name: 'update_task_status', arguments: { taskId: s.taskKey, status: 'delivered' } }] }
  if (s.tool) return { text: 'fixed and delivered' }
  return { toolCalls: [NODE_TEST] }
}

const ui = browserSession({
  models: {
    unscripted: (req) => {
      const reply = replies.unscripted(req)
      const name = [...replies.asked].find(([, reqs]) => reqs.at(-1) === req)?.[0]
      return name === 'Tess' ? tester() : name === 'Ivy' ? implementer() : reply
    },
  },
})

const nodeTest = (dir: string) => execFileSync('node', ['--test'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' })

describe('browser UI: code moves too, the whole case', () => {
  it('T-2 never lands on its old evidence; after its update, the re-verification, the fix and the merge, main passes its tests', async () => {
    const { core, repoDir, dataDir, models } = ui.stack
    initRepo(repoDir)
    mkdirSync(join(repoDir, 'src'))
    mkdirSync(join(repoDir, 'test'))
    writeFileSync(join(repoDir, 'src', 'search.js'), source({}))
    writeFileSync(join(repoDir, 'test', 'search.test.js'), searchTest(`search(['ab', 'cd'], 'a')`))
    git(repoDir, 'add', '-A')
    git(repoDir, 'commit', '-qm', 'search')
    nodeTest(repoDir)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'code moves' })
    const member = (name: string, role: string) =>
      core.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role,
        approval: 'auto',
        provider: scriptedOpenAI(models),
      })
    const ivy = await member('Ivy', 'implementer')
    const tess = await member('Tess', 'tester')
    const d1 = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search results',
      statement: 'search() returns { results, incomplete }.',
    })
    /** A task built in its tree, its tests run there (they pass), delivered and reported on by Tess. */
    const made = async (title: string, files: Record<string, string>, decisionIds: string[] = []): Promise<Task> => {
      const task = await core.invoke('tasks.create', {
        workspaceId: ws.id,
        title,
        assigneeId: ivy.id,
        decisionIds,
        requiredReports: ['test'],
      })
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
      const dir = join(dataDir, 'worktrees', ws.id, task.key)
      for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content)
      git(dir, 'add', '-A')
      git(dir, 'commit', '-qm', title)
      nodeTest(dir)
      const done = await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
      await core.invoke('reports.submit', {
        taskId: task.id,
        authorId: tess.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: done.artifact!.commit! },
        summary: 'node --test passes',
        claims: [],
      })
      return done
    }
    const t1 = await made(
      'Search returns results and incomplete',
      {
        'src/search.js': source({ 3: RESULTS }),
        'test/search.test.js': searchTest(`search(['ab', 'cd'], 'a').results`),
      },
      [d1.id],
    )
    const t2 = await made('Bullet list of results', {
      'src/search.js': source({ 9: bullets('search(items, q)') }),
      'test/bullets.test.js': bulletsTest,
    })

    const page = ui.page
    await page.goto(ui.stack.url)
    await page.getByTestId('sidebar').waitFor()
    await page.getByTestId('tab-tasks').click()
    const card = (t: Task) => page.locator(`[data-testid=task-card][data-key="${t.key}"]`)
    // Both ready; the user accepts both and merges T-1.
    for (const t of [t1, t2]) {
      await card(t).getByTestId('ready-to-accept').waitFor()
      await card(t).getByTestId('accept-task').click()
      await card(t).getByTestId('merge-task').waitFor()
    }
    await card(t1).getByTestId('merge-task').click()
    await card(t1).locator('.badge', { hasText: 'merged' }).waitFor()
    const afterT1 = git(repoDir, 'rev-parse', 'main')
    nodeTest(repoDir)

    // T-2's merge as it stands would land a tree nobody tested (and that fails): Merge queues it instead.
    await expect.poll(() => card(t2).getByTestId('merge-task').textContent()).toBe('Merge when verified')
    await card(t2).getByTestId('merge-task').click()
    await card(t2).getByTestId('merge-queued').waitFor()
    expect(git(repoDir, 'rev-parse', 'main')).toBe(afterT1)
    // Tess's test on the updated head finds the TypeError; the card says the queue waits for the fix.
    await expect
      .poll(async () => (await core.invoke('reports.list', { taskId: t2.id })).map((r) => r.verdict), {
        timeout: 90_000,
      })
      .toContain('fail')
    const failed = (await core.invoke('reports.list', { taskId: t2.id })).find((r) => r.verdict === 'fail')!
    expect(failed.summary).toContain('search(...).map is not a function')
    expect(git(repoDir, 'rev-parse', 'main')).toBe(afterT1)
    await card(t2).scrollIntoViewIfNeeded()
    await shots(page, 'case1-queued')

    // Ivy fixes it, Tess passes it, and it lands by itself.
    await card(t2).locator('.badge', { hasText: 'merged' }).waitFor({ timeout: 120_000 })
    const reports = await core.invoke('reports.list', { taskId: t2.id })
    const checked = reports.filter((r) => r.kind === 'test' && r.verdict === 'pass').at(-1)!
    expect(checked.authorId).toBe(tess.id)
    expect(git(repoDir, 'rev-parse', 'main^{tree}')).toBe(
      git(repoDir, 'rev-parse', `${checked.artifact.commit}^{tree}`),
    )
    expect(git(repoDir, 'rev-parse', 'main^{tree}')).not.toBe(
      git(repoDir, 'rev-parse', `${failed.artifact.commit}^{tree}`),
    )
    // main moved once since T-1: the one verified merge.
    expect(git(repoDir, 'rev-list', '--first-parent', '--count', `${afterT1}..main`)).toBe('1')
    expect(git(repoDir, 'show', 'main:src/search.js')).toBe(FIXED.trimEnd())
    nodeTest(repoDir)
    await card(t2).scrollIntoViewIfNeeded()
    await shots(page, 'case2-landed')

    // The user's own commit on main takes an overlapping delivered task out of "Ready to accept", by itself.
    const t3 = await made('Say it is case-sensitive', {
      'src/search.js': FIXED.replace('strings.', 'strings, case-sensitive.'),
    })
    await card(t3).getByTestId('ready-to-accept').waitFor({ timeout: 30_000 })
    writeFileSync(join(repoDir, 'src', 'search.js'), FIXED.replace(/\/\/ -\n/, '// hotfix: keep the order\n'))
    git(repoDir, 'commit', '-qam', 'hotfix')
    await card(t3).getByTestId('ready-to-accept').waitFor({ state: 'detached', timeout: 15_000 })
    await expect
      .poll(() => card(t3).getByTestId('task-base').textContent())
      .toContain('overlaps commits on main in src/search.js')
    await card(t3).scrollIntoViewIfNeeded()
    await shots(page, 'case3-hotfix')

    // T-1's decision edited, then reverted to the version T-1 was merged on: the revert creates no follow-up.
    const followUps = async () =>
      (await core.invoke('tasks.list', { workspaceId: ws.id })).filter((x) => x.title.startsWith(`Follow up ${t1.key}`))
    await core.invoke('decisions.update', {
      decisionId: d1.id,
      expectedVersion: 1,
      statement: 'search() returns { results, incomplete, total }.',
      reason: 'paging',
    })
    const before = await followUps()
    await page.getByTestId('tab-decisions').click()
    await page.getByTestId('decision-row').filter({ hasText: 'Search results' }).click()
    const detail = page.getByTestId('decision-detail')
    await detail.locator('[data-testid=revision][data-version="1"]').getByTestId('revert').click()
    const editor = detail.getByTestId('decision-editor')
    await expect.poll(() => editor.getByTestId('impact-preview').textContent()).not.toMatch(/checking/)
    expect(await editor.getByTestId('impact-preview').textContent()).not.toContain('follow-up task will be created')
    await editor.getByRole('button', { name: 'Revert → v3' }).click()
    await detail.getByTestId('edit-outcome').waitFor()
    const after = await followUps()
    expect(after.length).toBe(before.length)
    expect(after.filter((x) => x.status !== 'cancelled' && !before.some((b) => b.id === x.id))).toEqual([])
    expect(ui.errors).toEqual([])
  }, 300_000)
})
