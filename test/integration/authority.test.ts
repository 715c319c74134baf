/**
 * The authority table (README "Who may write what"), tested as a table: every mutating method × every kind of
 * actor. Each cell runs on fresh rows, so one allowed write cannot change what the next cell sees.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

type ActorKind = 'human' | 'observer' | 'proposer' | 'decider' | 'assignee' | 'foreign' | 'unknown'
const actorKinds: ActorKind[] = ['human', 'observer', 'proposer', 'decider', 'assignee', 'foreign', 'unknown']
/** 'ok': the write happened; 'proposal': recorded as a proposal; otherwise the error code expected. */
type Outcome = 'ok' | 'proposal' | 'forbidden' | 'not_found'

let t: OpenWorkspace
let ws: Workspace
let other: Workspace
const actors = {} as Record<Exclude<ActorKind, 'human' | 'unknown'>, Member>
let decisionId: string

beforeAll(async () => {
  t = await openWorkspace()
  ws = t.ws
  const otherRepo = join(t.repoDir, '..', 'other-repo')
  mkdirSync(otherRepo)
  other = await t.core.invoke('workspaces.open', { repoPath: otherRepo })
  const make = (workspaceId: string, name: string, authority: Member['authority']) =>
    t.core.invoke('members.create', { workspaceId, name, role: name.toLowerCase(), authority })
  actors.observer = await make(ws.id, 'Olive', 'observer')
  actors.proposer = await make(ws.id, 'Pat', 'proposer')
  actors.decider = await make(ws.id, 'Dee', 'decider')
  // The assignee is a proposer: its rights over the task come from being assigned, not from its authority.
  actors.assignee = await make(ws.id, 'Ash', 'proposer')
  // A decider, but of another workspace: from inside this one it does not exist.
  actors.foreign = await make(other.id, 'Fox', 'decider')
  decisionId = (
    await t.core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Timeout',
      statement: 'Search times out after 30 s',
    })
  ).id
})
afterAll(() => t.cleanup())

function actorId(kind: ActorKind): string | undefined {
  if (kind === 'human') return undefined
  if (kind === 'unknown') return `${ws.id}-m999`
  return actors[kind].id
}

async function freshTask(status: Task['status'] = 'todo'): Promise<Task> {
  let task = await t.core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Search',
    assigneeId: actors.assignee.id,
    decisionIds: [decisionId],
    requiredReports: [],
  })
  if (status === 'todo') return task
  task = await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  if (status === 'in_progress') return task
  task = await t.core.invoke('tasks.setStatus', {
    taskId: task.id,
    status: 'delivered',
    artifact: { commit: 'a'.repeat(40) },
  })
  if (status === 'delivered') return task
  return t.core.invoke('tasks.accept', { taskId: task.id })
}

async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    const value = await run()
    return value === 'proposal' ? 'proposal' : 'ok'
  } catch (err) {
    return (err as { code?: string }).code ?? String(err)
  }
}

interface Row {
  method: string
  run(actor: string | undefined): Promise<unknown>
  expect: Record<ActorKind, Outcome>
}

const assigneeOrDecider: Record<ActorKind, Outcome> = {
  human: 'ok',
  observer: 'forbidden',
  proposer: 'forbidden',
  decider: 'ok',
  assignee: 'ok',
  foreign: 'not_found',
  unknown: 'not_found',
}
const decidersOnly: Record<ActorKind, Outcome> = {
  human: 'ok',
  observer: 'forbidden',
  proposer: 'forbidden',
  decider: 'ok',
  assignee: 'forbidden',
  foreign: 'not_found',
  unknown: 'not_found',
}
const allButObservers: Record<ActorKind, Outcome> = {
  human: 'ok',
  observer: 'forbidden',
  proposer: 'ok',
  decider: 'ok',
  assignee: 'ok',
  foreign: 'not_found',
  unknown: 'not_found',
}
const anyMember: Record<ActorKind, Outcome> = {
  human: 'ok',
  observer: 'ok',
  proposer: 'ok',
  decider: 'ok',
  assignee: 'ok',
  foreign: 'not_found',
  unknown: 'not_found',
}

