/**
 * Who a merge commit is by is kept between merges (two git processes less on each), but only while the config files
 * git read it from are unchanged: a merge after you change your name in ~/.gitconfig, or in the checkout's own config,
 * is by the new name. Real git, a real core, a home of the test's own with no includes (so the answer may be kept).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../electron/main/core'
import type { Member, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'

const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME }
let root: string
let home: string
let repo: string
let core: Core
let ws: Workspace
let ivy: Member

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const globalIdentity = (name: string) =>
  writeFileSync(join(home, '.gitconfig'), `[user]\n\tname = ${name}\n\temail = me@x\n`)

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'concord-identity-kept-'))
  home = join(root, 'home')
  mkdirSync(join(home, '.config'), { recursive: true })
  process.env.HOME = home
  process.env.XDG_CONFIG_HOME = join(home, '.config')
  globalIdentity('First Name')
  repo = join(root, 'app')
  mkdirSync(repo)
  git(repo, 'init', '-q', '-b', 'main')
  writeFileSync(join(repo, 'README.md'), '# app\n')
  git(repo, 'add', '-A')
  git(repo, '-c', 'user.name=Setup', '-c', 'user.email=setup@x', 'commit', '-qm', 'initial')
  core = createCore({ dataDir: join(root, 'data'), taskStartTurns: false })
  ws = await core.invoke('workspaces.open', { repoPath: repo })
  ivy = await core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer', approval: 'auto' })
})
afterAll(async () => {
  await core.close()
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  rmSync(root, { recursive: true, force: true })
})

/** A task that adds one file, accepted and merged; the merge commit's author as git recorded it. */
async function mergedBy(title: string): Promise<string> {
  const task = await startedTask(core, { workspaceId: ws.id, title, assigneeId: ivy.id, requiredReports: [] })
  const tree = join(core.harness.registry.dataDir, 'worktrees', ws.id, task.key)
  writeFileSync(join(tree, `${task.key}.txt`), `${title}\n`)
  git(tree, 'add', '-A')
  git(tree, '-c', 'user.name=Agent', '-c', 'user.email=agent@x', 'commit', '-qm', title)
  await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  await core.invoke('tasks.accept', { taskId: task.id })
  await core.invoke('tasks.merge', { taskId: task.id })
  return git(repo, 'log', '-1', '--format=%an / %cn')
}

describe('who a merge is by', () => {
  it('follows a changed ~/.gitconfig and a changed checkout config from one merge to the next', async () => {
    expect(await mergedBy('One')).toBe('First Name / First Name')
    expect(await mergedBy('Two')).toBe('First Name / First Name')
    globalIdentity('Second Name')
    expect(await mergedBy('Three')).toBe('Second Name / Second Name')
    git(repo, 'config', 'user.name', 'Checkout Name')
    expect(await mergedBy('Four')).toBe('Checkout Name / Checkout Name')
    git(repo, 'config', 'committer.name', 'Committer Name')
    expect(await mergedBy('Five')).toBe('Checkout Name / Committer Name')
  })
})
