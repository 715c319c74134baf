import { existsSync } from 'node:fs'
import { ApiError } from '../../../shared/errors'
import type { Editor, OpenTreeIn } from '../../../shared/schemas'
import type { Harness } from '../harness/harness'
import { makeKey } from '../harness/ids'
import { taskRow } from '../harness/context'
import { treeOf } from '../harness/workspace/tree-runs'
import type { Handlers } from './handlers'

/** The desktop app opens a folder in an editor, a terminal or the file manager (Electron's shell: index.ts). */
export type OpenTree = (path: string, where: OpenTreeIn, editor: Editor) => Promise<void>

export interface TreeOpenDeps {
  harness: Harness
  /** Absent under `concord serve`: tasks.openTree is unsupported there and the page copies the path instead. */
  openTree?: OpenTree
}

/** tasks.treePath and tasks.openTree: a task's tree, found and (in the desktop app) opened for the user. */
export function treeOpenHandlers(deps: TreeOpenDeps): Pick<Handlers, 'tasks.treePath' | 'tasks.openTree'> {
  const h = deps.harness
  const pathOf = (taskId: string): string => {
    const ctx = h.ctxOf('task', taskId, 'taskId')
    const row = taskRow(ctx, taskId)
    const tree = treeOf(ctx, row.id)
    if (!existsSync(tree))
      throw new ApiError(
        'not_found',
        `${makeKey('task', row.id)}'s tree is not at ${tree} any more (it was removed outside Concord): set it up again from the card`,
      )
    return tree
  }
  return {
    'tasks.treePath': (p) => ({ path: pathOf(p.taskId) }),
    'tasks.openTree': async (p) => {
      const path = pathOf(p.taskId)
      if (!deps.openTree)
        throw new ApiError(
          'unsupported',
          `Only the desktop app opens programs; the tree is at ${path} (tasks.treePath gives it to copy)`,
          { path },
        )
      await deps.openTree(path, p.in, p.editor ?? 'vscode')
      return { path }
    },
  }
}
