/**
 * A task's tree is its own repository: nothing an agent does in it (an ACP agent's own writes, a built-in member's
 * run_command and git_commit, its own commits and config) reaches the user's repository except the task's own branch,
 * which Concord brings over itself with no program of the tree running. Real git, real bubblewrap, a real core.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import { type ModelServer } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { sessionWhere } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

fileNeedsSandbox()

let t: Team
let server: ModelServer
let ws: Workspace
let markers: string

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: dir, encoding: 'utf8' }).trim()
/** What the user has: main, every branch, the hooks and config of the repository. */
const userRepo = () => ({
  main: git(t.repoDir, 'rev-parse', 'main'),
  branches: git(t.repoDir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/main', 'refs/tags'),
  hooks: readdirSync(join(t.repoDir, '.git', 'hooks')).filter((f) => !f.endsWith('.sample')),
  config: git(t.repoDir, 'config', '--local', '--list'),
  status: git(t.repoDir, 'status', '--porcelain'),
})

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } }, isolation: 'worktree' })
  ;({ server, ws } = t)
  markers = join(t.repoDir, '..', 'markers')
  mkdirSync(markers)
})
afterEach(() => t.cleanup())

const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

const taskFor = (m: Member, title = 'Work'): Promise<Task> =>
  startedTask(t.core, { workspaceId: ws.id, title, assigneeId: m.id })

/** A member with no model: the test does its work in the tree. */
const ivy = (): Promise<Member> =>
  t.core.invoke('members.create', { workspaceId: ws.id, name: 'Ivy', role: 'implementer', approval: 'auto' })

/** An external (ACP) agent that is a script: it does what a hostile agent would at its start, then exits. */
function scriptAgent(name: string, script: string): Promise<Member> {
  return t.core.invoke('members.create', {
    workspaceId: ws.id,
    name,
    role: 'implementer',
    approval: 'auto',
    provider: { kind: 'acp', agent: 'custom', command: process.execPath, args: ['-e', script] },
  })
}

/** The member's turn on the task, until it ends (idle, or in error) with nothing queued. */
async function turnOn(m: Member, task: Task): Promise<void> {
  const done = sessionWhere(t.core, m.id, (s) => ['idle', 'error'].includes(s.state) && s.queued === 0, 30_000)
  await t.core.invoke('sessions.send', { memberId: m.id, text: 'go', taskId: task.id })
  await done
}

describe('an external agent in its task tree', () => {
  it("cannot write the user's .git (a hook the user's next checkout would run)", async () => {
    const hook = join(t.repoDir, '.git', 'hooks', 'post-checkout')
    const m = await scriptAgent(
      'Hook',
      `const fs = require('fs'); try { fs.writeFileSync(${JSON.stringify(hook)}, '#!/bin/sh\\necho pwned\\n', { mode: 0o755 }); fs.writeFileSync('escaped.txt', 'yes') } catch (e) { fs.writeFileSync('escaped.txt', 'no: ' + e.code) } process.exit(3)`,
    )
    const task = await taskFor(m)
    const before = userRepo()
    await turnOn(m, task)
    expect(existsSync(join(treeOf(task), 'escaped.txt'))).toBe(true) // the agent ran, in its tree
    expect(existsSync(hook)).toBe(false)
    expect(userRepo()).toEqual(before)
  })

  it("cannot widen its next sandbox by rewriting its tree's .git (gitdir/commondir)", async () => {
    // A folder the agent wants writable, made to look like a git folder whose common dir is itself.
    const victim = join(t.repoDir, '..', 'victim')
    mkdirSync(victim)
    writeFileSync(join(victim, 'commondir'), `${victim}\n`)
    const pwned = join(victim, 'pwned')
    const m = await scriptAgent(
      'Gitdir',
      `const fs = require('fs'); try { fs.writeFileSync(${JSON.stringify(pwned)}, 'x') } catch {} fs.rmSync('.git', { recursive: true, force: true }); fs.writeFileSync('.git', 'gitdir: ${victim}\\n'); process.exit(3)`,
    )
    const task = await taskFor(m)
    await turnOn(m, task) // rewrites .git
    await turnOn(m, task) // starts again: tries the folder its .git names
    expect(existsSync(pwned)).toBe(false)
  })
})

