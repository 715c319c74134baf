/**
 * Push and pull request (issue 33), with real parts: a real repository whose remote is a local bare repository (its
 * fetch URL names github.com/acme/shop, its push URL is the bare repository), the real Octokit client talking HTTP to
 * a stand-in forge speaking GitHub's REST wire format. The push lands the task's branch in the bare repository; the
 * pull request's body holds the evidence table; CI failure and review comments come back on refresh; a pull request
 * merged on the forge marks the task merged; each error has its stable code, and none carries the token.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { startForgeServer, type ForgeServer } from '../fixtures/forge-server'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ws: Workspace
let ivy: Member
let tess: Member
let forge: ForgeServer
let bare: string
let decision: Decision

const TOKEN = 'ghp_secret_token_never_shown'
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

beforeEach(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree', core: { taskStartTurns: false } })
  ws = t.ws
  ivy = await t.member('Ivy', { role: 'implementer' })
  tess = await t.member('Tess', { role: 'tester' })
  bare = mkdtempSync(join(tmpdir(), 'concord-remote-'))
  git(bare, 'init', '-q', '--bare')
  git(t.repoDir, 'remote', 'add', 'origin', 'git@github.com:acme/shop.git')
  git(t.repoDir, 'config', 'remote.origin.pushurl', bare)
  forge = await startForgeServer()
  await t.core.invoke('forge.configure', { workspaceId: ws.id, baseUrl: forge.url, token: TOKEN })
  decision = await t.core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Search results are paged',
    statement: 'Search returns 20 results a page.',
  })
})
afterEach(async () => {
  await forge.close()
  rmSync(bare, { recursive: true, force: true })
  await t.cleanup()
})

/** A task linked to the decision, its file committed in its tree, delivered, tested (one claim), and accepted. */
async function accepted(): Promise<Task> {
  const created = await t.core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Paged search',
    spec: 'Page the results.',
    assigneeId: ivy.id,
    decisionIds: [decision.id],
    requiredReports: ['test'],
  })
  const task = await t.core.invoke('tasks.setStatus', { taskId: created.id, status: 'in_progress' })
  writeFileSync(join(treeOf(task), 'search.js'), 'export const pageSize = 20\n')
  git(treeOf(task), 'add', '-A')
  git(treeOf(task), 'commit', '-qm', 'paged search')
  const done = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  await t.core.invoke('reports.submit', {
    taskId: task.id,
    authorId: tess.id,
    kind: 'test',
    verdict: 'pass',
    artifact: { commit: done.artifact!.commit! },
    summary: 'pages hold 20',
    claims: [{ text: 'A page | holds 20 results', decisionIds: [decision.id] }],
  })
  await expect
    .poll(async () => (await t.core.invoke('tasks.get', { taskId: task.id })).base?.commit)
    .toBe(done.artifact!.commit)
  return t.core.invoke('tasks.accept', { taskId: task.id })
}

