/**
 * Which OS sandbox commands run in here: bubblewrap on Linux, sandbox-exec on macOS, detected once by running it.
 *
 * When no sandbox is available a command still runs (own process group, allow-listed environment) and its result says
 * "not sandboxed". CONCORD_SANDBOX=off, read once at the first check, forces that.
 */
import { TRUSTED_DIRS, TRUSTED_PATH, trustedProgram } from '../command-env'
import { spawnOffLoop } from '../spawner'
import { BWRAP_BASE } from './bwrap'

export type SandboxKind = 'bwrap' | 'sandbox-exec'

export interface SandboxStatus {
  available: boolean
  kind: SandboxKind | null
  /** Why there is no sandbox, in words a person can act on. */
  reason?: string
}

let status: Promise<SandboxStatus> | undefined

/** Which sandbox commands run in here, detected once (the UI shows it in member settings and approval cards). */
export function sandboxStatus(): Promise<SandboxStatus> {
  status ??= detect()
  return status
}

async function detect(): Promise<SandboxStatus> {
  if (process.env.CONCORD_SANDBOX === 'off') {
    return { available: false, kind: null, reason: 'the sandbox is turned off (CONCORD_SANDBOX=off)' }
  }
  if (process.platform === 'linux') {
    const bwrap = trustedProgram('bwrap')
    const r = bwrap
      ? await probe(bwrap, [...BWRAP_BASE, '--unshare-net', 'true'])
      : { missing: true, code: -1, stderr: '' }
    if (r.missing)
      return {
        available: false,
        kind: null,
        reason: `bubblewrap is not installed (looked in ${TRUSTED_DIRS.join(', ')}): install it (e.g. apt install bubblewrap)`,
      }
    if (r.code !== 0)
      return {
        available: false,
        kind: null,
        reason: `bubblewrap cannot create a sandbox here: ${r.stderr || `exit code ${r.code}`}`,
      }
    return { available: true, kind: 'bwrap' }
  }
  if (process.platform === 'darwin') {
    const r = await probe('/usr/bin/sandbox-exec', ['-p', '(version 1)(allow default)', '/usr/bin/true'])
    if (r.missing) return { available: false, kind: null, reason: 'sandbox-exec is not available on this Mac' }
    if (r.code !== 0)
      return { available: false, kind: null, reason: `sandbox-exec fails here: ${r.stderr || `exit code ${r.code}`}` }
    return { available: true, kind: 'sandbox-exec' }
  }
  return { available: false, kind: null, reason: `no sandbox is supported on ${process.platform}` }
}

function probe(file: string, args: string[]): Promise<{ code: number; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    const child = spawnOffLoop(file, args, { env: { PATH: TRUSTED_PATH } })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
    child.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ code: -1, stderr: err.message, missing: err.code === 'ENOENT' }),
    )
    child.on('close', (code) => resolve({ code: code ?? -1, stderr: stderr.trim(), missing: false }))
  })
}
