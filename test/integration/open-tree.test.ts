/**
 * "Open the task's tree" (issue 31): the desktop app opens a started task's tree in an editor, a terminal or the file
 * manager through the host's shell (given to the core as openTree, as Electron's index.ts does); `concord serve` has
 * no shell to open programs with, says so (unsupported, with the path), and gives the path to copy.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Editor, OpenTreeIn, Task } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
afterEach(() => t.cleanup())

const started = async (): Promise<Task> => {
  const task = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Search timeout' })
  return t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
}
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', t.ws.id, task.key)

describe('opening a task’s tree', () => {
  it('the desktop app opens the tree where the user asks, in the editor they chose', async () => {
    const opened: [string, OpenTreeIn, Editor][] = []
    t = await openWorkspace({
      git: true,
      isolation: 'worktree',
      core: { openTree: async (path, where, editor) => void opened.push([path, where, editor]) },
    })
    expect((await t.core.invoke('system.info', {})).openTree).toBe(true)
    const task = await started()
    expect(await t.core.invoke('tasks.openTree', { taskId: task.id, in: 'editor' })).toEqual({ path: treeOf(task) })
    await t.core.invoke('tasks.openTree', { taskId: task.id, in: 'editor', editor: 'zed' })
    await t.core.invoke('tasks.openTree', { taskId: task.id, in: 'terminal' })
    await t.core.invoke('tasks.openTree', { taskId: task.id, in: 'files' })
    expect(opened).toEqual([
      [treeOf(task), 'editor', 'vscode'],
      [treeOf(task), 'editor', 'zed'],
      [treeOf(task), 'terminal', 'vscode'],
      [treeOf(task), 'files', 'vscode'],
    ])
    await rejectsWith(
      t.core.call('tasks.openTree', { taskId: task.id, in: 'editor', editor: 'notepad' }),
      'invalid_params',
    )
  })

  it('under serve it opens nothing, says so with the path, and gives the path to copy', async () => {
    t = await openWorkspace({ git: true, isolation: 'worktree' })
    expect((await t.core.invoke('system.info', {})).openTree).toBe(false)
    const task = await started()
    const refused = await rejectsWith(t.core.invoke('tasks.openTree', { taskId: task.id, in: 'editor' }), 'unsupported')
    expect(refused.details).toEqual({ path: treeOf(task) })
    expect(await t.core.invoke('tasks.treePath', { taskId: task.id })).toEqual({ path: treeOf(task) })
  })

  it('a task without a tree, or whose tree was removed, says why', async () => {
    t = await openWorkspace({ git: true, isolation: 'worktree' })
    const todo = await t.core.invoke('tasks.create', { workspaceId: t.ws.id, title: 'Not started' })
    const none = await rejectsWith(t.core.invoke('tasks.treePath', { taskId: todo.id }), 'invalid_transition')
    expect(none.message).toContain('T-1 has no tree of its own')
    const task = await started()
    rmSync(treeOf(task), { recursive: true, force: true })
    const gone = await rejectsWith(t.core.invoke('tasks.treePath', { taskId: task.id }), 'not_found')
    expect(gone.message).toContain(`T-2's tree is not at ${treeOf(task)}`)
  })
})
