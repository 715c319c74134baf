/**
 * What changed in a tree: its uncommitted files, the snapshots of a turn's tree (kept in Concord's own object store
 * in the scratch folder) and the files that differ between two trees or commits, with git's status letter in our words.
 * Every call goes through runTreeGit: a tree is hostile, and no program named by its config ever runs.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { runTreeGit, treeConfig } from '../platform/tree-git'
import { isOwnTree, treeHead } from './git-repo'

/**
 * The object stores a tree's alternates name, for calls whose only writes go to Concord's scratch (snapshots): what
 * they read there reaches nobody in the sandbox. Calls that write the tree get the store from Concord's records.
 */
function treeAlternates(dir: string): string[] {
  try {
    return readFileSync(path.join(dir, '.git', 'objects', 'info', 'alternates'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => path.isAbsolute(l))
  } catch {
    return []
  }
}

export interface FileChange {
  path: string
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed'
}

/** git's one-letter file status (`--name-status`, `diff-tree`) in our words; an unknown letter reads as 'modified'. */
export const statusWord: Record<string, FileChange['status']> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
}

/** Tracked and untracked changes in a work tree against its HEAD (what a delivery would leave out). */
export async function uncommittedFiles(dir: string): Promise<string[]> {
  const r = await runTreeGit(dir, [
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--ignore-submodules=dirty',
  ])
  return r.stdout
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
}

/** Where the trees of turn snapshots are kept: Concord's own object store in the scratch folder, not a repository. */
export function snapshotObjects(scratch: string): string {
  return path.join(scratch, 'objects')
}

/**
 * A tree object for the work tree as it is now, committed or not, so two snapshots tell exactly what a turn changed.
 * Nothing is written in the tree: the index is a temporary copy and the objects go to Concord's snapshot store
 * (snapshotObjects), reading the tree's own through alternates; in the sandbox only those two are writable.
 */
export async function snapshotTree(dir: string, scratch: string): Promise<string | null> {
  const store = snapshotObjects(scratch)
  mkdirSync(store, { recursive: true, mode: 0o700 })
  const index = path.join(scratch, `snapshot-${process.pid}-${Math.random().toString(36).slice(2)}.index`)
  try {
    // The config is read once for the calls below, and a tree's own git folder is where runTreeGit names it: a
    // snapshot spawns git three times (config, add, write-tree), not six.
    const config = await treeConfig(dir)
    const own = path.join(dir, '.git')
    const paths =
      isOwnTree(dir) && !existsSync(path.join(own, 'commondir'))
        ? [path.join(own, 'index'), path.join(own, 'objects')]
        : (
            await runTreeGit(
              dir,
              ['rev-parse', '--path-format=absolute', '--git-path', 'index', '--git-path', 'objects'],
              { allowFailure: true, config },
            )
          ).stdout
            .trim()
            .split('\n')
    const [real, objects] = paths
    if (!objects) return null
    const env = { GIT_INDEX_FILE: index, GIT_OBJECT_DIRECTORY: store, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects }
    const readable = [objects, ...treeAlternates(dir)]
    const calls = { env, writable: [scratch], readable, allowFailure: true, config }
    // Start from a copy of the real index: its stat data spares hashing every unchanged file.
    if (real && existsSync(real) && lstatSync(real).isFile()) copyFileSync(real, index)
    else {
      const head = await treeHead(dir)
      if (head) await runTreeGit(dir, ['read-tree', head], calls)
    }
    const add = await runTreeGit(dir, ['add', '-A', '--', '.'], calls)
    if (add.code !== 0) return null
    const tree = (await runTreeGit(dir, ['write-tree'], calls)).stdout.trim()
    return /^[0-9a-f]{40}$/.test(tree) ? tree : null
  } finally {
    rmSync(index, { force: true })
  }
}

/** GIT_ALTERNATE_OBJECT_DIRECTORIES naming the snapshot store (and more stores), those that exist. */
export function withSnapshots(...stores: (string | null | undefined)[]): Record<string, string> {
  const present = stores.filter((p): p is string => !!p && existsSync(p))
  return present.length ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: present.join(path.delimiter) } : {}
}

/** The files that differ between two trees or commits (snapshots: pass their scratch folder), with what happened to each. */
export async function changedFiles(dir: string, from: string, to: string, scratch?: string): Promise<FileChange[]> {
  if (from === to) return []
  const env = scratch ? withSnapshots(snapshotObjects(scratch)) : {}
  const r = await runTreeGit(dir, ['diff-tree', '-r', '-z', '--no-commit-id', '--name-status', '-M', from, to], {
    env,
    allowFailure: true,
  })
  if (r.code !== 0) return []
  const parts = r.stdout.split('\0').filter((p) => p.length > 0)
  const out: FileChange[] = []
  for (let i = 0; i < parts.length;) {
    const code = parts[i++] ?? ''
    const kind = statusWord[code.charAt(0)] ?? 'modified'
    if (kind === 'renamed' || kind === 'copied') i++ // the old path
    const path = parts[i++]
    if (path !== undefined) out.push({ path, status: kind })
  }
  return out
}
