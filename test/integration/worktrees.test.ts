/**
 * Repository workflow on real git repositories in temp folders: a branch and tree (a clone of its own) per started
 * task, turns in the right tree, commits resolved by git, diffs, and merges that land or change nothing.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import type { Member, Step, Task, Workspace } from '../../shared/schemas'
import { initRepo, rejectsWith } from '../fixtures/core'
import { startedTask } from '../fixtures/harness'
import { type ModelServer, type RecordedRequest } from '../fixtures/model-server'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace
let base: string

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const snapshot = (dir: string) => ({
  status: git(dir, 'status', '--porcelain'),
  head: git(dir, 'rev-parse', 'HEAD'),
  app: readFileSync(join(dir, 'app.ts'), 'utf8'),
  branches: git(dir, 'branch', '--list', 'main'),
})

beforeEach(async () => {
  t = await workspaceWithTeam({
    core: { provider: { maxRetries: 0 } },
    isolation: 'worktree',
    memberDefaults: () => ({ authority: 'proposer' }),
  })
  ;({ server, ws } = t)
  base = git(t.repoDir, 'rev-parse', 'HEAD')
})
afterEach(() => t.cleanup())

const member = (name: string, extra: Record<string, unknown> = {}): Promise<Member> => t.member(name, extra)

const started = (title: string, assignee: Member): Promise<Task> =>
  startedTask(t.core, { workspaceId: ws.id, title, assigneeId: assignee.id })

const turn = (m: Member, text: string, taskId?: string): Promise<Step[]> =>
  takeTurn(t.core, { memberId: m.id, text, taskId }, { timeoutMs: 15_000 })

const worktreeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)
const systemOf = (r: RecordedRequest) => String(r.body.messages[0].content)

describe('a worktree per task', () => {
  it('opening a git repository defaults to worktrees on the checked-out branch', async () => {
    expect(ws).toMatchObject({ settings: { isolation: 'worktree', baseBranch: 'main' }, notes: [] })
  })

  it('starting a task creates its branch and worktree from the base branch, outside the repository', async () => {
    const ivy = await member('Ivy')
    const task = await started('Add search timeout', ivy)
    expect(task).toMatchObject({ branch: 'concord/T-1-add-search-timeout', head: base })
    expect(git(worktreeOf(task), 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('concord/T-1-add-search-timeout')
    expect(worktreeOf(task).startsWith(t.dataDir)).toBe(true)
    // A branch name that is taken gets a fresh suffix; nothing is overwritten.
    git(t.repoDir, 'branch', 'concord/T-2-add-search-timeout')
    const second = await started('Add search timeout', ivy)
    expect(second.branch).toBe('concord/T-2-add-search-timeout-2')
    expect(git(t.repoDir, 'rev-parse', 'concord/T-2-add-search-timeout')).toBe(base)
  })

  it('two implementers edit the same file at the same time, each in its own worktree; your checkout is untouched', async () => {
    const before = snapshot(t.repoDir)
    const ivy = await member('Ivy')
    const max = await member('Max')
    const t1 = await started('One', ivy)
    const t2 = await started('Two', max)
    const who = (r: RecordedRequest) => (systemOf(r).startsWith('You are Ivy') ? 'ivy' : 'max')
    const reply = (r: RecordedRequest) =>
      r.body.messages.some((m: { role: string }) => m.role === 'tool')
        ? { text: 'edited' }
        : {
            toolCalls: [
              { name: 'write_file', arguments: { path: 'app.ts', content: `export const answer = '${who(r)}'\n` } },
            ],
          }
    server.enqueue(reply, reply, reply, reply)
    const [a, b] = await Promise.all([turn(ivy, 'edit app.ts'), turn(max, 'edit app.ts')])
    expect(a.at(-1)?.text).toBe('edited')
    expect(b.at(-1)?.text).toBe('edited')
    expect(readFileSync(join(worktreeOf(t1), 'app.ts'), 'utf8')).toBe("export const answer = 'ivy'\n")
    expect(readFileSync(join(worktreeOf(t2), 'app.ts'), 'utf8')).toBe("export const answer = 'max'\n")
    expect(snapshot(t.repoDir)).toEqual(before)
    // Each turn's last step says which files it changed, and the brief said which tree it was in.
    expect(a.at(-1)?.changes).toEqual([{ path: 'app.ts', status: 'modified' }])
    const turnDiff = await t.core.invoke('sessions.changes', { stepId: a.at(-1)!.id })
    expect(turnDiff.files).toEqual([{ path: 'app.ts', oldPath: null, status: 'modified', additions: 1, deletions: 1 }])
    expect(turnDiff.patch).toContain("+export const answer = 'ivy'")
    await rejectsWith(t.core.invoke('sessions.changes', { stepId: a[0]!.id }), 'not_found')
    expect(
      server.requests.some((r) => who(r) === 'ivy' && systemOf(r).includes("T-1's worktree, branch concord/T-1-one")),
    ).toBe(true)
  })

  it('a turn without a task reads the base branch and may not write', async () => {
    const ivy = await member('Ivy')
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] },
      { text: 'could not' },
    )
    const steps = await turn(ivy, 'write x')
    expect(steps.find((s) => s.kind === 'tool')).toMatchObject({
      status: 'error',
      text: expect.stringContaining('read_only'),
    })
    expect(existsSync(join(t.repoDir, 'x.txt'))).toBe(false)
    expect(systemOf(server.requests[0]!)).toContain('read-only checkout of the base branch main')
  })
})

describe('commits are resolved, never typed', () => {
  it('delivery records the worktree head, refuses uncommitted changes, resolves short SHAs and refuses unknown commits', async () => {
    const ivy = await member('Ivy')
    const task = await started('Feature', ivy)
    const dir = worktreeOf(task)
    writeFileSync(join(dir, 'feature.ts'), 'export const f = 1\n')
    const dirty = await rejectsWith(
      t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' }),
      'uncommitted_changes',
    )
    expect(dirty.message).toContain('feature.ts')
    expect(dirty.details).toEqual({ files: ['feature.ts'] })
    git(dir, 'add', '-A')
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'feature')
    const head = git(dir, 'rev-parse', 'HEAD')
    const delivered = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    expect(delivered).toMatchObject({ status: 'delivered', artifact: { commit: head }, head })

    const bad = await rejectsWith(
      t.core.invoke('reports.submit', {
        taskId: task.id,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: 'deadbeef' },
        claims: [],
      }),
      'invalid_artifact',
    )
    expect(bad.message).toContain('deadbeef')
    const short = await t.core.invoke('reports.submit', {
      taskId: task.id,
      kind: 'test',
      verdict: 'pass',
      artifact: { commit: head.slice(0, 7) },
      claims: [],
    })
    expect(short.artifact.commit).toBe(head)
    const byBranch = await t.core.invoke('reports.submit', {
      taskId: task.id,
      kind: 'review',
      verdict: 'pass',
      artifact: { commit: task.branch! },
      claims: [],
    })
    expect(byBranch.artifact.commit).toBe(head)
  })

  it('a tester verifying a delivered task reads the delivered content, not the base, and cannot change it', async () => {
    const ivy = await member('Ivy')
    const tess = await member('Tess')
    const task = await started('Feature', ivy)
    const dir = worktreeOf(task)
    writeFileSync(join(dir, 'app.ts'), 'export const answer = 43\n')
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qam', 'bump')
    const delivered = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    server.enqueue(
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'app.ts' } },
          { name: 'write_file', arguments: { path: 'app.ts', content: 'tampered' } },
        ],
      },
      {
        toolCalls: [
          {
            name: 'submit_report',
            arguments: { taskId: 'T-1', kind: 'test', verdict: 'pass', summary: 'ok', claims: [] },
          },
        ],
      },
    )
    const steps = await turn(tess, 'verify T-1', task.id)
    const tools = steps.filter((s) => s.kind === 'tool')
    expect(tools[0]!.text).toContain('export const answer = 43')
    expect(tools[1]).toMatchObject({ status: 'error', text: expect.stringContaining('read_only') })
    expect(readFileSync(join(dir, 'app.ts'), 'utf8')).toBe('export const answer = 43\n')
    const [report] = await t.core.invoke('reports.list', { taskId: task.id })
    expect(report!.artifact.commit).toBe(delivered.artifact!.commit)
    expect(systemOf(server.requests[0]!)).toContain(
      `read-only checkout of the delivered commit ${delivered.artifact!.commit!.slice(0, 10)} of T-1`,
    )
  })
})

describe('diff and merge', () => {
  async function acceptedTask(title: string, file: string, content: string, assignee: Member): Promise<Task> {
    const task = await t.core.invoke('tasks.create', {
      workspaceId: ws.id,
      title,
      assigneeId: assignee.id,
      requiredReports: [],
    })
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const dir = worktreeOf(task)
    writeFileSync(join(dir, file), content)
    git(dir, 'add', '-A')
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', title)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    return t.core.invoke('tasks.accept', { taskId: task.id })
  }

  it('diff lists the files with their counts and the patch', async () => {
    const ivy = await member('Ivy')
    const task = await started('Diff', ivy)
    const dir = worktreeOf(task)
    writeFileSync(join(dir, 'app.ts'), 'export const answer = 43\nexport const more = 1\n')
    writeFileSync(join(dir, 'new.ts'), 'a\nb\nc\n')
    git(dir, 'rm', '-q', 'README.md')
    git(dir, 'add', '-A')
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'change')
    writeFileSync(join(dir, 'wip.ts'), 'not committed\n')
    const diff = await t.core.invoke('tasks.diff', { taskId: task.id })
    expect(diff.base).toBe(base)
    expect(diff.head).toBe(git(dir, 'rev-parse', 'HEAD'))
    expect(diff.files).toEqual([
      { path: 'README.md', oldPath: null, status: 'deleted', additions: 0, deletions: 1 },
      { path: 'app.ts', oldPath: null, status: 'modified', additions: 2, deletions: 1 },
      { path: 'new.ts', oldPath: null, status: 'added', additions: 3, deletions: 0 },
    ])
    expect(diff.patch).toContain('+export const more = 1')
    expect(diff.truncated).toBe(false)
    expect(diff.uncommitted).toEqual(['wip.ts'])
  })

  it('merges an accepted task into the base branch; a conflicting second one changes nothing', async () => {
    const ivy = await member('Ivy')
    const first = await acceptedTask('First', 'app.ts', 'export const answer = 1\n', ivy)
    const second = await acceptedTask('Second', 'app.ts', 'export const answer = 2\n', ivy)
    await rejectsWith(t.core.invoke('tasks.merge', { taskId: first.id, actorId: ivy.id }), 'forbidden')
    const merged = await t.core.invoke('tasks.merge', { taskId: first.id })
    expect(merged.merged?.commit).toBe(git(t.repoDir, 'rev-parse', 'HEAD'))
    expect(readFileSync(join(t.repoDir, 'app.ts'), 'utf8')).toBe('export const answer = 1\n')
    expect(git(t.repoDir, 'log', '-1', '--format=%s')).toBe('Merge T-1: First (concord/T-1-first)')
    expect(existsSync(worktreeOf(first))).toBe(false)
    expect(git(t.repoDir, 'branch', '--list', first.branch!)).toContain(first.branch!)

    const before = snapshot(t.repoDir)
    const conflict = await rejectsWith(t.core.invoke('tasks.merge', { taskId: second.id }), 'merge_conflict')
    expect(conflict.details).toEqual({ paths: ['app.ts'] })
    expect(snapshot(t.repoDir)).toEqual(before)
    expect(existsSync(join(t.repoDir, '.git', 'MERGE_HEAD'))).toBe(false)
    await rejectsWith(t.core.invoke('tasks.merge', { taskId: first.id }), 'invalid_transition')
  })

  it('refuses to merge into a dirty checkout or another branch, and merges a clean fast-forward with ff-only', async () => {
    const ivy = await member('Ivy')
    const task = await acceptedTask('Ff', 'ff.ts', 'ff\n', ivy)
    writeFileSync(join(t.repoDir, 'app.ts'), 'my own work in progress\n')
    const dirty = await rejectsWith(
      t.core.invoke('tasks.merge', { taskId: task.id, strategy: 'ff-only' }),
      'merge_blocked',
    )
    expect(dirty.message).toContain('app.ts')
    git(t.repoDir, 'checkout', '-q', '--', 'app.ts')
    git(t.repoDir, 'checkout', '-q', '-b', 'elsewhere')
    await rejectsWith(t.core.invoke('tasks.merge', { taskId: task.id }), 'merge_blocked')
    git(t.repoDir, 'checkout', '-q', 'main')
    const merged = await t.core.invoke('tasks.merge', { taskId: task.id, strategy: 'ff-only' })
    expect(merged.merged?.commit).toBe(task.artifact!.commit)
    expect(readFileSync(join(t.repoDir, 'ff.ts'), 'utf8')).toBe('ff\n')
  })
})

describe("a tester's read-only checkout", () => {
  it('is moved in place when the task is delivered again: same folder, a process inside keeps its working directory', async () => {
    const ivy = await member('Ivy')
    const tess = await member('Tess')
    const task = await started('Feature', ivy)
    const dir = worktreeOf(task)
    const deliver = async (answer: number) => {
      writeFileSync(join(dir, 'app.ts'), `export const answer = ${answer}\n`)
      git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qam', `answer ${answer}`)
      return t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
    }
    await deliver(43)
    server.enqueue({ text: 'looked' })
    await turn(tess, 'verify T-1', task.id)
    const checkout = join(t.dataDir, 'worktrees', ws.id, `m${tess.id.split('-m').at(-1)}-readonly`)
    expect(readFileSync(join(checkout, 'app.ts'), 'utf8')).toBe('export const answer = 43\n')
    expect(existsSync(join(checkout, '.git', 'HEAD'))).toBe(true) // a repository of its own, like a task's tree
    const folder = statSync(checkout).ino
    // What an agent that has the checkout mounted holds on to: a process whose working directory is in it.
    const holder = spawn('sleep', ['60'], { cwd: checkout, stdio: 'ignore' })
    try {
      await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
      const again = await deliver(44)
      server.enqueue({ text: 'looked again' })
      await turn(tess, 'verify T-1 again', task.id)
      expect(readFileSync(join(checkout, 'app.ts'), 'utf8')).toBe('export const answer = 44\n')
      expect(git(checkout, 'rev-parse', 'HEAD')).toBe(again.artifact!.commit)
      expect(statSync(checkout).ino).toBe(folder)
      expect(readlinkSync(`/proc/${holder.pid}/cwd`)).toBe(checkout)
    } finally {
      holder.kill('SIGKILL')
    }
  })
})

describe('lifecycle and bad input', () => {
  it('a restart keeps worktrees and their tasks connected', async () => {
    const ivy = await member('Ivy')
    const task = await started('Persist', ivy)
    await t.core.close()
    t.core = createCore({ dataDir: t.dataDir, provider: { maxRetries: 0 } })
    expect(await t.core.invoke('tasks.get', { taskId: task.id })).toMatchObject({ branch: task.branch, head: base })
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'after.txt', content: 'after restart' } }] },
      { text: 'ok' },
    )
    await turn(ivy, 'write after.txt')
    expect(readFileSync(join(worktreeOf(task), 'after.txt'), 'utf8')).toBe('after restart')
  })

  it('cancelling a task removes its worktree and keeps its branch; starting it again restores the worktree', async () => {
    const ivy = await member('Ivy')
    const task = await started('Cancel me', ivy)
    writeFileSync(join(worktreeOf(task), 'kept.ts'), 'kept\n')
    git(worktreeOf(task), 'add', '-A')
    git(worktreeOf(task), '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'kept')
    const cancelled = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'cancelled' })
    expect(existsSync(worktreeOf(task))).toBe(false)
    expect(git(t.repoDir, 'rev-parse', task.branch!)).toBe(cancelled.head)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'todo' })
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    expect(readFileSync(join(worktreeOf(task), 'kept.ts'), 'utf8')).toBe('kept\n')
  })

  it('a repository with a submodule still gets task worktrees, and opening it says what that means', async () => {
    const sub = join(t.repoDir, '..', 'sub')
    mkdirSync(sub)
    initRepo(sub)
    const withSub = join(t.repoDir, '..', 'with-sub')
    mkdirSync(withSub)
    initRepo(withSub)
    git(withSub, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/sub')
    git(withSub, 'commit', '-qm', 'add submodule')
    const opened = await t.core.invoke('workspaces.open', { repoPath: withSub })
    expect(opened.settings.isolation).toBe('worktree')
    expect(opened.notes.join(' ')).toContain('Submodules')
    const task = await t.core.invoke('tasks.create', { workspaceId: opened.id, title: 'Sub' })
    const startedTask = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    const dir = join(t.dataDir, 'worktrees', opened.id, startedTask.key)
    expect(readFileSync(join(dir, 'app.ts'), 'utf8')).toContain('42')
    expect(existsSync(join(dir, 'vendor', 'sub'))).toBe(true)
  })

  it('a workspace saved before worktrees existed stays shared when reopened, until it is switched', async () => {
    const store = t.core.harness.ctx(ws.id).store
    store.settings.set({})
    expect((await t.core.invoke('workspaces.open', { repoPath: t.repoDir })).settings.isolation).toBe('shared')
    expect((await t.core.invoke('workspaces.update', { workspaceId: ws.id, isolation: 'worktree' })).baseBranch).toBe(
      'main',
    )
    expect((await t.core.invoke('workspaces.open', { repoPath: t.repoDir })).settings.isolation).toBe('worktree')
  })

  it('a plain folder must be shared; a bare repository and a detached HEAD without a base branch are refused', async () => {
    const plain = join(t.repoDir, '..', 'plain')
    mkdirSync(plain)
    await rejectsWith(t.core.invoke('workspaces.open', { repoPath: plain, isolation: 'worktree' }), 'invalid_params')
    const opened = await t.core.invoke('workspaces.open', { repoPath: plain })
    expect(opened.settings.isolation).toBe('shared')
    expect(opened.notes[0]).toContain('Not a git repository')

    const bare = join(t.repoDir, '..', 'bare.git')
    execFileSync('git', ['init', '-q', '--bare', bare])
    await rejectsWith(t.core.invoke('workspaces.open', { repoPath: bare }), 'invalid_params')

    const detached = join(t.repoDir, '..', 'detached')
    mkdirSync(detached)
    const sha = initRepo(detached)
    git(detached, 'checkout', '-q', '--detach', sha)
    const refused = await rejectsWith(t.core.invoke('workspaces.open', { repoPath: detached }), 'invalid_params')
    expect(refused.message).toContain('detached')
    expect(
      (await t.core.invoke('workspaces.open', { repoPath: detached, baseBranch: 'main' })).settings.baseBranch,
    ).toBe('main')
  })
})
