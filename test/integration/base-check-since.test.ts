/**
 * A check of tasks against a base that moved builds on the check before (repo/base-check.ts, Since): a task on the
 * same commit, checked against an ancestor of the new base, is asked only the trial merge — its merge base and how far
 * behind it is follow from the commits the base gained — unless one of those commits is in its history (a sibling's
 * merge that brought commits the task is built on) or the base moved back. Every answer is compared with what bare
 * git says on a repository holding all the commits (the oracle), move after move, on real trees.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkManyAgainstBase, type BaseCheckItem } from '../../electron/main/repo/base-check'

let root: string
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@concord.invalid', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim()

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'concord-base-since-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A commit in `dir` writing `file`. */
function commit(dir: string, file: string, text: string): string {
  writeFileSync(join(dir, file), text)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', `${file}: ${text.trim()}`)
  return git(dir, 'rev-parse', 'HEAD')
}

/** What bare git says of `task` against `base`, in the oracle repository that has every commit. */
function oracle(repo: string, base: string, task: string) {
  const behind = Number(git(repo, 'rev-list', '--count', `${task}..${base}`))
  let lands: boolean
  try {
    lands =
      git(repo, 'merge-tree', '--write-tree', '--name-only', '--no-messages', base, task) ===
      git(repo, 'rev-parse', `${task}^{tree}`)
  } catch {
    lands = false
  }
  return { behind, landsAsChecked: behind === 0 || lands }
}

describe('a base check after a move builds on the one before, and only where that is sound', () => {
  it('agrees with bare git through forward moves, a merge bringing a task’s own commits, and a move back', async () => {
    const repo = join(root, 'repo')
    mkdirSync(repo)
    git(repo, 'init', '-q', '-b', 'main')
    const b0 = commit(repo, 'base.txt', 'base\n')
    // Three trees of their own: T1 changes a.txt, T2 b.txt, T3 is built on T1's commit and changes d.txt.
    const tree = (name: string) => {
      const dir = join(root, name)
      git(root, 'clone', '-q', repo, dir)
      return dir
    }
    const [t1, t2, t3] = [tree('t1'), tree('t2'), tree('t3')]
    const c1 = commit(t1, 'a.txt', 'one\n')
    const c2 = commit(t2, 'b.txt', 'two\n')
    git(t3, 'fetch', '-q', t1, 'HEAD')
    git(t3, 'reset', '-q', '--hard', c1)
    const c3 = commit(t3, 'd.txt', 'three\n')
    // The oracle: the user's repository with every task's commits fetched (the trees stay as they are).
    const all = join(root, 'oracle')
    git(root, 'clone', '-q', repo, all)
    for (const t of [t1, t2, t3]) git(all, 'fetch', '-q', t, 'HEAD')

    const items: BaseCheckItem[] = [
      { tree: t1, commit: c1 },
      { tree: t2, commit: c2 },
      { tree: t3, commit: c3 },
    ]
    const scratch = join(root, 'scratch')
    const check = async (base: string) => {
      git(all, 'fetch', '-q', repo, 'main')
      const found = await checkManyAgainstBase(repo, base, items, scratch)
      const expected = items.map((it) => oracle(all, base, it.commit))
      expect(
        found.map((f) => f && { behind: f.behind, landsAsChecked: f.landsAsChecked }),
        `against ${base.slice(0, 7)}`,
      ).toEqual(expected)
      return found
    }

    await check(b0)
    // Forward: the base gains a commit none of the tasks has, then one touching T1's file.
    commit(repo, 'c.txt', 'main one\n')
    await check(git(repo, 'rev-parse', 'HEAD'))
    const x2 = commit(repo, 'a.txt', 'main two\n')
    const h2 = await check(x2)
    expect(h2[0]!.both).toEqual([{ file: 'a.txt', commits: [x2] }])
    expect(h2[0]!.conflicts).toEqual(['a.txt'])
    // T1's commit merged into main from its own branch: the base gains C1, which T3 is built on. T3's merge base moves
    // to C1 (behind: X1, X2 and the merge, not C1), which adding what the base gained to its old answer would miss.
    git(repo, 'fetch', '-q', t1, 'HEAD')
    git(repo, 'merge', '-q', '--no-ff', '-X', 'theirs', '-m', 'merge T1', 'FETCH_HEAD')
    const h3 = git(repo, 'rev-parse', 'HEAD')
    const third = await check(h3)
    expect(third[2]!.behind).toBe(3)
    // One more forward move after it: T3 now builds on its new merge base.
    const x4 = commit(repo, 'd.txt', 'main four\n')
    const fourth = await check(x4)
    expect(fourth[2]!.both).toEqual([{ file: 'd.txt', commits: [x4] }])
    // The base moved back (a reset): no earlier answer is built on.
    git(repo, 'reset', '-q', '--hard', b0)
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'elsewhere')
    await check(git(repo, 'rev-parse', 'HEAD'))
  })
})
