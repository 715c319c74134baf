/**
 * Git identity in task trees (issue 31): a task's tree is a clone, and the identity git resolves in the user's
 * checkout — here only through `includeIf "gitdir:~/code/"` in ~/.gitconfig — is carried into the tree's own config
 * when it is made and checked again before each turn of its assignee, and Concord's own commits (a merge, the first
 * commit) are made as it. No program the checkout's config names runs while it is resolved. Real git, a real core,
 * a home of the test's own (no global identity but the included one), the scripted model server for the turn.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../electron/main/core'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { takeTurn } from '../fixtures/sessions'
import { scriptedOpenAI } from '../fixtures/workspace'

const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME }
let root: string
let home: string
let repo: string
let core: Core
let ws: Workspace
let server: ModelServer
let marker: string

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
/** The identity the user's work config gives (reached only through includeIf). */
const workConfig = (email: string) => `[user]\n\tname = Work Me\n\temail = ${email}\n`

beforeAll(() => {
  // This process's home is the test's: git (Concord's and the test's) finds no identity but the one included below.
  root = mkdtempSync(join(tmpdir(), 'concord-identity-'))
  home = join(root, 'home')
  mkdirSync(join(home, '.config'), { recursive: true })
  process.env.HOME = home
  process.env.XDG_CONFIG_HOME = join(home, '.config')
  writeFileSync(join(home, '.gitconfig'), '[includeIf "gitdir:~/code/"]\n\tpath = ~/work.gitconfig\n')
})
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  rmSync(root, { recursive: true, force: true })
})

beforeEach(async () => {
  writeFileSync(join(home, 'work.gitconfig'), workConfig('me@work.example'))
  repo = join(home, 'code', `app-${Math.random().toString(36).slice(2, 8)}`)
  mkdirSync(repo, { recursive: true })
  git(repo, 'init', '-q', '-b', 'main')
  marker = join(root, `ran-${Math.random().toString(36).slice(2, 8)}`)
  server = await startModelServer()
  core = createCore({ dataDir: join(root, `data-${Math.random().toString(36).slice(2, 8)}`), taskStartTurns: false })
})
afterEach(async () => {
  await core.close()
  await server.close()
  expect(existsSync(marker), 'a program of the checkout’s config ran').toBe(false)
})

/**
 * The checkout's first commit, made by the test (its own identity given on the command line); then a hostile local
 * config: programs git would run for fsmonitor, a pager, an editor, ssh, signing (the test's own git calls in the
 * checkout after this start none of them).
 */
function firstCommitByTest(): void {
  writeFileSync(join(repo, 'README.md'), '# app\n')
  git(repo, 'add', '-A')
  git(repo, '-c', 'user.name=Setup', '-c', 'user.email=setup@x', 'commit', '-qm', 'initial')
  const program = join(root, 'program.sh')
  writeFileSync(program, `#!/bin/sh\ntouch ${marker}\n`)
  chmodSync(program, 0o755)
  for (const key of ['core.fsmonitor', 'core.pager', 'core.editor', 'core.sshCommand', 'gpg.program'])
    git(repo, 'config', key, program)
}

async function implementer(): Promise<Member> {
  return core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Ivy',
    role: 'implementer',
    approval: 'auto',
    provider: scriptedOpenAI(server),
  })
}

const treeOf = (task: Task) => join(core.harness.registry.dataDir, 'worktrees', ws.id, task.key)
/** The tree's own config (no includes: what is written in it). */
const treeConfig = (tree: string, key: string) => {
  try {
    return git(tree, 'config', '--local', '--get', key)
  } catch {
    return null
  }
}

describe('the identity git resolves in your checkout (includeIf in ~/.gitconfig)', () => {
  it('is in each task tree from its creation: a commit there by anyone but Concord is yours, with no global identity', async () => {
    firstCommitByTest()
    expect(git(repo, 'var', 'GIT_AUTHOR_IDENT')).toMatch(/^Work Me <me@work\.example> /)
    ws = await core.invoke('workspaces.open', { repoPath: repo })
    const ivy = await implementer()
    const task = await startedTask(core, { workspaceId: ws.id, title: 'Note', assigneeId: ivy.id })
    const tree = treeOf(task)
    expect(existsSync(join(tree, '.git'))).toBe(true)
    expect(treeConfig(tree, 'user.name')).toBe('Work Me')
    expect(treeConfig(tree, 'user.email')).toBe('me@work.example')
    // As an agent commits by itself: plain git in the tree, with a home that has no identity at all.
    const empty = mkdtempSync(join(root, 'empty-home-'))
    writeFileSync(join(tree, 'note.txt'), 'note\n')
    const env = { ...process.env, HOME: empty, XDG_CONFIG_HOME: empty, GIT_CONFIG_NOSYSTEM: '1' }
    execFileSync('git', ['add', '-A'], { cwd: tree, env })
    execFileSync('git', ['commit', '-qm', 'note'], { cwd: tree, env })
    expect(git(tree, 'log', '-1', '--format=%an <%ae> / %cn <%ce>')).toBe(
      'Work Me <me@work.example> / Work Me <me@work.example>',
    )
  })

  it('is checked again before each turn of the assignee: a changed identity, or one an agent set, is put right', async () => {
    firstCommitByTest()
    ws = await core.invoke('workspaces.open', { repoPath: repo })
    const ivy = await implementer()
    const task = await startedTask(core, { workspaceId: ws.id, title: 'Note', assigneeId: ivy.id })
    const tree = treeOf(task)
    expect(treeConfig(tree, 'user.email')).toBe('me@work.example')
    // You change your work identity; an agent set another author in the tree.
    writeFileSync(join(home, 'work.gitconfig'), workConfig('me@new-work.example'))
    git(tree, 'config', 'author.email', 'agent@elsewhere.example')
    server.enqueue({ text: 'Looked.' })
    await takeTurn(core, { memberId: ivy.id, text: 'Look at the task' }, { timeoutMs: 30_000 })
    expect(treeConfig(tree, 'user.email')).toBe('me@new-work.example')
    expect(treeConfig(tree, 'author.email')).toBeNull()
  })

  it('makes Concord’s own commits: the merge commit of a task, and the first commit of a new repository', async () => {
    firstCommitByTest()
    ws = await core.invoke('workspaces.open', { repoPath: repo })
    const ivy = await implementer()
    const task = await startedTask(core, {
      workspaceId: ws.id,
      title: 'Feature',
      assigneeId: ivy.id,
      requiredReports: [],
    })
    const tree = treeOf(task)
    writeFileSync(join(tree, 'feature.txt'), 'f\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=Agent', '-c', 'user.email=agent@x', 'commit', '-qm', 'feature')
    await core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    await core.invoke('tasks.accept', { taskId: task.id })
    await core.invoke('tasks.merge', { taskId: task.id })
    expect(git(repo, 'log', '-1', '--format=%s / %an <%ae> / %cn <%ce>')).toMatch(
      /^Merge T-1: Feature .* \/ Work Me <me@work\.example> \/ Work Me <me@work\.example>$/,
    )

    // A repository with no commit yet, where your identity comes only from the include too.
    const fresh = join(home, 'code', `new-${Math.random().toString(36).slice(2, 8)}`)
    mkdirSync(fresh)
    git(fresh, 'init', '-q', '-b', 'main')
    const other = await core.invoke('workspaces.open', { repoPath: fresh })
    const made = await core.invoke('workspaces.firstCommit', { workspaceId: other.id, contents: 'empty' })
    expect(made.author).toBe('Work Me <me@work.example>')
  })
})
