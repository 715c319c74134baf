import { existsSync, realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { createCore } from '../main/core'
import { resolveDataDir } from '../main/platform/data-dir'
import { flavours, type Flavour } from '../main/export/adr-model'
import { formats, type ExportFormat } from '../main/export/export'
import { stringFlag, switchFlag, type ParsedArgs } from './args'
import { UsageError } from './errors'

/** The data folder, refusing one that holds no Concord workspaces yet (rather than creating it). */
export function existingDataDir(args: ParsedArgs): string {
  const dataDir = resolveDataDir(stringFlag(args, 'data-dir'))
  if (!existsSync(join(dataDir, 'concord.sqlite'))) {
    throw new UsageError(
      `no Concord data in ${dataDir}; open the repository in Concord first, or point --data-dir (or CONCORD_DATA_DIR) at the data folder`,
    )
  }
  return dataDir
}

function repoOf(args: ParsedArgs): string {
  const repo = resolve(stringFlag(args, 'repo') ?? process.cwd())
  try {
    return realpathSync(repo)
  } catch {
    throw new UsageError(`--repo: ${repo} is not an existing folder`)
  }
}

/** `concord export`: finds the workspace of --repo in the data folder and exports its decision log. */
export async function exportCommand(args: ParsedArgs): Promise<number> {
  const format = stringFlag(args, 'format')
  if (format === undefined || !formats.includes(format as ExportFormat)) {
    throw new UsageError(
      `--format must be one of ${formats.join(', ')}${format === undefined ? '' : ` (not '${format}')`}`,
    )
  }
  const flavour = stringFlag(args, 'flavour')
  if (flavour !== undefined && !flavours.includes(flavour as Flavour)) {
    throw new UsageError(`--flavour must be one of ${flavours.join(', ')} (not '${flavour}')`)
  }
  const repo = repoOf(args)
  const out = stringFlag(args, 'out')
  const dryRun = switchFlag(args, 'dry-run')
  const overwriteEdited = switchFlag(args, 'overwrite-edited')
  const dataDir = existingDataDir(args)
  const core = createCore({ dataDir, transient: true })
  try {
    const workspaces = await core.invoke('workspaces.list', {})
    const workspace = workspaces.find((w) => w.repoPath === repo)
    if (!workspace) {
      const known = workspaces.map((w) => `  ${w.repoPath}`).join('\n')
      throw new UsageError(
        `${repo} has no Concord workspace in ${dataDir}${known ? `; workspaces there:\n${known}` : ''}`,
      )
    }
    const result = await core.invoke('export.decisionLog', {
      workspaceId: workspace.id,
      format: format as ExportFormat,
      ...(out === undefined ? {} : { outDir: resolve(out) }),
      ...(flavour === undefined ? {} : { flavour: flavour as Flavour }),
      ...(dryRun ? { dryRun: true } : {}),
      ...(overwriteEdited ? { overwriteEdited: true } : {}),
    })
    const shown = (f: string) => {
      const rel = relative(process.cwd(), f)
      return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : f
    }
    if (dryRun) {
      // What the export would do, file by file: the plan the real export carries out.
      const changed = new Set(result.changed)
      const n = result.files.length
      console.log(
        `Dry run, nothing written: the decision log of "${workspace.name}" as ${format === 'madr' ? 'MADR' : format} would be ${n} file${n === 1 ? '' : 's'} in ${shown(result.outDir)}, ${changed.size} new or changed, ${result.removed.length} removed`,
      )
      for (const f of result.files) console.log(`  ${changed.has(f) ? 'write  ' : 'same   '} ${shown(f)}`)
      for (const f of result.removed) console.log(`  remove  ${shown(f)}`)
      return 0
    }
    if (format === 'madr') {
      const n = result.files.length
      console.log(
        `Exported the decision log of "${workspace.name}" as MADR: ${n} file${n === 1 ? '' : 's'} in ${shown(result.outDir)}`,
      )
      for (const f of result.files) console.log(`  ${shown(f)}`)
    } else {
      console.log(
        `Exported the decision log of "${workspace.name}" as ${format}: ${result.files.map(shown).join(', ')}`,
      )
    }
    return 0
  } finally {
    await core.close()
  }
}
