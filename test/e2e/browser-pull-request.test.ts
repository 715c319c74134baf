/**
 * Push and pull request in the real UI (issue 33): an accepted task's card offers "Push & open PR"; clicked, the branch
 * lands in the remote (a local bare repository) and the card shows the PR's link and state from the stand-in forge
 * (GitHub's REST wire format, the real Octokit client), whose API and token were set in the "Pull requests…" form. CI fails on the forge: Refresh shows it with the failed check
 * and the review comment; merged on the forge, Refresh marks the task merged. Screenshots at 1440, 1024 and 760.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { startForgeServer, type ForgeServer } from '../fixtures/forge-server'
import { scriptedOpenAI } from '../fixtures/workspace'
import { browserSession, screenshot } from './support'

const ui = browserSession()
let forge: ForgeServer
let bare: string

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim()

async function shots(name: string) {
  for (const w of [1440, 1024, 760]) {
    await ui.page.setViewportSize({ width: w, height: 900 })
    await screenshot(ui.page, `${name}-${w}`)
  }
  await ui.page.setViewportSize({ width: 1440, height: 900 })
}

beforeAll(async () => {
  forge = await startForgeServer()
  bare = mkdtempSync(join(tmpdir(), 'concord-remote-'))
  git(bare, 'init', '-q', '--bare')
})
afterAll(async () => {
  await forge.close()
  rmSync(bare, { recursive: true, force: true })
})

describe('browser UI: push and pull request', () => {
  it("opens the task's pull request from its card, shows its link and CI, and a forge merge marks it merged", async () => {
    const { core, repoDir, dataDir, models } = ui.stack
    initRepo(repoDir)
    git(repoDir, 'remote', 'add', 'origin', 'https://github.com/acme/shop.git')
    git(repoDir, 'config', 'remote.origin.pushurl', bare)
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'pull requests' })
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
    const d = await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Search results are paged',
      statement: 'Search returns 20 results a page.',
    })
    const created = await core.invoke('tasks.create', {
      workspaceId: ws.id,
      title: 'Paged search',
      assigneeId: ivy.id,
      decisionIds: [d.id],
      requiredReports: ['test'],
    })
    const task = await core.invoke('tasks.setStatus', { taskId: created.id, status: 'in_progress' })
    const dir = join(dataDir, 'worktrees', ws.id, task.key)
    writeFileSync(join(dir, 'search.js'), 'export const pageSize = 20\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-qm', 'paged search')
    const done = await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    const commit = done.artifact!.commit!
    await core.invoke('reports.submit', {
      taskId: task.id,
      authorId: tess.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit },
      summary: 'pages hold 20',
      claims: [{ text: 'A page holds 20 results', decisionIds: [d.id] }],
    })
    await expect.poll(async () => (await core.invoke('tasks.get', { taskId: task.id })).base?.commit).toBe(commit)
    await core.invoke('tasks.accept', { taskId: task.id })
    forge.heads.set(task.branch!, commit)

    await ui.page.goto(ui.stack.url)
    await ui.page.getByTestId('sidebar').waitFor()
    await ui.page.getByTestId('tab-tasks').click()
    // The forge's API and token, set in the workspace's "Pull requests…" form; the token is never shown again.
    await ui.page.getByTestId('forge-settings-open').click()
    await expect.poll(() => ui.page.getByTestId('forge-base-url').inputValue()).toBe('https://api.github.com')
    expect(await ui.page.getByTestId('forge-remote').inputValue()).toBe('origin')
    await ui.page.getByTestId('forge-base-url').fill(forge.url)
    await ui.page.getByTestId('forge-token').fill('ghp_e2e')
    await shots('pr0-forge-settings')
    await ui.page.getByTestId('forge-settings-save').click()
    await ui.page.getByTestId('forge-settings').waitFor({ state: 'detached' })
    expect(await core.invoke('forge.configure', { workspaceId: ws.id })).toEqual({
      baseUrl: forge.url,
      remote: 'origin',
      hasToken: true,
    })
    const card = ui.page.locator(`[data-testid=task-card][data-key="${task.key}"]`)
    await card.scrollIntoViewIfNeeded()
    await shots('pr1-offer')

    await card.getByTestId('open-pull-request').click()
    const link = card.getByTestId('pull-request-link')
    await link.waitFor()
    expect(await link.textContent()).toBe('PR #1')
    expect(await link.getAttribute('href')).toBe('https://github.com/acme/shop/pull/1')
    expect(git(bare, 'rev-parse', `refs/heads/${task.branch}`)).toBe(commit)
    expect(forge.requests.find((r) => r.method === 'POST')?.authorization).toBe('token ghp_e2e')
    expect(forge.pulls.get(1)!.body).toContain(`| ${d.key} | Search results are paged | v1 |`)
    await shots('pr2-opened')

    forge.checkRuns.set(commit, [{ name: 'unit tests', status: 'completed', conclusion: 'failure' }])
    forge.comments.set(1, [{ id: 7, user: 'rev', body: 'Name the constant', path: 'search.js', line: 1 }])
    await card.getByTestId('refresh-pull-request').click()
    await expect.poll(() => card.getByTestId('pull-request-ci').textContent()).toBe('CI failed')
    expect(await card.getByTestId('pull-request-comments').textContent()).toContain('Name the constant')
    await card.scrollIntoViewIfNeeded()
    await shots('pr3-ci-failed')

    forge.checkRuns.set(commit, [{ name: 'unit tests', status: 'completed', conclusion: 'success' }])
    forge.merge(1, commit)
    await card.getByTestId('refresh-pull-request').click()
    await card
      .locator('.badge', { hasText: /^merged$/ })
      .first()
      .waitFor()
    await expect.poll(() => card.getByTestId('pull-request-ci').textContent()).toBe('CI passed')
    expect((await core.invoke('tasks.get', { taskId: task.id })).merged?.commit).toBe(commit)
    await card.scrollIntoViewIfNeeded()
    await shots('pr4-merged')
    expect(ui.errors).toEqual([])
  }, 180_000)
})