describe('push and pull request', () => {
  it('pushes the branch to the remote and opens a pull request whose body is the evidence table', async () => {
    const task = await accepted()
    const commit = task.artifact!.commit!
    forge.heads.set(task.branch!, commit)
    const opened = await t.core.invoke('tasks.openPullRequest', { taskId: task.id })
    expect(git(bare, 'rev-parse', `refs/heads/${task.branch}`)).toBe(commit)
    const post = forge.requests.find((r) => r.method === 'POST')!
    expect(post.path).toBe('/repos/acme/shop/pulls')
    expect(post.authorization).toBe(`token ${TOKEN}`)
    expect(post.body).toMatchObject({ head: task.branch, base: 'main', title: `${task.key}: Paged search` })
    const body = String(post.body!.body)
    expect(body).toContain(`| ${decision.key} | Search results are paged | v1 |`)
    expect(body).toMatch(new RegExp(`\\| R-\\d+ \\| test \\| pass \\| \`${commit.slice(0, 12)}\` \\| valid \\|`))
    expect(body).toContain(`| A page \\| holds 20 results | `)
    expect(body).toContain(`| ${decision.key} | valid |`)
    expect(opened.pullRequest).toMatchObject({
      owner: 'acme',
      repo: 'shop',
      number: 1,
      url: 'https://github.com/acme/shop/pull/1',
      headSha: commit,
      state: 'open',
    })
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).pullRequest?.number).toBe(1)
  })

  it('brings CI failure and review comments back on refresh, and a pull request merged on the forge marks the task merged', async () => {
    const task = await accepted()
    const commit = task.artifact!.commit!
    forge.heads.set(task.branch!, commit)
    await t.core.invoke('tasks.openPullRequest', { taskId: task.id })
    forge.statuses.set(commit, [{ state: 'success', context: 'lint' }])
    forge.checkRuns.set(commit, [{ name: 'unit tests', status: 'completed', conclusion: 'failure' }])
    forge.comments.set(1, [{ id: 7, user: 'rev', body: 'Name the constant', path: 'search.js', line: 1 }])
    const failing = await t.core.invoke('tasks.refreshPullRequest', { taskId: task.id })
    expect(failing.pullRequest?.ci).toBe('failure')
    expect(failing.pullRequest?.checks).toEqual([
      { name: 'lint', state: 'success', url: null },
      { name: 'unit tests', state: 'failure', url: null },
    ])
    expect(failing.pullRequest?.reviewComments).toMatchObject([{ id: 7, author: 'rev', body: 'Name the constant' }])
    expect(failing.merged).toBeNull()
    forge.checkRuns.set(commit, [{ name: 'unit tests', status: 'completed', conclusion: 'success' }])
    forge.merge(1, 'c'.repeat(40))
    const merged = await t.core.invoke('tasks.refreshPullRequest', { taskId: task.id })
    expect(merged.pullRequest).toMatchObject({ state: 'merged', ci: 'success' })
    expect(merged.merged?.commit).toBe('c'.repeat(40))
  })

  it('says why it cannot: no_token, no_remote, not_github_remote, push_failed, forge_error — never with the token', async () => {
    const task = await accepted()
    await t.core.invoke('forge.configure', { workspaceId: ws.id, token: null })
    await rejectsWith(t.core.invoke('tasks.openPullRequest', { taskId: task.id }), 'no_token')
    await t.core.invoke('forge.configure', { workspaceId: ws.id, token: TOKEN })
    await rejectsWith(t.core.invoke('tasks.openPullRequest', { taskId: task.id, remote: 'upstream' }), 'no_remote')
    git(t.repoDir, 'remote', 'add', 'gitlab', 'https://gitlab.com/acme/shop.git')
    await rejectsWith(
      t.core.invoke('tasks.openPullRequest', { taskId: task.id, remote: 'gitlab' }),
      'not_github_remote',
    )
    git(t.repoDir, 'remote', 'add', 'broken', 'https://github.com/acme/shop.git')
    git(t.repoDir, 'config', 'remote.broken.pushurl', join(bare, 'missing'))
    const push = await t.core
      .invoke('tasks.openPullRequest', { taskId: task.id, remote: 'broken' })
      .catch((e: unknown) => e)
    expect(push).toMatchObject({ code: 'push_failed' })
    expect((push as { details: { stderr: string } }).details.stderr).toMatch(/missing/)
    forge.failNext(/\/pulls$/, 422, 'Validation Failed: a pull request already exists')
    const refused = await t.core.invoke('tasks.openPullRequest', { taskId: task.id }).catch((e: unknown) => e)
    expect(refused).toMatchObject({
      code: 'forge_error',
      details: { status: 422, message: 'Validation Failed: a pull request already exists' },
    })
    expect(JSON.stringify(refused)).not.toContain(TOKEN)
    expect(JSON.stringify(await t.core.invoke('forge.configure', { workspaceId: ws.id }))).not.toContain(TOKEN)
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).pullRequest).toBeNull()
  })
})
