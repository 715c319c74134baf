/**
 * Git calls that need no approval run no program named by the repository's config, with and without the sandbox;
 * git_commit runs hooks only when the member's policy allows them, inside the sandbox. Real git, real bubblewrap,
 * a real hostile repository whose programs would each leave a marker file.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runOwnGit } from '../../electron/main/platform/own-git'
import { repoTools } from '../../electron/main/runtime/tools/repo-tools'
import { parseArgs } from '../../electron/main/runtime/tools/tool-helpers'
import type { SandboxPolicy } from '../../electron/main/platform/sandbox-policy'
import type { ToolContext } from '../../electron/main/runtime/tools/types'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'

const tools = new Map(repoTools().map((t) => [t.name, t]))

let base: string
let bin: string // the hostile programs
let markers: string // where they report that they ran (outside the workspace)
let root: string
let scratchDir: string

function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env }
  for (const k of Object.keys(env)) if (k.startsWith('GIT_')) delete env[k]
  return execFileSync('git', args, { cwd, encoding: 'utf8', env }).trim()
}

const ranMarkers = async (): Promise<string[]> => (await readdir(markers)).sort()

/**
 * A program that notes its name in the markers folder (read-only inside a sandbox, so it must run unsandboxed to
 * succeed), then behaves enough like what git expects (cat).
 */
async function program(name: string, body = 'cat "$1" 2>/dev/null || cat'): Promise<string> {
  const p = path.join(bin, name)
  await writeFile(p, `#!/bin/sh\ntouch ${markers}/${name} 2>/dev/null\n${body}\n`)
  await chmod(p, 0o755)
  return p
}

/** Makes the index stale for every tracked file, so status and diff hash them (through the clean filter). */
async function touchAll(): Promise<void> {
  const when = new Date(Date.now() - Math.floor(Math.random() * 1e9))
  for (const f of ['a.txt', 'b.md', 'c.dat', 'e.log']) await utimes(path.join(root, f), when, when)
}

async function hostileRepo(): Promise<void> {
  await rm(root, { recursive: true, force: true })
  await mkdir(root, { recursive: true })
  git(root, 'init', '-q')
  git(root, 'symbolic-ref', 'HEAD', 'refs/heads/main')
  git(root, 'config', 'user.name', 'Test User')
  git(root, 'config', 'user.email', 'test@example.com')
  await writeFile(path.join(root, 'a.txt'), 'hello\n')
  await writeFile(path.join(root, 'b.md'), '# b\n')
  await writeFile(path.join(root, 'c.dat'), 'data\n')
  await writeFile(path.join(root, 'e.log'), 'log\n')
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'initial')
  // Now the repository turns hostile.
  // a.txt and b.md change (diffed: textconv, diff command), c.dat does not (hashed by status through its filter),
  // e.log has no driver (diff.external).
  await writeFile(
    path.join(root, '.gitattributes'),
    '*.txt diff=evil filter=evil\n*.md filter=evilproc diff=conv\n*.dat filter=a=b\n',
  )
  const hooks = path.join(bin, 'hooks')
  await mkdir(hooks, { recursive: true })
  // Hooks leave their mark in the markers folder and, where a sandbox lets them, in the workspace (their cwd).
  for (const h of ['post-index-change', 'pre-commit', 'commit-msg', 'post-commit', 'reference-transaction']) {
    await writeFile(
      path.join(hooks, h),
      `#!/bin/sh\ntouch ${markers}/hook-${h} 2>/dev/null; touch hook-${h}.ran\nexit 0\n`,
    )
    await chmod(path.join(hooks, h), 0o755)
  }
  const cfg: [string, string][] = [
    ['core.fsmonitor', await program('fsmonitor', 'exit 1')],
    ['core.hooksPath', hooks],
    ['core.pager', await program('pager')],
    ['core.editor', await program('editor', 'exit 0')],
    ['diff.external', await program('diff-external', 'exit 0')],
    ['diff.conv.textconv', await program('textconv')],
    ['diff.evil.command', await program('diff-command', 'exit 0')],
    ['filter.evil.clean', await program('clean')],
    ['filter.evil.smudge', await program('smudge')],
    ['filter.evil.required', 'true'],
    ['filter.evilproc.process', await program('process')],
    ['filter.a=b.clean', await program('clean-with-equals')],
    ['log.showSignature', 'true'],
    ['gpg.program', await program('gpg', 'exit 1')],
  ]
  for (const [k, v] of cfg) git(root, 'config', k, v)
  await writeFile(path.join(root, 'a.txt'), 'hello\nchanged\n')
  await writeFile(path.join(root, 'b.md'), '# b\nchanged too\n')
  await writeFile(path.join(root, 'e.log'), 'log\nmore\n')
  await touchAll()
}

