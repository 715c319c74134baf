/**
 * Many tree git calls in one sandboxed process (tree-git-batch.ts) answer exactly what runTreeGit answers call by call
 * — output a tree's file names could try to forge included — and keep every guard of runTreeGit: a merge driver the
 * tree's own config names does not run. A tree's config is read again once its config file changed, and never kept
 * when it includes other files (tree-config-cache.ts).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runTreeGit, treeConfigCall, treeGitCall } from '../../electron/main/platform/tree-git'
import { runTreeGitBatch } from '../../electron/main/platform/tree-git-batch'
import { cachedConfigCall, keepConfig, keptConfigs } from '../../electron/main/platform/tree-config-cache'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'

fileNeedsSandbox()

let root: string
let tree: string
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t.invalid', ...args], { cwd, encoding: 'utf8' }).trim()

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'concord-tree-batch-'))
  tree = path.join(root, 'tree')
  git(root, 'init', '-q', '-b', 'main', tree)
  writeFileSync(path.join(tree, 'a.txt'), 'base\n')
  git(tree, 'add', '-A')
  git(tree, 'commit', '-qm', 'base')
  // Content shaped like the framing (a newline, hex, a colon and a status) cannot end its call's output early.
  writeFileSync(path.join(tree, 'forged.txt'), 'x\n0123456789abcdef0123456789abcdef:0\nmore\n')
  git(tree, 'add', '-A')
  git(tree, 'commit', '-qm', 'forged name')
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('tree git calls in one sandboxed process', () => {
  it('answers each call exactly as runTreeGit does: stdout, stderr, exit status, in order', async () => {
    const argsList = [
      ['rev-parse', 'HEAD'],
      ['log', '--name-only', '--format=%x01%H'],
      ['rev-parse', '--verify', 'no-such-ref'],
      ['diff', '--name-only', 'HEAD~1', 'HEAD'],
      ['cat-file', '-p', 'HEAD:a.txt'],
      ['cat-file', '-p', 'HEAD:forged.txt'],
    ]
    const calls = await Promise.all(argsList.map(async (args) => ({ tree, ...(await treeGitCall(tree, args)) })))
    const batch = await runTreeGitBatch([...calls, { tree, ...treeConfigCall(tree) }], {
      sandboxed: true,
      processes: 2,
    })
    const single = await Promise.all(
      argsList.map((args) => runTreeGit(tree, args, { sandboxed: true, allowFailure: true })),
    )
    expect(batch.slice(0, argsList.length).map(({ stdout, code }) => ({ stdout, code }))).toEqual(
      single.map(({ stdout, code }) => ({ stdout, code })),
    )
    expect(batch[2]!.code).not.toBe(0)
    expect(batch[2]!.stderr).toBe(single[2]!.stderr)
    expect(batch[5]!.stdout).toBe('x\n0123456789abcdef0123456789abcdef:0\nmore\n')
    expect(batch).toHaveLength(argsList.length + 1)
  })

  it("runs no merge driver the tree's own config names: the trial merge conflicts instead", async () => {
    const hostile = path.join(root, 'hostile')
    git(root, 'init', '-q', '-b', 'main', hostile)
    writeFileSync(path.join(hostile, 'f.txt'), 'base\n')
    writeFileSync(path.join(hostile, '.gitattributes'), '* merge=mine\n')
    git(hostile, 'add', '-A')
    git(hostile, 'commit', '-qm', 'base')
    git(hostile, 'checkout', '-qb', 'other')
    writeFileSync(path.join(hostile, 'f.txt'), 'theirs\n')
    git(hostile, 'commit', '-qam', 'theirs')
    git(hostile, 'checkout', '-q', 'main')
    writeFileSync(path.join(hostile, 'f.txt'), 'ours\n')
    git(hostile, 'commit', '-qam', 'ours')
    // `true` as the driver would say every file merged cleanly.
    git(hostile, 'config', 'merge.mine.driver', 'true')
    const [config] = await runTreeGitBatch([{ tree: hostile, ...treeConfigCall(hostile) }])
    const { treeConfigOf } = await import('../../electron/main/platform/tree-git')
    const args = ['merge-tree', '--write-tree', '--name-only', '--no-messages', 'main', 'other']
    const call = await treeGitCall(hostile, args, { config: treeConfigOf(config!.stdout) })
    // Outside the sandbox: the trial merge writes its objects into the tree here (a check gives it a scratch store).
    const [trial] = await runTreeGitBatch([{ tree: hostile, ...call }])
    expect(trial!.code).toBe(1)
    expect(trial!.stdout.split('\n').slice(1)).toContain('f.txt')
  })
})

describe("a tree's config, kept", () => {
  it('is read again once its config file changed, and never kept when it includes other files', async () => {
    const read = async () => (await runTreeGitBatch([{ tree, ...cachedConfigCall(treeConfigCall(tree)) }]))[0]!.stdout
    const [first] = await keptConfigs([tree])
    keepConfig(tree, first!.key, await read())
    expect((await keptConfigs([tree]))[0]!.config).not.toBeNull()
    git(tree, 'config', 'merge.later.driver', 'true')
    expect((await keptConfigs([tree]))[0]!.config).toBeNull()
    git(tree, 'config', 'include.path', path.join(root, 'more.config'))
    const [again] = await keptConfigs([tree])
    keepConfig(tree, again!.key, await read())
    expect((await keptConfigs([tree]))[0]!.config).toBeNull()
  })
})
