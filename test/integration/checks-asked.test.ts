/**
 * Evidence is asked for (issue 33): a delivery asks the tester and reviewer for the checks the task requires and
 * lacks (autoChecks, on by default), with the very message the card's Ask sends; off, nobody is asked.
 */
import { execFileSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Step, Workspace } from '../../shared/schemas'
import { deliverTask, searchTask } from '../fixtures/harness'
import { memberScripts, type MemberScripts } from '../fixtures/member-scripts'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ws: Workspace
let head: string
let replies: MemberScripts

beforeEach(async () => {
  replies = memberScripts((name) => ({ text: `${name} has nothing scripted` }))
  t = await workspaceWithTeam({
    core: { provider: { maxRetries: 0 } },
    server: { unscripted: replies.unscripted },
    memberDefaults: () => ({ authority: 'proposer' }),
  })
  ws = t.ws
  head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
})
afterEach(() => t.cleanup())

const steps = async (m: Member): Promise<Step[]> => (await t.core.invoke('sessions.get', { memberId: m.id })).steps
const byConcord = (s: Step[]) => s.filter((x) => x.origin === 'concord')

async function team() {
  const impl = await t.member('Impl', { role: 'implementer' })
  const tess = await t.member('Tess', { role: 'tester' })
  const rev = await t.member('Rev', { role: 'reviewer' })
  const { task } = await searchTask(t.core, ws.id, impl, { requiredReports: ['test', 'review'] })
  return { impl, tess, rev, task }
}

describe('checks asked on delivery', () => {
  it('is on by default and asks the tester and reviewer once each, with the message the card offers', async () => {
    expect((await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).autoChecks).toBe(true)
    const { tess, rev, task } = await team()
    const tessRan = sessionState(t.core, tess.id, 'idle', { timeoutMs: 15_000 })
    const revRan = sessionState(t.core, rev.id, 'idle', { timeoutMs: 15_000 })
    const delivered = await deliverTask(t.core, task, head)
    // The card's actions for the missing reports: the texts the automatic asks must carry, word for word.
    const actions = new Map(delivered.readiness.reasons.map((r) => [r.reportKind, r.action!]))
    expect(actions.get('test')).toMatchObject({ memberId: tess.id, memberName: 'Tess' })
    expect(actions.get('review')).toMatchObject({ memberId: rev.id, memberName: 'Rev' })
    await Promise.all([tessRan, revRan])

    for (const [m, kind] of [
      [tess, 'test'],
      [rev, 'review'],
    ] as const) {
      const auto = byConcord(await steps(m))
      expect(auto).toHaveLength(1)
      expect(auto[0]).toMatchObject({ kind: 'message', taskId: task.id, text: actions.get(kind)!.text })
      expect(auto[0]!.text).toContain(`T-1 on ${head.slice(0, 7)}`)
      // The model was asked with it.
      expect(JSON.stringify(replies.asked.get(m.name)![0]!.body.messages.at(-1))).toContain(
        `Please check T-1 on ${head.slice(0, 7)}`,
      )
    }

    // Delivered again on the same commit (moved back and forth): not asked twice for the same artifact.
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    await deliverTask(t.core, task, head)
    // The human's message after it: anything the delivery queued for Tess runs before it.
    replies.script('Tess', { text: 'noted' })
    const settled = sessionState(t.core, tess.id, 'idle', { timeoutMs: 15_000 })
    await t.core.invoke('sessions.send', { memberId: tess.id, text: 'anything else?' })
    await settled
    expect(byConcord(await steps(tess))).toHaveLength(1)
    expect(byConcord(await steps(rev))).toHaveLength(1)
  })

  it('off, a delivery asks nobody', async () => {
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, autoChecks: false })
    const { tess, rev, task } = await team()
    await deliverTask(t.core, task, head)
    // A later automatic job (a report the human submits) runs after the delivery's would have.
    await t.core.invoke('reports.submit', {
      taskId: task.id,
      kind: 'implementation',
      verdict: 'pass',
      summary: 'done',
      artifact: { commit: head },
      basis: [],
      claims: [],
    })
    expect(byConcord(await steps(tess))).toHaveLength(0)
    expect(byConcord(await steps(rev))).toHaveLength(0)
  })
})