const rows: Row[] = [
  {
    method: 'tasks.create',
    expect: anyMember,
    run: (actorId) => t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'New', actorId }),
  },
  {
    method: 'tasks.setStatus (start)',
    expect: assigneeOrDecider,
    run: async (actorId) =>
      t.core.invoke('tasks.setStatus', { taskId: (await freshTask()).id, status: 'in_progress', actorId }),
  },
  {
    method: 'tasks.setStatus (deliver)',
    expect: assigneeOrDecider,
    run: async (actorId) =>
      t.core.invoke('tasks.setStatus', {
        taskId: (await freshTask('in_progress')).id,
        status: 'delivered',
        artifact: { commit: 'b'.repeat(40) },
        actorId,
      }),
  },
  {
    method: 'tasks.setStatus (cancel)',
    expect: assigneeOrDecider,
    run: async (actorId) =>
      t.core.invoke('tasks.setStatus', { taskId: (await freshTask('in_progress')).id, status: 'cancelled', actorId }),
  },
  {
    method: 'tasks.setStatus (reopen accepted)',
    expect: decidersOnly,
    run: async (actorId) =>
      t.core.invoke('tasks.setStatus', { taskId: (await freshTask('accepted')).id, status: 'in_progress', actorId }),
  },
  {
    method: 'tasks.update',
    expect: assigneeOrDecider,
    run: async (actorId) =>
      t.core.invoke('tasks.update', { taskId: (await freshTask()).id, title: 'Renamed', actorId }),
  },
  {
    method: 'tasks.acknowledge',
    expect: assigneeOrDecider,
    run: async (actorId) =>
      t.core.invoke('tasks.acknowledge', { taskId: (await freshTask('in_progress')).id, actorId }),
  },
  {
    method: 'tasks.accept',
    expect: decidersOnly,
    run: async (actorId) => t.core.invoke('tasks.accept', { taskId: (await freshTask('delivered')).id, actorId }),
  },
  {
    method: 'reports.submit',
    expect: anyMember,
    run: async (authorId) =>
      t.core.invoke('reports.submit', {
        taskId: (await freshTask('delivered')).id,
        authorId,
        kind: 'test',
        verdict: 'pass',
        artifact: { commit: 'a'.repeat(40) },
        claims: [],
      }),
  },
  {
    method: 'decisions.create',
    expect: allButObservers,
    run: (actorId) =>
      t.core.invoke('decisions.create', {
        workspaceId: ws.id,
        title: 'Cache',
        statement: 'Cache results for 5 min',
        actorId,
      }),
  },
  {
    method: 'decisions.update',
    expect: {
      human: 'ok',
      observer: 'forbidden',
      proposer: 'proposal',
      decider: 'ok',
      assignee: 'proposal',
      foreign: 'not_found',
      unknown: 'not_found',
    },
    run: async (actorId) => {
      const d = await t.core.invoke('decisions.create', {
        workspaceId: ws.id,
        title: 'Limit',
        statement: 'At most 10 results',
      })
      const r = await t.core.invoke('decisions.update', {
        decisionId: d.id,
        expectedVersion: 1,
        statement: 'At most 20 results',
        actorId,
      })
      // A proposer's edit is recorded as a proposal and leaves the decision where it was.
      return r.proposal && r.decision.version === 1 ? 'proposal' : r
    },
  },
  {
    method: 'proposals.create',
    expect: allButObservers,
    run: (actorId) =>
      t.core.invoke('proposals.create', { decisionId, statement: 'Search times out after 60 s', actorId }),
  },
  {
    method: 'proposals.accept',
    expect: decidersOnly,
    run: async (actorId) => {
      const d = await t.core.invoke('decisions.create', {
        workspaceId: ws.id,
        title: 'Page size',
        statement: '50 per page',
      })
      const p = await t.core.invoke('proposals.create', { decisionId: d.id, statement: '100 per page' })
      return t.core.invoke('proposals.accept', { proposalId: p.id, actorId })
    },
  },
  {
    method: 'proposals.reject',
    expect: decidersOnly,
    run: async (actorId) => {
      const p = await t.core.invoke('proposals.create', { decisionId, statement: 'Search times out after 90 s' })
      return t.core.invoke('proposals.reject', { proposalId: p.id, actorId })
    },
  },
]

describe('authority table: method × actor', () => {
  for (const row of rows) {
    it(row.method, async () => {
      const got: Record<string, string> = {}
      for (const kind of actorKinds) got[kind] = await outcome(() => row.run(actorId(kind)))
      expect(got).toEqual(row.expect)
    })
  }

  it('an id of another workspace is not found, whichever side it is on', async () => {
    const task = await freshTask()
    const foreignTask = await t.core.invoke('tasks.create', { workspaceId: other.id, title: 'Theirs' })
    // The task of this workspace with a member of the other one, and the other way round.
    expect(await outcome(() => t.core.invoke('tasks.update', { taskId: task.id, assigneeId: actors.foreign.id }))).toBe(
      'not_found',
    )
    expect(
      await outcome(() =>
        t.core.invoke('tasks.setStatus', { taskId: foreignTask.id, status: 'cancelled', actorId: actors.decider.id }),
      ),
    ).toBe('not_found')
    expect(
      await outcome(() =>
        t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'x', decisionIds: [`${other.id}-d1`] }),
      ),
    ).toBe('not_found')
    expect((await t.core.invoke('tasks.get', { taskId: foreignTask.id })).status).toBe('todo')
  })

  it('a refused write changes nothing', async () => {
    const task = await freshTask('in_progress')
    const before = await t.core.invoke('tasks.get', { taskId: task.id })
    expect(
      await outcome(() =>
        t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'cancelled', actorId: actors.observer.id }),
      ),
    ).toBe('forbidden')
    expect(await t.core.invoke('tasks.get', { taskId: task.id })).toEqual(before)
  })
})
