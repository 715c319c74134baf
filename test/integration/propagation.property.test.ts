/**
 * Property test: random sequences of decision edits (normative, editorial, reverts), status changes,
 * reports, acknowledgements and acceptances, checked after every step against invariants that are
 * computed independently of the propagation code.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import type { Decision, Report, Task } from '../../shared/schemas'
import { makeCore } from '../fixtures/core'

const COMMITS = ['a'.repeat(40), 'b'.repeat(40)]
const CONTENTS = ['Use REST', 'Use GraphQL', 'Use gRPC']

type Op =
  | { op: 'edit'; d: number; content: number; editorial: boolean }
  | { op: 'status'; t: number; status: 'todo' | 'in_progress' | 'delivered' | 'cancelled'; commit: number }
  | { op: 'report'; t: number; kind: 'test' | 'review'; verdict: 'pass' | 'fail'; commit: number; claimMask: number }
  | { op: 'accept'; t: number }
  | { op: 'ack'; t: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('edit' as const), d: fc.nat(2), content: fc.nat(2), editorial: fc.boolean() }),
  fc.record({ op: fc.constant('status' as const), t: fc.nat(2), status: fc.constantFrom('todo' as const, 'in_progress' as const, 'delivered' as const, 'cancelled' as const), commit: fc.constantFrom(0, 0, 0, 1) }),
  fc.record({ op: fc.constant('report' as const), t: fc.nat(2), kind: fc.constantFrom('test' as const, 'review' as const), verdict: fc.constantFrom('pass' as const, 'pass' as const, 'fail' as const), commit: fc.constantFrom(0, 0, 0, 1), claimMask: fc.nat(7) }),
  fc.record({ op: fc.constant('accept' as const), t: fc.nat(2) }),
  fc.record({ op: fc.constant('ack' as const), t: fc.nat(2) }),
)

async function snapshot(core: Core, wsId: string) {
  const tasks = await core.invoke('tasks.list', { workspaceId: wsId })
  const decisions = await core.invoke('decisions.list', { workspaceId: wsId })
  return { tasks: new Map(tasks.map((t) => [t.id, t])), decisions: new Map(decisions.map((d) => [d.id, d])) }
}

/** Independent check of what acceptance requires. */
function evidenceHolds(task: Task, reports: Report[], decisions: Map<string, Decision>): boolean {
  return task.requiredReports.every((kind) => {
    const latest = reports.filter((r) => r.kind === kind).at(-1)
    if (!latest || latest.verdict !== 'pass' || latest.artifact.commit !== task.artifact?.commit) return false
    return task.links.every((l) => {
      const b = latest.basis.find((x) => x.decisionId === l.decisionId)
      return b !== undefined && b.state === 'current' && b.version <= decisions.get(l.decisionId)!.version
    }) && latest.claims.every((c) => c.state === 'valid')
  })
}

