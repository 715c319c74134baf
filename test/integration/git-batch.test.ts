/**
 * Commit names resolved by the repository's long-lived `git cat-file --batch-check` (platform/git-batch.ts) answer as
 * rev-parse does, on a real repository: what was committed, branched or packed after the batch started, short SHAs
 * and HEAD included; names that are not commits resolve to nothing; a batch that died is started again.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { batchCommit, closeBatches } from '../../electron/main/platform/git-batch'
import { resolveCommit, resolveTreeCommit } from '../../electron/main/repo/git-repo'

let root: string
let repo: string
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@x', ...args], { cwd: repo, encoding: 'utf8' }).trim()
const commit = (file: string) => {
  writeFileSync(join(repo, file), `${file}\n`)
  git('add', '-A')
  git('commit', '-qm', file)
  return git('rev-parse', 'HEAD')
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'concord-batch-'))
  repo = join(root, 'repo')
  execFileSync('git', ['init', '-q', '-b', 'main', repo])
})
afterEach(() => {
  closeBatches()
  rmSync(root, { recursive: true, force: true })
})

it('answers what is committed, branched and packed after it started, as rev-parse would', async () => {
  const first = commit('a.txt')
  expect(await batchCommit(repo, 'HEAD')).toBe(first)
  // After the batch is running: a new commit (loose), a branch, a tag, then everything packed.
  const second = commit('b.txt')
  git('branch', 'feature', first)
  git('tag', 'v1', second)
  expect(await batchCommit(repo, 'HEAD')).toBe(second)
  expect(await batchCommit(repo, second.slice(0, 7))).toBe(second)
  expect(await batchCommit(repo, 'feature')).toBe(first)
  expect(await batchCommit(repo, 'refs/heads/main')).toBe(second)
  expect(await batchCommit(repo, 'v1')).toBe(second)
  git('gc', '-q', '--prune=now')
  const third = commit('c.txt')
  git('repack', '-adq')
  expect(await batchCommit(repo, third.slice(0, 8))).toBe(third)
  expect(await batchCommit(repo, 'HEAD~2')).toBe(first)
  // Not commits: a missing name, a tree, a blob.
  expect(await batchCommit(repo, 'deadbeef')).toBeNull()
  expect(await batchCommit(repo, 'HEAD^{tree}')).toBeNull()
  expect(await batchCommit(repo, 'HEAD:a.txt')).toBeNull()
  // resolveCommit, which callers use, agrees with rev-parse for each.
  for (const ref of ['HEAD', 'feature', third.slice(0, 7), 'v1'])
    expect(await resolveCommit(repo, ref)).toBe(git('rev-parse', '--verify', `${ref}^{commit}`))
  expect(await resolveCommit(repo, 'nothing-here')).toBeNull()
  expect(await resolveCommit(repo, '--all')).toBeNull()
})

it('a batch that died is started again, and a tree of its own is read through its own git folder', async () => {
  const first = commit('a.txt')
  expect(await resolveCommit(repo, 'main')).toBe(first)
  // Kill this repository's cat-file (only the one working in this test's repository): the next name still resolves,
  // from the batch itself (batchCommit has no rev-parse behind it).
  const ours = execFileSync('pgrep', ['-f', 'cat-file --batch-check'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((pid) => {
      try {
        return realpathSync(`/proc/${pid}/cwd`) === realpathSync(repo)
      } catch {
        return false
      }
    })
  expect(ours).toHaveLength(1)
  process.kill(Number(ours[0]), 'SIGKILL')
  await new Promise((r) => setTimeout(r, 100))
  const second = commit('b.txt')
  expect(await batchCommit(repo, 'main')).toBe(second)
  expect(await resolveCommit(repo, 'main')).toBe(second)
  // A clone of its own (a task's tree): its HEAD, not the repository's.
  const tree = join(root, 'tree')
  execFileSync('git', ['clone', '-q', '--shared', repo, tree])
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-q', '--allow-empty', '-m', 'in tree'], {
    cwd: tree,
  })
  const treeHead = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: tree, encoding: 'utf8' }).trim()
  expect(await resolveTreeCommit(tree, 'HEAD')).toBe(treeHead)
  expect(await resolveCommit(repo, 'HEAD')).toBe(second)
})