describe("a built-in member's commands and commits", () => {
  const builtIn = (name: string): Promise<Member> => t.member(name, { role: 'implementer', authority: 'proposer' })

  it("works with git in its tree inside the sandbox (the user's objects readable there, nothing of them writable)", async () => {
    const m = await builtIn('Max')
    const task = await taskFor(m)
    const before = userRepo()
    const objects = join(t.repoDir, '.git', 'objects')
    server.enqueue(
      {
        toolCalls: [
          {
            name: 'run_command',
            arguments: {
              command: `git log --format=%s -1 && echo x > feature.txt && (touch ${objects}/planted 2>/dev/null && echo planted || echo refused)`,
            },
          },
        ],
      },
      { toolCalls: [{ name: 'git_commit', arguments: { message: 'feature' } }] },
      { text: 'done' },
    )
    await turnOn(m, task)
    const tools = (await t.core.invoke('sessions.get', { memberId: m.id })).steps.filter((s) => s.kind === 'tool')
    expect(tools[0]?.text).toContain('initial')
    expect(tools[0]?.text).toContain('refused')
    expect(tools[1]?.text).toContain(`on ${task.branch}`)
    expect(existsSync(join(objects, 'planted'))).toBe(false)
    expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(git(treeOf(task), 'rev-parse', 'HEAD')) // brought over after the turn
    expect(userRepo()).toEqual(before)
  })

  it("git_commit after run_command points the tree's .git at the user's repository does not land on main", async () => {
    const m = await builtIn('Ivy')
    const task = await taskFor(m)
    const before = userRepo()
    const command = `rm -rf .git && printf 'gitdir: ${join(t.repoDir, '.git')}\\n' > .git && echo pwned > pwned.txt`
    server.enqueue(
      { toolCalls: [{ name: 'run_command', arguments: { command } }] },
      { toolCalls: [{ name: 'git_commit', arguments: { message: 'on main' } }] },
      { text: 'done' },
    )
    await turnOn(m, task)
    const steps = (await t.core.invoke('sessions.get', { memberId: m.id })).steps
    expect(steps.find((s) => s.kind === 'tool' && s.tool?.name === 'git_commit')?.text ?? '').toContain(
      'tree_not_own_repository',
    )
    expect(userRepo()).toEqual(before)
  })
})

