/**
 * Undo a turn (issue 35): a turn in its task's tree records where the tree was before it; sessions.undoTurn puts the
 * tree back byte for byte (uncommitted edits from before the turn included), keeps what was there aside under a ref
 * in the tree, marks the turn undone, tells the member at its next turn, and takes the turn's commits out of the
 * evidence. Real git repository, real SQLite file, a member on the scripted model server.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Step, Task, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import type { ModelServer } from '../fixtures/model-server'
import { sessionState, takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } }, isolation: 'worktree' })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

/** Every file of the tree but .git: path → mode and bytes. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.name === '.git') continue
      if (e.isDirectory()) walk(p)
      else out[relative(dir, p)] = `${(lstatSync(p).mode & 0o777).toString(8)} ${readFileSync(p).toString('base64')}`
    }
  }
  walk(dir)
  return out
}

async function setup(): Promise<{ ivy: Member; task: Task; tree: string }> {
  const ivy = await t.member('Ivy', { role: 'implementer', authority: 'proposer' })
  const task = await startedTask(t.core, { workspaceId: ws.id, title: 'Timeout', assigneeId: ivy.id })
  const tree = treeOf(task)
  // Before the turn the tree already has work not committed: a changed file, a new one and an executable one.
  writeFileSync(join(tree, 'README.md'), '# demo\nwork in progress\n')
  writeFileSync(join(tree, 'draft.md'), 'first draft\n')
  writeFileSync(join(tree, 'run.sh'), '#!/bin/sh\necho hi\n')
  chmodSync(join(tree, 'run.sh'), 0o755)
  return { ivy, task, tree }
}

/** The turn's first step once it is over. */
async function turn(m: Member, text: string): Promise<Step> {
  const steps = await takeTurn(t.core, { memberId: m.id, text }, { timeoutMs: 15_000 })
  return steps.filter((s) => s.kind === 'user' && s.text === text).at(-1)!
}

/** A turn that commits a change, then leaves edits, a new file and a removed file uncommitted. */
function scriptWork(): void {
  server.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: 'app.ts', content: 'export const answer = 43\n' } }] },
    { toolCalls: [{ name: 'git_commit', arguments: { message: 'Answer 43' } }] },
    { toolCalls: [{ name: 'write_file', arguments: { path: 'draft.md', content: 'second draft\n' } }] },
    { toolCalls: [{ name: 'write_file', arguments: { path: 'src/new.ts', content: 'export {}\n' } }] },
    { toolCalls: [{ name: 'run_command', arguments: { command: 'rm run.sh' } }] },
    { text: 'Done.' },
  )
}

