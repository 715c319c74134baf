import { resolve } from 'node:path'
import { createCore } from '../main/core'
import { resolveDataDir } from '../main/platform/data-dir'
import { stringFlag, type ParsedArgs } from './args'
import { UsageError } from './errors'

/** `concord import`: restores a JSON export into a new workspace for --repo. */
export async function importCommand(args: ParsedArgs): Promise<number> {
  const [positional] = args.positionals
  const flag = stringFlag(args, 'file')
  if (positional !== undefined && flag !== undefined)
    throw new UsageError('name the export file once: either FILE or --file FILE')
  const file = flag ?? positional
  if (!file) throw new UsageError('import needs the export file: concord import FILE --repo PATH')
  const repo = stringFlag(args, 'repo')
  if (!repo) throw new UsageError('--repo: name the repository folder the imported workspace belongs to')
  const name = stringFlag(args, 'name')
  const dataDir = resolveDataDir(stringFlag(args, 'data-dir'))
  const core = createCore({ dataDir, transient: true })
  try {
    const workspace = await core.invoke('import.workspace', {
      path: resolve(file),
      repoPath: resolve(repo),
      ...(name === undefined ? {} : { name }),
    })
    const [decisions, tasks] = await Promise.all([
      core.invoke('decisions.list', { workspaceId: workspace.id }),
      core.invoke('tasks.list', { workspaceId: workspace.id }),
    ])
    console.log(
      `Imported "${workspace.name}" for ${workspace.repoPath}: ${decisions.length} decisions, ${tasks.length} tasks (workspace ${workspace.id}, data folder ${dataDir})`,
    )
    return 0
  } finally {
    await core.close()
  }
}
