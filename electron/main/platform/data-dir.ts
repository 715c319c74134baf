import { chmodSync, mkdirSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { storageFault } from './faults'

/** --data-dir, else CONCORD_DATA_DIR, else the OS app-data folder. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag)
  if (env.CONCORD_DATA_DIR) return resolve(env.CONCORD_DATA_DIR)
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Concord')
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Concord')
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Concord')
}

/**
 * Creates the data folder (and its workspaces/ folder) for the owner only, 0700, and tightens them
 * when they exist with looser modes. mkdir's mode is filtered by the umask; chmod is not.
 */
export function ensureDataDir(dataDir: string): void {
  const workspaces = join(dataDir, 'workspaces')
  try {
    mkdirSync(workspaces, { recursive: true, mode: 0o700 })
    for (const dir of [dataDir, workspaces]) {
      if ((statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700)
    }
  } catch (err) {
    // At start, to the person starting Concord: the path is what they act on.
    throw storageFault(err, `The data folder ${dataDir}`, dataDir) ?? err
  }
}

/** Tightens a file of the data folder that group or others may read to 0600 (an older Concord, a copied folder). */
export function tightenFile(file: string): void {
  // Only group and other bits are cleared: the owner's stay (a 0400 file stays read-only).
  try {
    const mode = statSync(file).mode & 0o777
    if (mode & 0o077) chmodSync(file, mode & 0o700)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}

/**
 * Refuses a repository folder that is the data folder, lies inside it or holds it: a member working there would
 * read every workspace's file and the secret store (a command printed secrets.json with every key). Both are
 * compared as real paths (links resolved), so a link to the data folder is refused too. `repo` is a real path.
 */
export function refuseDataDirRepo(dataDir: string, repo: string, field = 'repoPath'): void {
  let data: string
  try {
    data = realpathSync(dataDir)
  } catch {
    data = resolve(dataDir)
  }
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep)
  const how = within(repo, data) ? 'is inside' : within(data, repo) ? 'holds' : null
  if (how) {
    throw new ApiError(
      'data_folder_repo',
      `${field}: ${repo} ${how} Concord's data folder (${data}), where every workspace's keys are kept; open a repository outside it`,
    )
  }
}
