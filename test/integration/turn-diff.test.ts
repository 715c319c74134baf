/**
 * A turn's diff (sessions.changes) is between two snapshots of its tree, and is named by the commits the tree was at
 * before and after, with the commits the turn made and whether changes were left uncommitted: never by tree hashes.
 */
import { execFileSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Step, Task, Workspace } from '../../shared/schemas'
import { startedTask } from '../fixtures/harness'
import { type ModelServer } from '../fixtures/model-server'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace
let base: string
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } }, isolation: 'worktree' })
  ;({ server, ws } = t)
  base = git(t.repoDir, 'rev-parse', 'HEAD')
})
afterEach(() => t.cleanup())

async function setup(): Promise<{ ivy: Member; task: Task }> {
  const ivy = await t.member('Ivy', { role: 'implementer', authority: 'proposer' })
  const task = await startedTask(t.core, { workspaceId: ws.id, title: 'Timeout', assigneeId: ivy.id })
  return { ivy, task }
}

/** The turn's step that records its changes. */
async function turn(m: Member, text: string): Promise<Step> {
  const steps = await takeTurn(t.core, { memberId: m.id, text }, { timeoutMs: 15_000 })
  return steps.filter((s) => s.changes).at(-1)!
}

describe('a turn diff names commits', () => {
  it('a turn that commits: from the base commit to its own, with its commit listed', async () => {
    const { ivy, task } = await setup()
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'app.ts', content: 'export const answer = 43\n' } }] },
      { toolCalls: [{ name: 'git_commit', arguments: { message: 'Answer 43' } }] },
      { text: 'Committed.' },
    )
    const step = await turn(ivy, 'Implement T-1')
    const diff = await t.core.invoke('sessions.changes', { stepId: step.id })
    const head = (await t.core.invoke('tasks.get', { taskId: task.id })).head!
    expect(head).not.toBe(base)
    expect(diff.turn).toEqual({
      fromCommit: base,
      toCommit: head,
      uncommittedBefore: false,
      uncommittedAfter: false,
      commits: [{ sha: head, subject: 'Answer 43' }],
    })
    // base and head stay the trees compared (not commits): the turn's words are in `turn`.
    expect(diff.base).toBe(git(t.repoDir, 'rev-parse', `${base}^{tree}`))
  })

  it('a turn that leaves its change uncommitted: on the base commit, not committed', async () => {
    const { ivy } = await setup()
    server.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'draft\n' } }] },
      { text: 'Wrote notes.' },
    )
    const step = await turn(ivy, 'Write notes for T-1')
    const diff = await t.core.invoke('sessions.changes', { stepId: step.id })
    expect(diff.files.map((f) => f.path)).toEqual(['notes.md'])
    expect(diff.turn).toEqual({
      fromCommit: base,
      toCommit: base,
      uncommittedBefore: false,
      uncommittedAfter: true,
      commits: [],
    })
  })
})
