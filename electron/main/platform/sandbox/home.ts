/**
 * The user's home inside the sandbox: hidden as a whole (deny by default), with its credential folders, the data folder
 * and the policy's hide list; only the install roots of the programs on PATH that live there and the user's git config
 * are shown, read-only.
 */
import { readdirSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { SandboxPolicy } from '../sandbox-policy'
import { real, uniqueReal, within } from './plan'

/**
 * Credential folders and files of the real home: the home is hidden as a whole, and these stay hidden where a part of
 * the home is shown (an install root, an agent's state folder, a tree in the home).
 */
export const HOME_SECRETS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/gh',
  '.password-store',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  // Inside install roots a command may be shown (~/.cargo for ~/.cargo/bin).
  '.cargo/credentials',
  '.cargo/credentials.toml',
]

// The flags every bwrap sandbox uses. The availability check runs them too: bwrap may be installed and still fail

/** The real home, hidden as a whole, unless it is a system folder (a service account whose home is /). */
function userHome(): string | null {
  const home = real(os.homedir())
  if (!home || home === path.sep || ['/usr', '/bin', '/etc', '/var', '/tmp', '/opt', '/lib'].includes(home)) return null
  return home
}

/** The data folder, the policy's hide list, the real home and the credential folders in it that exist. */
export function hiddenPaths(policy: SandboxPolicy | undefined): string[] {
  const home = userHome()
  const secrets = HOME_SECRETS.map((p) => path.join(os.homedir(), p))
  return uniqueReal([
    ...(home ? [home] : []),
    ...(policy?.dataDir ? [policy.dataDir] : []),
    ...(policy?.hide ?? []),
    ...secrets,
  ])
}

/**
 * What of the hidden home a program needs, shown read-only: the install root of each PATH entry that lives there
 * (~/.nvm/versions/node/v20 for ~/.nvm/versions/node/v20/bin, ~/.pyenv for ~/.pyenv/shims, ~/.local/bin and
 * ~/.local/lib for ~/.local/bin), of the programs started and of Concord's own Node, and the user's git config
 * (GIT_CONFIG_GLOBAL: their identity for commits). Never the home itself, nothing inside `shown` (the tree).
 */
export function homeExposed(env: Record<string, string>, programs: string[], shown: string[]): string[] {
  const home = userHome()
  if (!home) return []
  const out: string[] = []
  const inShown = (p: string): boolean => shown.some((s) => within(p, real(s) ?? s))
  const add = (p: string | null): void => {
    // Never the home itself; nothing inside the writable tree (its node_modules/.bin stays writable).
    if (p && p !== home && within(p, home) && !inShown(p)) out.push(p)
  }
  const installRoot = (d: string): void => {
    const rel = path.relative(home, d).split(path.sep)
    if (rel[0] === '.local' && rel.length === 2) {
      // ~/.local also holds other programs' data (keyrings, histories): only its programs and their libraries.
      add(d)
      add(real(path.join(home, '.local', 'lib')))
    } else if (rel.length >= 2 && ['bin', 'sbin', 'shims'].includes(path.basename(d))) add(path.dirname(d))
    else add(d)
  }
  const entries = (env.PATH ?? '').split(':').filter((d) => path.isAbsolute(d))
  const bins = [
    ...entries,
    ...[...programs, process.execPath].filter((p) => path.isAbsolute(p)).map((p) => path.dirname(p)),
  ]
  for (const dir of bins) {
    const d = real(dir)
    if (!d || d === home || !within(d, home)) continue
    installRoot(d)
    // A program on PATH may be a link into another root (npm's bin links, pipx's venvs, a version manager's current).
    for (const target of linkTargets(d)) if (within(target, home)) installRoot(path.dirname(target))
  }
  // The user's git identity: for commands through GIT_CONFIG_GLOBAL, for an agent with the real home in its place.
  for (const f of [env.GIT_CONFIG_GLOBAL, path.join(home, '.gitconfig'), path.join(home, '.config', 'git', 'config')])
    if (f && path.isAbsolute(f)) add(real(f))
  // Nested roots collapse into the outermost one.
  const unique = [...new Set(out)]
  return unique.filter((p) => !unique.some((q) => q !== p && within(p, q)))
}

/** How long a PATH folder's links are taken as read (with its mtime unchanged): see linkTargets. */
const LINKS_FOR_MS = 5000
const links = new Map<string, { mtimeMs: number; at: number; targets: string[] }>()

/**
 * Where the links in a PATH folder lead (outside it), read again when the folder changed (an entry added, removed or
 * re-linked changes its mtime) or after LINKS_FOR_MS: every sandboxed spawn needs them, and reading a folder of 150
 * shims with a realpath each took ~10 ms of the event loop per spawn (a check of 50 tasks against the base spawns
 * hundreds of sandboxed git processes).
 */
function linkTargets(d: string): string[] {
  let mtimeMs: number
  try {
    mtimeMs = statSync(d).mtimeMs
  } catch {
    return []
  }
  const at = Date.now()
  const known = links.get(d)
  if (known && known.mtimeMs === mtimeMs && at - known.at < LINKS_FOR_MS) return known.targets
  const targets: string[] = []
  for (const name of safeReaddir(d)) {
    const target = real(path.join(d, name))
    if (target && target !== path.join(d, name) && !within(target, d)) targets.push(target)
  }
  links.set(d, { mtimeMs, at, targets })
  return targets
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, 2000)
  } catch {
    return []
  }
}