describe("Concord brings the task's branch into the user's repository", () => {
  it("only the task's own branch, to its tree's head, with no program of the tree running", async () => {
    const m = await ivy()
    const task = await taskFor(m, 'Feature')
    const tree = treeOf(task)
    expect(existsSync(join(tree, '.git', 'HEAD'))).toBe(true) // a repository of its own, not a worktree's .git file
    const before = userRepo()
    // The agent commits by itself, moves the tree's own main, and plants programs in the tree's config and hooks.
    const plant = (name: string) => {
      const p = join(markers, '..', `bin-${name}`)
      writeFileSync(p, `#!/bin/sh\ntouch ${join(markers, name)}\ncat >/dev/null 2>&1\nexit 0\n`)
      chmodSync(p, 0o755)
      return p
    }
    for (const hook of ['reference-transaction', 'post-checkout', 'pre-push', 'post-merge', 'pre-auto-gc']) {
      writeFileSync(join(tree, '.git', 'hooks', hook), `#!/bin/sh\ntouch ${join(markers, `hook-${hook}`)}\n`, {
        mode: 0o755,
      })
    }
    git(tree, 'config', 'core.fsmonitor', plant('fsmonitor'))
    git(tree, 'config', 'core.hooksPath', join(tree, '.git', 'hooks'))
    git(tree, 'config', 'uploadpack.packObjectsHook', plant('pack-hook'))
    git(tree, 'config', 'core.alternateRefsCommand', plant('alt-refs'))
    git(tree, 'config', 'gpg.program', plant('gpg'))
    writeFileSync(join(tree, 'feature.txt'), 'feature\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=A', '-c', 'user.email=a@x', 'commit', '-qm', 'feature')
    const head = git(tree, 'rev-parse', 'HEAD')
    git(tree, 'branch', '-f', 'main', 'HEAD')
    git(tree, 'tag', 'v9', 'HEAD')
    for (const f of readdirSync(markers)) rmSync(join(markers, f)) // the agent's own git ran them, in its sandbox
    const delivered = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    expect(delivered.artifact?.commit).toBe(head)
    expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(head)
    expect(git(t.repoDir, 'cat-file', '-p', `${head}:feature.txt`)).toBe('feature')
    expect(userRepo()).toEqual(before) // main, tags, hooks and config of the user's repository are as they were
    const diff = await t.core.invoke('tasks.diff', { taskId: task.id })
    expect(diff.files.map((f) => f.path)).toEqual(['feature.txt'])
    expect(readdirSync(markers)).toEqual([])
  })

  it("three members reporting at once on the tree's new commit all land on the task's branch (one transfer at a time)", async () => {
    const m = await ivy()
    const task = await taskFor(m, 'Together')
    const tree = treeOf(task)
    const authors = await Promise.all(
      (['tester', 'reviewer', 'implementer'] as const).map((role, i) =>
        t.core.invoke('members.create', { workspaceId: ws.id, name: `R${i}`, role, approval: 'auto' }),
      ),
    )
    for (let round = 0; round < 3; round++) {
      writeFileSync(join(tree, `work-${round}.txt`), `${round}\n`)
      git(tree, 'add', '-A')
      git(tree, '-c', 'user.name=A', '-c', 'user.email=a@x', 'commit', '-qm', `round ${round}`)
      const head = git(tree, 'rev-parse', 'HEAD')
      const short = head.slice(0, 10)
      const reports = await Promise.all(
        authors.map((a) =>
          t.core.invoke('reports.submit', {
            taskId: task.id,
            authorId: a.id,
            kind: 'test',
            verdict: 'pass',
            artifact: { commit: short },
            claims: [],
          }),
        ),
      )
      expect(reports.map((r) => r.artifact?.commit)).toEqual([head, head, head])
      expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(head)
    }
    expect(readdirSync(join(tree, '..')).filter((f) => f.includes('.transfer') || f.includes('.quarantine'))).toEqual(
      [],
    )
  })

  it("a head that does not descend from the task's base is not brought over, and delivery says why", async () => {
    const m = await ivy()
    const task = await taskFor(m, 'Feature')
    const tree = treeOf(task)
    git(tree, 'checkout', '-q', '--orphan', 'elsewhere')
    writeFileSync(join(tree, 'other.txt'), 'other\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=A', '-c', 'user.email=a@x', 'commit', '-qm', 'unrelated')
    const err = await t.core
      .invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
      .catch((e: unknown) => e as { code: string; message: string })
    expect(err).toMatchObject({ code: 'invalid_artifact' })
    expect((err as { message: string }).message).toContain('does not descend from')
    expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(git(t.repoDir, 'rev-parse', 'main'))
  })

  it("an orphan commit named as the artifact is refused before any of its objects enter the user's repository", async () => {
    const m = await ivy()
    const task = await taskFor(m, 'Feature')
    const tree = treeOf(task)
    git(tree, 'checkout', '-q', '--orphan', 'elsewhere')
    writeFileSync(join(tree, 'other.txt'), 'other\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=A', '-c', 'user.email=a@x', 'commit', '-qm', 'unrelated')
    const orphan = git(tree, 'rev-parse', 'HEAD')
    const err = await t.core
      .invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: orphan } })
      .catch((e: unknown) => e as { code: string; message: string })
    expect(err).toMatchObject({ code: 'invalid_artifact' })
    expect((err as { message: string }).message).toContain('not on its branch')
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).status).toBe('in_progress')
    expect(() => git(t.repoDir, 'cat-file', '-e', `${orphan}^{commit}`)).toThrow()
    expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(git(t.repoDir, 'rev-parse', 'main'))
  })
  it("a commit git calls broken (a committer line with no email) is refused before it enters the user's repository", async () => {
    const m = await ivy()
    const task = await taskFor(m, 'Broken')
    const tree = treeOf(task)
    const before = userRepo()
    writeFileSync(join(tree, 'work.txt'), 'work\n')
    git(tree, 'add', '-A')
    const treeId = git(tree, 'write-tree')
    const parent = git(tree, 'rev-parse', 'HEAD')
    const raw = `tree ${treeId}\nparent ${parent}\nauthor A <a@x> 1700000000 +0000\ncommitter broken line\n\nmsg\n`
    const broken = execFileSync('git', ['hash-object', '-t', 'commit', '--literally', '-w', '--stdin'], {
      cwd: tree,
      input: raw,
      encoding: 'utf8',
    }).trim()
    git(tree, 'reset', '-q', broken)
    const err = await t.core
      .invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
      .catch((e: unknown) => e as { code: string; message: string })
    expect(err).toMatchObject({ code: 'invalid_objects' })
    expect((err as { message: string }).message).toContain('missing email')
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).status).toBe('in_progress')
    expect(() => git(t.repoDir, 'cat-file', '-e', `${broken}^{commit}`)).toThrow()
    expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(git(t.repoDir, 'rev-parse', 'main'))
    expect(userRepo()).toEqual(before)
    execFileSync('git', ['fsck', '--strict', '--no-dangling'], { cwd: t.repoDir, stdio: 'pipe' })
  })
  it("a tree's commits weighing more than treeTransferLimitMB are refused, naming the size and the setting", async () => {
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, treeTransferLimitMB: 10 })
    const m = await ivy()
    const task = await taskFor(m, 'Big')
    const tree = treeOf(task)
    const before = userRepo()
    writeFileSync(join(tree, 'big.bin'), randomBytes(40 * 1024 * 1024)) // random: git cannot compress it below 10 MB
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=A', '-c', 'user.email=a@x', 'commit', '-qm', 'big')
    const big = git(tree, 'rev-parse', 'HEAD')
    const err = await t.core
      .invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
      .catch((e: unknown) => e as { code: string; message: string; details: unknown })
    expect(err).toMatchObject({
      code: 'transfer_too_large',
      details: { limit: 10 * 1024 * 1024, setting: 'treeTransferLimitMB' },
    })
    expect((err as { message: string }).message).toMatch(/weigh 40\.\d MB, over the 10\.0 MB .*treeTransferLimitMB/)
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).status).toBe('in_progress')
    expect(() => git(t.repoDir, 'cat-file', '-e', `${big}^{commit}`)).toThrow()
    expect(userRepo()).toEqual(before)
    expect(readdirSync(join(tree, '..')).filter((f) => f.includes('.transfer') || f.includes('.quarantine'))).toEqual(
      [],
    )
  })
})