function ctx(policy: SandboxPolicy = {}): ToolContext {
  return { workspaceRoot: root, signal: new AbortController().signal, sandbox: { scratchDir, ...policy } }
}

const run = async (name: string, args: unknown, c: ToolContext = ctx()): Promise<string> => {
  const t = tools.get(name)!
  return t.run(parseArgs(t.args, args, name), c)
}

/** Runs tool calls in a second Node process (to turn the sandbox off, or give it another real home). */
async function inWorker(
  calls: { tool: string; args: unknown }[],
  policy: SandboxPolicy,
  env: NodeJS.ProcessEnv,
  at = root,
): Promise<any[]> {
  const script = path.join(base, 'git-worker.mts')
  if (!existsSync(script)) {
    await writeFile(
      script,
      `import { repoTools } from ${JSON.stringify(path.resolve('electron/main/runtime/tools/repo-tools.ts'))}
import { parseArgs } from ${JSON.stringify(path.resolve('electron/main/runtime/tools/tool-helpers.ts'))}
const [calls, root, policy] = process.argv.slice(2)
const tools = new Map(repoTools().map((t) => [t.name, t]))
for (const c of JSON.parse(calls)) {
  const ctx = { workspaceRoot: root, signal: new AbortController().signal, sandbox: JSON.parse(policy) }
  try { console.log(JSON.stringify({ out: await tools.get(c.tool)!.run(parseArgs(tools.get(c.tool)!.args, c.args, c.tool), ctx) })) } catch (e: any) { console.log(JSON.stringify({ error: e.code ?? e.message })) }
}
`,
    )
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, JSON.stringify(calls), at, JSON.stringify(policy)],
    {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  expect(code).toBe(0)
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
}

fileNeedsSandbox()

beforeAll(async () => {
  // Not under /tmp: the command sandbox's private /tmp would hide the hooks from git_commit.
  base = await realpath(await mkdtemp(path.join('/var/tmp', 'concord-git-safety-')))
  bin = path.join(base, 'bin')
  markers = path.join(base, 'markers')
  root = path.join(base, 'repo')
  scratchDir = path.join(base, 'scratch')
  await mkdir(bin, { recursive: true })
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

beforeEach(async () => {
  await rm(markers, { recursive: true, force: true })
  await mkdir(markers, { recursive: true })
  await hostileRepo()
})

describe('git_status and git_diff in a hostile repository', () => {
  it('the hostile config is live: plain git runs its programs', async () => {
    git(root, 'status', '--porcelain')
    git(root, 'diff', 'HEAD')
    git(root, 'diff', '--no-ext-diff', 'HEAD') // textconv is used only where no external diff is
    expect(await ranMarkers()).toEqual(
      expect.arrayContaining([
        'clean',
        'clean-with-equals',
        'diff-command',
        'diff-external',
        'fsmonitor',
        'hook-post-index-change',
        'process',
        'textconv',
      ]),
    )
  })

  it('run none of its programs (sandboxed)', async () => {
    const status = await run('git_status', {})
    expect(status).toContain(' M a.txt')
    await touchAll()
    const diff = await run('git_diff', {})
    expect(diff).toContain('+changed')
    expect(await run('git_diff', { ref: 'HEAD' })).toContain('+changed')
    expect(await ranMarkers()).toEqual([])
  })

  it('run none of its programs without a sandbox either', async () => {
    const results = await inWorker(
      [
        { tool: 'git_status', args: {} },
        { tool: 'git_diff', args: {} },
      ],
      { scratchDir },
      { CONCORD_SANDBOX: 'off' },
    )
    expect(results[0].out).toContain(' M a.txt')
    expect(results[1].out).toContain('+changed')
    expect(await ranMarkers()).toEqual([])
  }, 60_000)

  it("keep the user's own filter drivers, and run them in a read-only sandbox", async () => {
    // The user's global config (git-lfs style) defines the driver the repository's config also redefines.
    const home = path.join(base, 'home')
    await mkdir(home, { recursive: true })
    const trusted = path.join(bin, 'trusted-clean')
    await writeFile(trusted, `#!/bin/sh\ntouch ${root}/.trusted-filter-ran\ncat\n`)
    await chmod(trusted, 0o755)
    await writeFile(path.join(home, '.gitconfig'), `[filter "a=b"]\n\tclean = ${trusted}\n`)
    const calls = [{ tool: 'git_status', args: {} }]
    const off = await inWorker(calls, { scratchDir }, { CONCORD_SANDBOX: 'off', HOME: home })
    expect(off[0].out).toContain(' M a.txt')
    expect(existsSync(path.join(root, '.trusted-filter-ran'))).toBe(true) // the user's driver ran, not the repository's
    expect(await ranMarkers()).toEqual([])
    await rm(path.join(root, '.trusted-filter-ran'))
    await touchAll()
    const sandboxed = await inWorker(calls, { scratchDir }, { HOME: home })
    expect(sandboxed[0].out).toContain(' M a.txt')
    expect(existsSync(path.join(root, '.trusted-filter-ran'))).toBe(false) // it ran, but could not write the workspace
  }, 60_000)
})

describe('git_commit', () => {
  const hookRuns = async (): Promise<string[]> => [
    ...(await readdir(root)).filter((f) => f.endsWith('.ran')),
    ...(await ranMarkers()).filter((m) => m.startsWith('hook-')),
  ]

  it("refuses to run the repository's filter drivers unless the policy allows its programs", async () => {
    const err = await run('git_commit', { message: 'refused' }).catch((e: unknown) => e as any)
    expect(err.code).toBe('git_programs_refused')
    expect(err.message).toMatch(/filter drivers \(.*evil.*\)/)
    expect(await ranMarkers()).toEqual([])
    expect(git(root, 'log', '--format=%s')).toBe('initial')
  })

  it('runs no hooks unless the policy allows them', async () => {
    for (const d of ['evil', 'evilproc', 'a=b']) git(root, 'config', '--remove-section', `filter.${d}`)
    const out = await run('git_commit', { message: 'no hooks' })
    expect(out).toMatch(/^Committed [0-9a-f]{40} on main: no hooks/)
    expect(await hookRuns()).toEqual([])
    expect(await ranMarkers()).toEqual([])
  })

  it('runs hooks and filters when allowed, inside the sandbox with the clean environment', async () => {
    await writeFile(
      path.join(bin, 'hooks', 'pre-commit'),
      `#!/bin/sh\n{ env; touch /etc/concord-hook-${process.pid} 2>&1 || echo outside=refused; } > hook-report.txt\n`,
    )
    process.env.OPENAI_API_KEY = 'sk-hook-leak-check'
    try {
      expect(await run('git_commit', { message: 'with hooks' }, ctx({ gitHooks: true }))).toContain('with hooks')
    } finally {
      delete process.env.OPENAI_API_KEY
    }
    const report = await readFile(path.join(root, 'hook-report.txt'), 'utf8')
    expect(report).toContain('outside=refused')
    expect(report).toContain(`HOME=${path.join(scratchDir, 'home')}`)
    expect(report).not.toContain('sk-hook-leak-check')
    expect(await hookRuns()).toEqual(expect.arrayContaining(['hook-post-commit.ran', 'hook-commit-msg.ran']))
    expect(await ranMarkers()).toEqual([]) // everything ran, in the sandbox: nothing could write outside the workspace
    expect(existsSync(`/etc/concord-hook-${process.pid}`)).toBe(false)
  })

  /** A task's tree as Concord makes it: a clone of its own (alternates onto the user's objects) in the data folder. */
  async function taskTree(): Promise<{ tree: string; dataDir: string }> {
    for (const d of ['evil', 'evilproc', 'a=b']) git(root, 'config', '--remove-section', `filter.${d}`)
    const dataDir = path.join(base, `data-${Date.now()}`)
    const tree = path.join(dataDir, 'worktrees', 'w1', 'T-1')
    await mkdir(path.dirname(tree), { recursive: true })
    git(path.dirname(tree), 'clone', '-q', '--shared', root, tree)
    git(tree, 'checkout', '-q', '-b', 'concord/T-1')
    return { tree, dataDir }
  }
  const userRepo = () => ({
    main: git(root, 'rev-parse', 'main'),
    branches: git(root, 'branch', '--list'),
    log: git(root, 'log', '--format=%s', 'main'),
    status: git(root, '-c', 'core.hooksPath=/dev/null', 'status', '--porcelain'),
  })

  it("commits in a task's tree, a repository of its own: nothing of the user's repository is written", async () => {
    const { tree, dataDir } = await taskTree()
    const before = userRepo()
    await writeFile(path.join(tree, 'task.txt'), 'work\n')
    const out = await run('git_commit', { message: 'task work' }, { ...ctx({ dataDir }), workspaceRoot: tree })
    const sha = git(tree, 'rev-parse', 'concord/T-1')
    expect(out).toContain(`Committed ${sha} on concord/T-1`)
    expect(userRepo()).toEqual(before)
  })

  it("refuses to commit when the tree's .git points at the user's repository (tree_not_own_repository): main does not move", async () => {
    const { tree, dataDir } = await taskTree()
    const before = userRepo()
    // What a member's run_command can do in its own tree: make git of the tree the user's repository.
    await rm(path.join(tree, '.git'), { recursive: true, force: true })
    await writeFile(path.join(tree, '.git'), `gitdir: ${path.join(root, '.git')}\n`)
    await writeFile(path.join(tree, 'pwned.txt'), 'landed on main\n')
    const err = await run('git_commit', { message: 'escape' }, { ...ctx({ dataDir }), workspaceRoot: tree }).catch(
      (e: unknown) => e as any,
    )
    expect(err.code).toBe('tree_not_own_repository')
    expect(userRepo()).toEqual(before)
  })

  it("a ref folder of the tree linked to the user's refs cannot carry a commit there (the sandbox holds the write)", async () => {
    const { tree, dataDir } = await taskTree()
    const before = userRepo()
    git(tree, 'checkout', '-q', 'main')
    await rm(path.join(tree, '.git', 'refs', 'heads'), { recursive: true, force: true })
    await symlink(path.join(root, '.git', 'refs', 'heads'), path.join(tree, '.git', 'refs', 'heads'))
    await writeFile(path.join(tree, 'pwned.txt'), 'landed on main\n')
    await run('git_commit', { message: 'escape' }, { ...ctx({ dataDir }), workspaceRoot: tree }).catch(
      (e: unknown) => e,
    )
    expect(userRepo()).toEqual(before)
  })

  it("without a sandbox, a symlink in the tree's git folder is refused before anything is written (tree_not_own_repository)", async () => {
    const { tree, dataDir } = await taskTree()
    const before = userRepo()
    git(tree, 'checkout', '-q', 'main')
    await rm(path.join(tree, '.git', 'refs', 'heads'), { recursive: true, force: true })
    await symlink(path.join(root, '.git', 'refs', 'heads'), path.join(tree, '.git', 'refs', 'heads'))
    await writeFile(path.join(tree, 'pwned.txt'), 'landed on main\n')
    const [result] = await inWorker(
      [{ tool: 'git_commit', args: { message: 'escape' } }],
      { scratchDir, dataDir },
      { CONCORD_SANDBOX: 'off' },
      tree,
    )
    expect(result).toEqual({ error: 'tree_not_own_repository' })
    expect(userRepo()).toEqual(before)
  })
})

describe("Concord's own git calls (merges, snapshots, diffs)", () => {
  it("run not the repository's merge driver: the file stays conflicted for a person to resolve", async () => {
    const repo = path.join(base, 'merging')
    await rm(repo, { recursive: true, force: true })
    await mkdir(repo, { recursive: true })
    git(repo, 'init', '-q')
    git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/main')
    git(repo, 'config', 'user.name', 'Test User')
    git(repo, 'config', 'user.email', 'test@example.com')
    const commit = async (text: string) => {
      await writeFile(path.join(repo, 'm.txt'), text)
      git(repo, 'add', '-A')
      git(repo, 'commit', '-q', '-m', text.trim())
    }
    await commit('base\n')
    git(repo, 'branch', 'other')
    await commit('ours\n')
    git(repo, 'checkout', '-q', 'other')
    await commit('theirs\n')
    git(repo, 'checkout', '-q', 'main')
    // Now the repository hands m.txt to its own merge driver (which would report a clean merge).
    await writeFile(path.join(repo, '.gitattributes'), 'm.txt merge=evil\n')
    git(repo, 'config', 'merge.evil.driver', `${await program('merge-driver', 'exit 0')} %O %A %B`)
    git(repo, 'config', 'merge.evil.name', 'an evil merge')
    const merged = await runOwnGit(repo, ['merge', '--no-edit', 'other'], { allowFailure: true })
    expect(merged.code).not.toBe(0)
    expect(git(repo, 'status', '--porcelain')).toContain('UU m.txt')
    expect(await ranMarkers()).toEqual([])
  })
})