describe('propagation and acceptance invariants', () => {
  it('hold for random sequences of edits, reports, status changes and acceptances', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40 }), async (ops) => {
        const t = makeCore()
        try {
          const core = t.core
          const ws = await core.invoke('workspaces.open', { repoPath: t.repoDir })
          const members = [
            await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' }),
            await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' }),
          ]
          const decisions: Decision[] = []
          for (let i = 0; i < 3; i++) decisions.push(await core.invoke('decisions.create', { workspaceId: ws.id, title: `D${i}`, statement: CONTENTS[i] }))
          const tasks: Task[] = []
          for (let i = 0; i < 5; i++) {
            const deps = decisions.filter((_, j) => (i + j) % 3 !== 2) // each task depends on two decisions
            tasks.push(await core.invoke('tasks.create', { workspaceId: ws.id, title: `T${i}`, assigneeId: members[i % 2].id, decisionIds: deps.map((d) => d.id) }))
          }
          // Claims pin the decision content as submitted: claim id → [decision id, fingerprint at submission][]
          const claimPins = new Map<string, [string, string][]>()
          const applied = new Map(decisions.map((d) => [d.id, [d.statement]]))

          for (const op of ops) {
            const before = await snapshot(core, ws.id)
            try {
              if (op.op === 'edit') {
                const d = before.decisions.get(decisions[op.d].id)!
                const content = CONTENTS[op.content] + (op.editorial ? '.' : '')
                if (content === d.statement) continue
                const { decision, impact } = await core.invoke('decisions.update', { decisionId: d.id, expectedVersion: d.version, statement: content, editorial: op.editorial })
                applied.get(d.id)!.push(content)
                const after = await snapshot(core, ws.id)
                // Flagged set = live dependents whose link is not at the new content; nobody else changes.
                const expected = [...after.tasks.values()]
                  .filter((x) => x.status !== 'cancelled' && x.links.some((l) => l.decisionId === d.id && l.state === 'suspect'))
                  .map((x) => x.id)
                  .sort()
                if (decision.fingerprint === d.fingerprint) expect(impact.tasks).toEqual([])
                else expect(impact.tasks.map((x) => x.taskId).sort()).toEqual(expected)
                const touched = new Set(impact.tasks.map((x) => x.taskId))
                for (const [id, old] of before.tasks) {
                  if (!touched.has(id)) expect(after.tasks.get(id)!.status).toBe(old.status)
                  if (!touched.has(id)) expect(after.tasks.get(id)!.flag).toBe(old.flag)
                }
                for (const x of impact.tasks) {
                  const old = before.tasks.get(x.taskId)!
                  if (old.status === 'accepted') expect(after.tasks.get(x.taskId)!.status).toBe('delivered')
                }
              } else if (op.op === 'status') {
                await core.invoke('tasks.setStatus', { taskId: tasks[op.t].id, status: op.status, artifact: op.status === 'delivered' ? { commit: COMMITS[op.commit] } : undefined })
              } else if (op.op === 'report') {
                const task = before.tasks.get(tasks[op.t].id)!
                const claimDecisions = task.links.map((l) => l.decisionId).filter((_, i) => op.claimMask & (1 << i))
                const r = await core.invoke('reports.submit', {
                  taskId: task.id, authorId: members[1].id, kind: op.kind, verdict: op.verdict, artifact: { commit: COMMITS[op.commit] },
                  claims: [{ text: 'behaves', decisionIds: claimDecisions }, { text: 'general', decisionIds: [] }],
                })
                r.claims.forEach((c) => claimPins.set(c.id, c.decisionIds.map((id) => [id, before.decisions.get(id)!.fingerprint])))
              } else if (op.op === 'accept') {
                const task = before.tasks.get(tasks[op.t].id)!
                const reports = await core.invoke('reports.list', { taskId: task.id })
                const holds = task.status === 'delivered' && evidenceHolds(task, reports, before.decisions)
                const result = await core.invoke('tasks.accept', { taskId: task.id }).then(() => true, (e: { code: string }) => {
                  expect(['evidence_stale', 'evidence_missing', 'invalid_transition']).toContain(e.code)
                  return false
                })
                // Never accepted on a stale basis, a failing verdict or another artifact; accepted whenever it holds.
                if (task.status === 'delivered') expect(result).toBe(holds)
              } else {
                await core.invoke('tasks.acknowledge', { taskId: tasks[op.t].id })
              }
            } catch (err) {
              const code = (err as { code?: string }).code
              if (!['invalid_params', 'task_blocked', 'invalid_transition'].includes(code ?? '')) throw err
            }

            const now = await snapshot(core, ws.id)
            // An accepted task always rests on the current content of every decision it depends on.
            for (const task of now.tasks.values()) if (task.status === 'accepted') expect(task.links.every((l) => l.state === 'current')).toBe(true)
            // Every claim is stale exactly when a decision it exercises has left the content it was pinned to.
            for (const task of tasks) {
              for (const r of await core.invoke('reports.list', { taskId: task.id })) {
                for (const c of r.claims) {
                  const stale = claimPins.get(c.id)!.some(([d, fp]) => now.decisions.get(d)!.fingerprint !== fp)
                  expect(c.state).toBe(stale ? 'stale' : 'valid')
                }
              }
            }
          }
          // Revisions are never lost: one per version, in the order the edits were applied.
          for (const d of decisions) {
            const history = await core.invoke('decisions.history', { decisionId: d.id })
            expect(history.map((h) => h.version)).toEqual(history.map((_, i) => i + 1))
            expect(history.map((h) => h.statement)).toEqual(applied.get(d.id))
          }
        } finally {
          await t.cleanup()
        }
      }),
      { numRuns: 60 },
    )
  }, 120_000)
})