describe('trees made before trees were clones', () => {
  it('an old linked worktree is converted in place at its next use, its uncommitted files kept', async () => {
    const m = await ivy()
    const task = await taskFor(m, 'Old')
    const tree = treeOf(task)
    // Make it what Concord made before: a linked worktree of the user's repository on the task's branch.
    writeFileSync(join(tree, 'committed.txt'), 'c\n')
    git(tree, 'add', '-A')
    git(tree, '-c', 'user.name=A', '-c', 'user.email=a@x', 'commit', '-qm', 'old work')
    await t.core.invoke('tasks.diff', { taskId: task.id }) // brings the branch over, as a worktree shared it
    const head = git(tree, 'rev-parse', 'HEAD')
    expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(head)
    rmSync(tree, { recursive: true, force: true })
    git(t.repoDir, 'worktree', 'add', '-q', tree, task.branch!)
    writeFileSync(join(tree, 'uncommitted.txt'), 'u\n')
    expect(git(t.repoDir, 'worktree', 'list')).toContain(tree)
    const diff = await t.core.invoke('tasks.diff', { taskId: task.id })
    expect(diff.uncommitted).toEqual(['uncommitted.txt'])
    expect(existsSync(join(tree, '.git', 'HEAD'))).toBe(true)
    expect(git(tree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(task.branch)
    expect(git(tree, 'rev-parse', 'HEAD')).toBe(head)
    expect(git(t.repoDir, 'worktree', 'list')).not.toContain(tree)
  })

  it('a tree whose .git is gone (a crash mid-conversion, an rm -rf .git) gets a fresh one at its next use, its files kept', async () => {
    const m = await ivy()
    const task = await taskFor(m, 'Lost git')
    const tree = treeOf(task)
    rmSync(join(tree, '.git'), { recursive: true, force: true })
    writeFileSync(join(tree, 'kept.txt'), 'k\n')
    const diff = await t.core.invoke('tasks.diff', { taskId: task.id })
    expect(diff.uncommitted).toEqual(['kept.txt'])
    expect(git(tree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(task.branch)
  })
})