describe('undo a turn', () => {
  it('puts the tree back byte for byte, keeps what was there aside, and tells the member at its next turn', async () => {
    const { ivy, task, tree } = await setup()
    const before = files(tree)
    const head0 = git(tree, 'rev-parse', 'HEAD')
    const status0 = git(tree, 'status', '--porcelain')
    scriptWork()
    const start = await turn(ivy, 'Implement T-1')
    expect(start.checkpoint).toEqual({ commit: head0, undone: null })
    const head1 = git(tree, 'rev-parse', 'HEAD')
    expect(head1).not.toBe(head0)
    const after = files(tree)
    expect(after).not.toEqual(before)

    // A ref of the name it would take is there already (an undo that stopped half-way): it is left as it is.
    const ref = `refs/concord/undone/turn-${start.id.split('-s')[1]}`
    git(tree, 'update-ref', ref, head0)
    const undone = await t.core.invoke('sessions.undoTurn', { stepId: start.id })
    expect(undone).toMatchObject({ commit: head0, from: head1, exact: true, commitsUndone: [head1] })
    expect(undone.keptRef).toBe(`${ref}-2`)
    expect(git(tree, 'rev-parse', ref)).toBe(head0)
    expect(files(tree)).toEqual(before)
    expect(git(tree, 'rev-parse', 'HEAD')).toBe(head0)
    expect(git(tree, 'status', '--porcelain')).toBe(status0)
    // The task's branch in your repository went back too.
    expect(git(t.repoDir, 'rev-parse', `refs/heads/${task.branch}`)).toBe(head0)

    // What the tree held at the undo is kept aside under the ref, on the head it had: nothing is lost.
    expect(undone.keptRef).toMatch(/^refs\/concord\/undone\//)
    expect(git(tree, 'rev-parse', undone.keptRef)).toBe(undone.keptCommit)
    expect(git(tree, 'rev-parse', `${undone.keptRef}^`)).toBe(head1)
    expect(git(tree, 'show', `${undone.keptRef}:draft.md`)).toBe('second draft')
    expect(git(tree, 'show', `${undone.keptRef}:src/new.ts`)).toBe('export {}')
    expect(git(tree, 'ls-tree', '--name-only', undone.keptRef)).not.toContain('run.sh')
    // …and comes back with one git command.
    const copy = join(t.dataDir, 'kept')
    git(tree, 'worktree', 'add', '-q', '--detach', copy, undone.keptRef)
    const kept = files(copy)
    delete kept['.git']
    expect(kept).toEqual(after)

    // The session shows the turn undone.
    const page = await t.core.invoke('sessions.get', { memberId: ivy.id })
    expect(page.steps.find((s) => s.id === start.id)?.checkpoint?.undone).toMatchObject({
      commit: head0,
      keptRef: undone.keptRef,
    })

    // The member is told at its next turn (in the brief of its model calls), and only in that turn.
    server.enqueue({ text: 'Understood.' })
    await turn(ivy, 'Carry on')
    const told = JSON.stringify(server.requests.at(-1)!.body)
    expect(told).toContain('Turns the human undid')
    expect(told).toContain(head0.slice(0, 10))
    server.enqueue({ text: 'Still here.' })
    await turn(ivy, 'And now?')
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain('Turns the human undid')
  })

  it('what an undo kept aside outlives the tree: a cancelled task’s kept ref is in your repository', async () => {
    const { ivy, task, tree } = await setup()
    scriptWork()
    const start = await turn(ivy, 'Implement T-1')
    const after = files(tree)
    const undone = await t.core.invoke('sessions.undoTurn', { stepId: start.id })
    // Your repository does not have the kept commit while the tree holds it.
    expect(() => git(t.repoDir, 'cat-file', '-e', `${undone.keptCommit}^{commit}`)).toThrow()

    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'cancelled' })
    expect(() => lstatSync(tree)).toThrow()
    expect(git(t.repoDir, 'rev-parse', undone.keptRef)).toBe(undone.keptCommit)
    expect(git(t.repoDir, 'show', `${undone.keptRef}:draft.md`)).toBe('second draft')
    // …and comes back with one git command, in a checkout of your repository.
    const copy = join(t.dataDir, 'kept-after-cancel')
    git(t.repoDir, 'worktree', 'add', '-q', '--detach', copy, undone.keptRef)
    expect(files(copy)).toEqual(after)
  })

  it('a report on an undone commit stops counting: the delivery on it goes, none is offered, none is accepted', async () => {
    const { ivy, task, tree } = await setup()
    const head0 = git(tree, 'rev-parse', 'HEAD')
    scriptWork()
    const start = await turn(ivy, 'Implement T-1')
    const head1 = git(tree, 'rev-parse', 'HEAD')
    await t.core.invoke('reports.submit', {
      taskId: task.id,
      authorId: ivy.id,
      kind: 'implementation',
      verdict: 'pass',
      artifact: { commit: head1 },
      claims: [],
    })
    expect((await t.core.invoke('tasks.get', { taskId: task.id })).readiness?.deliverOn?.commit).toBe(head1)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: head1 } })

    const undone = await t.core.invoke('sessions.undoTurn', { stepId: start.id })
    expect(undone.task).toMatchObject({ status: 'in_progress', head: head0 })
    expect(undone.task.readiness?.deliverOn ?? null).toBeNull()
    await expect(
      t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: head1 } }),
    ).rejects.toMatchObject({ code: 'invalid_artifact' })
  })

  it('refuses: not a turn in a task tree, a later turn in force, undone already, the member busy', async () => {
    const { ivy, tree } = await setup()
    const before = files(tree)
    scriptWork()
    const first = await turn(ivy, 'Implement T-1')
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'later.md', content: 'later\n' } }] },
      { text: 'More.' },
    )
    const second = await turn(ivy, 'More on T-1')

    const answer = (await t.core.invoke('sessions.get', { memberId: ivy.id })).steps.find((s) => s.kind === 'model')!
    await expect(t.core.invoke('sessions.undoTurn', { stepId: answer.id })).rejects.toMatchObject({
      code: 'not_found',
    })
    await expect(t.core.invoke('sessions.undoTurn', { stepId: first.id })).rejects.toMatchObject({
      code: 'invalid_transition',
      details: { reason: 'later_turn', turnId: second.id },
    })
    await t.core.invoke('sessions.undoTurn', { stepId: second.id })
    await expect(t.core.invoke('sessions.undoTurn', { stepId: second.id })).rejects.toMatchObject({
      code: 'invalid_transition',
    })
    // Busy: a turn running (its model call held back) refuses, and the tree is not touched.
    server.enqueue({ text: 'slow', delayMs: 1500 })
    const running = sessionState(t.core, ivy.id, 'running')
    await t.core.invoke('sessions.send', { memberId: ivy.id, text: 'Think' })
    await running
    await expect(t.core.invoke('sessions.undoTurn', { stepId: first.id })).rejects.toMatchObject({ code: 'busy' })
    await sessionState(t.core, ivy.id, 'idle', { timeoutMs: 10_000 })
    // The latest first, then the one before: back where it all started.
    await t.core.invoke('sessions.undoTurn', { stepId: first.id })
    expect(files(tree)).toEqual(before)
  })
})
