/**
 * The files a tree's run or setup command runs, and which of them a member changed since the user last ran it (issue
 * 32: a sandboxed member without network wrote `dev.sh`; the user's `sh ./dev.sh` from the card reached the network).
 *
 * The files: each word of the command that names a file in the tree (`sh ./dev.sh`, `./scripts/serve`), package.json
 * for a package manager (`npm run dev`) and the files the named script's words name, the Makefile for make. Changed by
 * a member: its git blob differs from the one the user last ran (kept on the run's record), or, before any run, from
 * the task's base commit (a file not there is the member's).
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs'
import { join, normalize, sep } from 'node:path'
import { runOwnGit } from '../../platform/own-git'

const PACKAGE_MANAGERS = new Set(['npm', 'npx', 'yarn', 'pnpm', 'bun'])
const MAX_FILES = 20

/** The words of a command, roughly as the shell splits them: quotes dropped, operators as separators. */
function wordsOf(command: string): string[] {
  return command
    .split(/[\s;&|()<>`]+/)
    .map((w) => w.replace(/^['"]|['"]$/g, ''))
    .filter(Boolean)
}

/** A word that names a file in the tree, as a path relative to it; null for anything else. */
function fileIn(tree: string, word: string): string | null {
  if (word.startsWith('-') || word.includes('=') || word.startsWith('/') || word.startsWith('$')) return null
  const rel = normalize(word)
  if (rel === '.' || rel.startsWith('..') || rel.split(sep).includes('.git')) return null
  try {
    const st = lstatSync(join(tree, rel))
    return st.isFile() || st.isSymbolicLink() ? rel : null
  } catch {
    return null
  }
}

/** The files in the tree that `command` runs (see the file's comment). */
export function scriptsOf(command: string, tree: string): string[] {
  const words = wordsOf(command)
  const files = new Set<string>()
  for (const w of words) {
    const f = fileIn(tree, w)
    if (f) files.add(f)
  }
  if (words.some((w) => w === 'make') && existsSync(join(tree, 'Makefile'))) files.add('Makefile')
  const pm = words.findIndex((w) => PACKAGE_MANAGERS.has(w))
  if (pm >= 0 && fileIn(tree, 'package.json')) {
    files.add('package.json')
    // `npm run dev`, `npm test`, `yarn start`: the script's own words name files too (`node server.js`).
    const rest = words.slice(pm + 1).filter((w) => !w.startsWith('-'))
    const name = rest[0] === 'run' || rest[0] === 'run-script' ? rest[1] : rest[0]
    try {
      const pkg = JSON.parse(readFileSync(join(tree, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> }
      const script = name ? pkg.scripts?.[name] : undefined
      if (typeof script === 'string')
        for (const w of wordsOf(script)) {
          const f = fileIn(tree, w)
          if (f) files.add(f)
        }
    } catch {
      // not JSON: package.json itself is counted
    }
  }
  return [...files].slice(0, MAX_FILES)
}

/** The git blob id of each file as it is in the tree now (missing: ''). */
export async function blobsOf(repo: string, tree: string, files: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const f of files) {
    const r = await runOwnGit(repo, ['hash-object', '--no-filters', '--', join(tree, f)], { allowFailure: true })
    out[f] = r.code === 0 ? r.stdout.trim() : ''
  }
  return out
}

/**
 * The files among `now` a member changed: a blob other than the one the user last ran (`lastRan`), or, for a file
 * the user never ran, other than at the task's base commit.
 */
export async function memberChanged(
  repo: string,
  base: string | null,
  now: Record<string, string>,
  lastRan: Record<string, string> | undefined,
): Promise<string[]> {
  const changed: string[] = []
  for (const [f, blob] of Object.entries(now)) {
    let before = lastRan?.[f]
    if (before === undefined && base) {
      const r = await runOwnGit(repo, ['rev-parse', '--verify', '-q', `${base}:${f}`], { allowFailure: true })
      before = r.code === 0 ? r.stdout.trim() : ''
    }
    if (before !== blob) changed.push(f)
  }
  return changed
}
