/**
 * runOwnGit keeps its read of a repository's filter and merge-driver config (own-config-cache.ts) only while the files
 * git read it from are unchanged: a merge driver the repository's config gains after a kept read still does not run,
 * nor one in a file the config includes (such a config is never kept). A linked worktree (`.git` a file) is never kept.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runOwnGit } from '../../electron/main/platform/own-git'
import { keptOwnConfig, ownConfig, ownConfigKey } from '../../electron/main/platform/own-config-cache'
import { commandEnv } from '../../electron/main/platform/command-env'

let root: string
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t.invalid', ...args], { cwd, encoding: 'utf8' }).trim()

/** A repository whose main and other both changed m.txt (a conflict), m.txt handed to the driver "evil". */
function conflicted(name: string): string {
  const repo = path.join(root, name)
  git(root, 'init', '-q', '-b', 'main', repo)
  const commit = (text: string) => {
    writeFileSync(path.join(repo, 'm.txt'), text)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-qm', text.trim())
  }
  commit('base\n')
  git(repo, 'branch', 'other')
  commit('ours\n')
  git(repo, 'checkout', '-q', 'other')
  commit('theirs\n')
  git(repo, 'checkout', '-q', 'main')
  writeFileSync(path.join(repo, '.git', 'info', 'attributes'), 'm.txt merge=evil\n')
  return repo
}

/** A merge driver that leaves `marker` behind and reports a clean merge. */
function driver(marker: string): string {
  const file = path.join(root, `driver-${path.basename(marker)}.sh`)
  writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\nexit 0\n`)
  chmodSync(file, 0o755)
  return `${file} %O %A %B`
}

async function mergeOther(repo: string): Promise<number> {
  const merged = await runOwnGit(
    repo,
    ['-c', 'user.name=T', '-c', 'user.email=t@t.invalid', 'merge', '--no-edit', 'other'],
    {
      allowFailure: true,
    },
  )
  await runOwnGit(repo, ['merge', '--abort'], { allowFailure: true })
  return merged.code
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'concord-own-config-'))
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

describe("runOwnGit's kept config read", () => {
  it('is kept for a repository, and read again once its config gains a merge driver (which does not run)', async () => {
    const repo = conflicted('gains')
    const marker = path.join(root, 'ran-gains')
    expect(await mergeOther(repo)).not.toBe(0)
    const env = commandEnv(undefined)
    expect(keptOwnConfig(repo, await ownConfigKey(repo, env))).not.toBeNull()
    git(repo, 'config', 'merge.evil.driver', driver(marker))
    expect(keptOwnConfig(repo, await ownConfigKey(repo, env))).toBeNull()
    expect(await mergeOther(repo)).not.toBe(0)
    expect(existsSync(marker)).toBe(false)
  })

  it('is never kept when the config includes a file: a driver added there does not run', async () => {
    const repo = conflicted('includes')
    const marker = path.join(root, 'ran-includes')
    const extra = path.join(root, 'extra.cfg')
    writeFileSync(extra, '')
    git(repo, 'config', 'include.path', extra)
    expect(await mergeOther(repo)).not.toBe(0)
    writeFileSync(extra, `[merge "evil"]\n\tdriver = ${driver(marker)}\n`)
    expect(await mergeOther(repo)).not.toBe(0)
    expect(existsSync(marker)).toBe(false)
  })

  it('is never kept for a linked worktree (its config is elsewhere)', async () => {
    const repo = conflicted('linked')
    const linked = path.join(root, 'linked-tree')
    git(repo, 'worktree', 'add', '-q', linked, 'other')
    await runOwnGit(linked, ['status', '--porcelain'])
    expect(await ownConfigKey(linked, commandEnv(undefined))).toBeNull()
  })

  it('keeps one answer per environment (a merge reads under the scratch home and under your own home for git var)', async () => {
    const repo = conflicted('two-homes')
    const scratch = commandEnv(undefined)
    const mine = { ...scratch, HOME: path.join(root, 'my-home') }
    await runOwnGit(repo, ['status', '--porcelain'])
    await runOwnGit(repo, ['status', '--porcelain'], { env: { HOME: mine.HOME } })
    expect(keptOwnConfig(repo, await ownConfigKey(repo, scratch))).not.toBeNull()
    expect(keptOwnConfig(repo, await ownConfigKey(repo, mine))).not.toBeNull()
  })

  it('reads once for calls made at once, and keeps nothing of a read git did not answer', async () => {
    const repo = conflicted('at-once')
    const key = await ownConfigKey(repo, commandEnv(undefined))
    let reads = 0
    const read = async () => {
      reads++
      await new Promise((r) => setTimeout(r, 20))
      return { stdout: 'x', code: reads === 1 ? 128 : 0 }
    }
    expect(await Promise.all([ownConfig(repo, key, read), ownConfig(repo, key, read)])).toEqual(['x', 'x'])
    expect(reads).toBe(1)
    expect(keptOwnConfig(repo, key)).toBeNull()
    await ownConfig(repo, key, read)
    expect(reads).toBe(2)
    expect(keptOwnConfig(repo, key)).toBe('x')
  })
})
