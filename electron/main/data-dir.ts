import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** --data-dir, else CONCORD_DATA_DIR, else the OS app-data folder. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag)
  if (env.CONCORD_DATA_DIR) return resolve(env.CONCORD_DATA_DIR)
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Concord')
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Concord')
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Concord')
}
