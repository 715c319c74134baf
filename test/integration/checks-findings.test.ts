/**
 * Findings reach whoever fixes (issue 33): a failing report reads "R-n failed: k of m claims" on the task, the ask
 * to fix carries its summary and failing claims, and a built-in member reads the task's reports with list_reports
 * and get_report. Real harness, real SQLite file, the scripted model server for every turn.
 */
import { execFileSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Workspace } from '../../shared/schemas'
import { waitForEvent } from '../fixtures/core'
import { deliverTask, searchTask } from '../fixtures/harness'
import { memberScripts, type MemberScripts } from '../fixtures/member-scripts'
import { takeTurn } from '../fixtures/sessions'
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
  // The implementer's turns here are the ones the test sends.
  await t.core.invoke('workspaces.update', { workspaceId: ws.id, startAgentOnTaskStart: false })
  head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir, encoding: 'utf8' }).trim()
})
afterEach(() => t.cleanup())

const claims = [
  { text: 'gives up after 5 s', decisionIds: ['D-1'], verdict: 'pass' },
  { text: 'returns partial results on timeout', decisionIds: ['D-1'], verdict: 'fail' },
  { text: 'logs the timeout', decisionIds: ['D-1'], verdict: 'pass' },
  { text: 'retries once before giving up', decisionIds: ['D-1'], verdict: 'fail' },
  { text: 'cancels the request', decisionIds: ['D-1'] },
]

describe('a failing report', () => {
  it('reads "failed: k of m claims", and the ask to fix carries its summary and failing claims to a member who can read the report', async () => {
    const impl = await t.member('Impl', { role: 'implementer' })
    const tess = await t.member('Tess', { role: 'tester' })
    await t.member('Rev', { role: 'reviewer' })
    const { task } = await searchTask(t.core, ws.id, impl, { requiredReports: ['test', 'review'] })
    // The tester asked on delivery (autoChecks) fails the task: two of five claims did not hold.
    replies.script(tess.name, {
      toolCalls: [
        {
          name: 'submit_report',
          arguments: {
            taskId: 'T-1',
            kind: 'test',
            verdict: 'fail',
            summary: 'Timeouts lose the partial results',
            claims,
          },
        },
      ],
    })
    const reported = waitForEvent<{ report: { id: string; key: string } }>(
      t.core,
      (e) => e.event === 'report.submitted' && e.payload.report.authorId === tess.id,
      20_000,
    )
    await deliverTask(t.core, task, head)
    const report = (await reported).payload.report
    const r = await t.core.invoke('reports.get', { reportId: report.id })
    // Omitted, a claim's verdict is the report's.
    expect(r.claims.map((c) => c.verdict)).toEqual(['pass', 'fail', 'pass', 'fail', 'fail'])

    const reason = (await t.core.invoke('tasks.get', { taskId: task.id })).readiness.reasons.find(
      (x) => x.reportId === report.id,
    )!
    expect(reason.message).toBe(`${report.key} failed: 3 of 5 claims`)
    expect(reason.message).not.toContain('not pass')
    expect(reason.action).toMatchObject({ memberId: impl.id, label: `Ask Impl to fix what ${report.key} found` })
    const text = reason.action!.text
    expect(text).toContain(`${report.key} failed: 3 of 5 claims.`)
    expect(text).toContain('Summary: Timeouts lose the partial results')
    expect(text).toContain('- [fail] returns partial results on timeout')
    expect(text).toContain('- [fail] retries once before giving up')
    expect(text).not.toContain('gives up after 5 s')
    expect(text).toContain('Please fix T-1, then deliver it again.')

    // The card's Ask sends that text; the implementer reads the task's reports with its own tools.
    replies.script(
      impl.name,
      { toolCalls: [{ name: 'list_reports', arguments: { taskId: 'T-1' } }] },
      { toolCalls: [{ name: 'get_report', arguments: { reportId: report.key } }] },
      { text: 'I will fix the partial results.' },
    )
    await takeTurn(t.core, { memberId: impl.id, text, taskId: task.id }, { timeoutMs: 20_000 })
    const asked = replies.asked.get('Impl')!
    expect(JSON.stringify(asked[0]!.body.messages.at(-1))).toContain('[fail] retries once before giving up')
    const toolResult = (i: number) => JSON.stringify(asked[i]!.body.messages.at(-1))
    expect(toolResult(1)).toContain(
      `${report.key} (id ${report.id}) test fail [valid]: Timeouts lose the partial results`,
    )
    expect(toolResult(2)).toContain('2. [fail] returns partial results on timeout')
    expect(toolResult(2)).toContain('1. [pass] gives up after 5 s')
    expect(toolResult(2)).toContain(`on commit ${head}`)
  })
})
