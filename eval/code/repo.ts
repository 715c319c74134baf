/**
 * The git side of a code scenario: a real repository in a temp folder, the task's change written into a tree, and
 * the trees main received. Plain git, no hook and no config program of the user (the eval's own repositories).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Lines per file: each task changes a line of its own, SPACING apart, so tasks sharing a file never conflict. */
const SPACING = 4
const LINES = 8 * SPACING

export const git = (dir: string, ...args: string[]): string =>
  execFileSync(
    'git',
    ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=Eval', '-c', 'user.email=eval@concord.invalid', ...args],
    { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim()

/** A repository on main with the scenario's files, one commit. */
export function initRepo(dir: string, files: string[]): void {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'config', 'user.name', 'Eval')
  git(dir, 'config', 'user.email', 'eval@concord.invalid')
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    writeFileSync(join(dir, f), Array.from({ length: LINES }, (_, i) => `// ${f} line ${i}`).join('\n') + '\n')
  }
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'base')
}

/** The task's change in its tree, committed: its own line of each of its files. */
export function commitChange(tree: string, task: number, title: string, files: string[]): string {
  for (const f of files) {
    const path = join(tree, f)
    const lines = readFileSync(path, 'utf8').split('\n')
    lines[(1 + task * SPACING) % LINES] = `export const change${task + 1} = '${title}' // T-${task + 1}`
    writeFileSync(path, lines.join('\n'))
  }
  git(tree, 'add', '-A')
  git(tree, 'commit', '-qm', `T-${task + 1}: ${title}`)
  return git(tree, 'rev-parse', 'HEAD')
}

export const treeOf = (repo: string, rev: string): string => git(repo, 'rev-parse', `${rev}^{tree}`)

/**
 * untestedTreesLanded, from git alone: the trees main had after each merge that are not the tree of a commit a
 * passing test report named.
 */
export function untestedTrees(repo: string, landed: string[], testedCommits: string[]): number {
  const tested = new Set<string>()
  for (const c of testedCommits) {
    try {
      tested.add(treeOf(repo, c))
    } catch {
      // A commit main's repository never received (a head the merge did not take): no tree main could land.
    }
  }
  return landed.filter((t) => !tested.has(t)).length
}
