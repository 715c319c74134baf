/**
 * A repository with no commit (`git init` and nothing else) opens, says it has no commit yet, refuses to start a task
 * with a stable code (no_commit) without moving it, and offers the first commit: empty, or of the folder's files as
 * .gitignore leaves them. Then the task starts on a branch from that commit.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeCore, rejectsWith, type TestCore } from '../fixtures/core'

let t: TestCore
const git = (...args: string[]) => execFileSync('git', args, { cwd: t.repoDir, encoding: 'utf8' }).trim()

beforeEach(() => {
  t = makeCore()
  git('init', '-q', '-b', 'master')
  // No identity in the repository: the first commit is the user's when git knows them, Concord's otherwise.
})
afterEach(() => t.cleanup())

async function openWithTask() {
  const ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
  const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'First feature' })
  return { ws, task }
}

describe('a repository with no commit', () => {
  it('opens with a note, and starting a task is refused with no_commit, the task left where it was', async () => {
    const { ws, task } = await openWithTask()
    expect(ws.settings).toMatchObject({ isolation: 'worktree', baseBranch: 'master' })
    expect(ws.notes.join('\n')).toMatch(
      /^No commit yet: tasks branch from a commit and master has none; make the first one/m,
    )
    const err = await rejectsWith(
      t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' }),
      'no_commit',
    )
    expect(err.message).toContain('T-1 cannot start: the repository has no commit yet')
    expect(err.message).toContain('make the first commit')
    expect(err.message).not.toContain('does not exist')
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).status).toBe('todo')
  })

  it('makes an empty first commit, leaving the files and the index alone; then the task starts on a branch', async () => {
    const { ws, task } = await openWithTask()
    writeFileSync(join(t.repoDir, 'notes.txt'), 'draft\n')
    const made = await t.core.invoke('workspaces.firstCommit', { workspaceId: ws.id, contents: 'empty' })
    expect(made).toMatchObject({ branch: 'master', files: 0, settings: { baseBranch: 'master' } })
    expect(git('rev-parse', 'master')).toBe(made.commit)
    expect(git('log', '--format=%s', 'master')).toBe('Initial commit')
    expect(git('ls-tree', '-r', '--name-only', 'master')).toBe('')
    expect(git('status', '--porcelain')).toBe('?? notes.txt')
    const started = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    expect(started.status).toBe('in_progress')
    expect(started.branch).toMatch(/^concord\/T-1-/)
    expect(git('merge-base', started.branch!, 'master')).toBe(made.commit)
    // A second first commit is refused: the repository has one now.
    await rejectsWith(
      t.core.invoke('workspaces.firstCommit', { workspaceId: ws.id, contents: 'empty' }),
      'invalid_transition',
    )
    const reopened = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
    expect(reopened.notes.join('\n')).not.toContain('No commit yet')
  })

  it('makes a first commit of the folder files, without what .gitignore names', async () => {
    const { ws, task } = await openWithTask()
    writeFileSync(join(t.repoDir, 'app.ts'), 'export const x = 1\n')
    writeFileSync(join(t.repoDir, '.gitignore'), '.env\n')
    writeFileSync(join(t.repoDir, '.env'), 'TOKEN=local\n')
    const made = await t.core.invoke('workspaces.firstCommit', {
      workspaceId: ws.id,
      contents: 'files',
      message: 'Start the project',
    })
    expect(made.files).toBe(2)
    expect(git('ls-tree', '-r', '--name-only', 'master').split('\n').sort()).toEqual(['.gitignore', 'app.ts'])
    expect(git('log', '--format=%s', 'master')).toBe('Start the project')
    expect(git('status', '--porcelain')).toBe('')
    const started = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const tree = join(t.dataDir, 'worktrees', ws.id, 'T-1')
    expect(started.branch).toBeTruthy()
    expect(existsSync(join(tree, 'app.ts'))).toBe(true)
  })
})
