/**
 * The workspace's listed files (`.env`, local config) copied from the user's checkout into a task's tree: those not in
 * the commit (git ls-files --others), never out of the checkout, never into git's folder, never over a file the tree
 * has.
 *
 * The tree is the agent's: between a check of a folder there and the write, an agent can swap the folder for a link
 * that leads out (issue 32: `d/` and `d → elsewhere` exchanged in a loop won within 40 rounds). So the writes are not
 * Concord's: where there is a sandbox, the copy runs inside one in which only the tree is writable (the checkout
 * readable, /tmp private and empty, no network). Whatever link the agent plants, a write through it lands in the tree
 * or fails. The checks made here before are for the words of a refusal, not for safety.
 */
import { copyFileSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { runOwnGit } from '../../platform/own-git'
import { sandboxedSpawn } from '../../platform/sandbox/spawn'
import { sandboxStatus } from '../../platform/sandbox/status'
import { runShell } from '../../platform/shell'

const MAX_COPIED = 10_000
/** Files per sandboxed copy: the paths ride on the command line. */
const BATCH = 200
const COPY_TIMEOUT_MS = 5 * 60_000

export interface CopyResult {
  copied: string[]
  refused: string[]
}

interface Job {
  source: string
  rel: string
  mode: number
}

/**
 * Copies the files the patterns name from the checkout into the tree. A symlink whose target is out of the checkout,
 * and any path whose folder in the tree is a symlink, is refused and named.
 */
export async function copyIntoTree(repo: string, tree: string, patterns: string[]): Promise<CopyResult> {
  const copied: string[] = []
  const refused: string[] = []
  if (!patterns.length) return { copied, refused }
  const listed = await runOwnGit(
    repo,
    ['ls-files', '-z', '--others', '--', ...patterns.map((p) => `:(top,glob)${p}`)],
    { allowFailure: true },
  )
  if (listed.code !== 0) return { copied, refused: [`the list could not be read: ${listed.stderr.trim()}`] }
  const repoReal = realpathSync(repo)
  const treeReal = realpathSync(tree)
  const inside = (p: string, dir: string) => p === dir || p.startsWith(dir + sep)
  const jobs: Job[] = []
  for (const rel of listed.stdout.split('\0').filter(Boolean).slice(0, MAX_COPIED)) {
    if (rel.split('/').some((p) => p === '..' || p.toLowerCase() === '.git')) {
      refused.push(`${rel} (inside .git or out of the checkout)`)
      continue
    }
    const from = join(repoReal, rel)
    let source = from
    try {
      if (lstatSync(from).isSymbolicLink()) {
        source = realpathSync(from)
        if (!inside(source, repoReal) || inside(source, join(repoReal, '.git'))) {
          refused.push(`${rel} (a symlink out of your checkout)`)
          continue
        }
      }
      const st = statSync(source)
      if (!st.isFile()) continue
      if (!safeTarget(treeReal, rel)) {
        refused.push(`${rel} (its folder in the task's tree is a symlink, or the path is taken)`)
        continue
      }
      jobs.push({ source, rel, mode: st.mode & 0o777 })
    } catch (err) {
      refused.push(`${rel} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
    }
  }
  if (!jobs.length) return { copied, refused }
  const copy = (await sandboxStatus()).available ? copyInSandbox : copyHere
  for (let i = 0; i < jobs.length; i += BATCH) {
    const r = await copy(repoReal, treeReal, jobs.slice(i, i + BATCH))
    copied.push(...r.copied)
    refused.push(...r.refused)
  }
  return { copied, refused }
}

/**
 * The copy as a process of the tree's own: a shell in the sandbox, only the tree writable. Each file: refused when
 * its path is taken, its folder made, the file written with noclobber (O_EXCL), its mode set; one line per file says
 * how it went, by number (a name may hold a line break).
 */
const SCRIPT = `set -C
i=0
while [ "$#" -ge 3 ]; do
  src=$1; rel=$2; mode=$3; shift 3
  if [ -e "$rel" ] || [ -L "$rel" ]; then printf '\\n@taken %s\\n' "$i"
  elif ! mkdir -p -- "$(dirname -- "$rel")" 2>/dev/null; then printf '\\n@nodir %s\\n' "$i"
  elif (cat -- "$src" > "$rel") 2>/dev/null && chmod "$mode" -- "$rel" 2>/dev/null; then printf '\\n@ok %s\\n' "$i"
  else printf '\\n@failed %s\\n' "$i"
  fi
  i=$((i+1))
done
`

async function copyInSandbox(repoReal: string, treeReal: string, jobs: Job[]): Promise<CopyResult> {
  const args = jobs.flatMap((j) => [j.source, j.rel, j.mode.toString(8)])
  const plan = await sandboxedSpawn(['/bin/sh', '-c', SCRIPT, 'concord-copy', ...args], {
    root: treeReal,
    onlyRoot: true,
    policy: { readable: [repoReal] },
  })
  const r = await runShell(plan, {
    timeoutMs: COPY_TIMEOUT_MS,
    signal: new AbortController().signal,
    cap: 64 * 1024 + jobs.length * 32,
  })
  const how = new Map<number, string>()
  for (const m of r.output.matchAll(/^@(ok|taken|nodir|failed) (\d+)$/gm)) how.set(Number(m[2]), m[1]!)
  const copied: string[] = []
  const refused: string[] = []
  jobs.forEach((j, i) => {
    const h = how.get(i)
    if (h === 'ok') copied.push(j.rel)
    else if (h === 'taken') refused.push(`${j.rel} (the path is taken in the task's tree)`)
    else if (h === 'nodir') refused.push(`${j.rel} (its folder could not be made in the task's tree)`)
    else if (h === 'failed') refused.push(`${j.rel} (it could not be written in the task's tree: a link out of it?)`)
    else refused.push(`${j.rel} (the copy did not finish${r.timedOut ? ': timed out' : ''})`)
  })
  return { copied, refused }
}

/** No sandbox here (the card says so for the setup command): the copy by path, checked just before. */
async function copyHere(_repoReal: string, treeReal: string, jobs: Job[]): Promise<CopyResult> {
  const copied: string[] = []
  const refused: string[] = []
  for (const j of jobs) {
    try {
      if (!safeTarget(treeReal, j.rel)) {
        refused.push(`${j.rel} (its folder in the task's tree is a symlink, or the path is taken)`)
        continue
      }
      const to = join(treeReal, j.rel)
      mkdirSync(dirname(to), { recursive: true })
      copyFileSync(j.source, to, 1 /* COPYFILE_EXCL: never overwrite */)
      copied.push(j.rel)
    } catch (err) {
      refused.push(`${j.rel} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
    }
  }
  return Promise.resolve({ copied, refused })
}

/** Every folder on the way to `rel` in the tree is a real folder (or not there yet) and the file itself is not there. */
function safeTarget(treeReal: string, rel: string): boolean {
  const parts = rel.split('/')
  let at = treeReal
  for (let i = 0; i < parts.length; i++) {
    at = join(at, parts[i]!)
    let st
    try {
      st = lstatSync(at)
    } catch {
      return true // from here on nothing exists: the folders are made fresh
    }
    if (i === parts.length - 1) return false // the file is there (committed or made): left as it is
    if (st.isSymbolicLink() || !st.isDirectory()) return false
  }
  return true
}
