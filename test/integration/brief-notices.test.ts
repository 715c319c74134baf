/**
 * A notice in the brief does not repeat the statement the brief's decision lines already carry (issue 21's
 * coordination-token row): a notice shows its headline without the title and the member's tasks only, the decision's current text being
 * in the brief's decision lines; a notice of an older version loses the statement that is no longer current.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { parseId } from '../../electron/main/harness/ids'
import { buildBrief } from '../../electron/main/runtime/brief'
import { editForSlowProviders, searchTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let ws: Workspace
let impl: Member

beforeEach(async () => {
  t = await openWorkspace({ git: true, isolation: 'shared' })
  ws = t.ws
  impl = await t.core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
})
afterEach(() => t.cleanup())

const occurrences = (text: string, part: string) => text.split(part).length - 1

function briefOf(member: Member) {
  const ctx = t.core.harness.ctx(ws.id)
  const row = ctx.store.members.get(parseId(member.id, 'member', 'memberId').n)!
  return buildBrief(ctx, row, ctx.store.log.notices(row.id, true))
}

it('shows notices without the statement the decision lines carry, an older one without its outdated statement', async () => {
  const { d } = await searchTask(t.core, ws.id, impl)
  const v2 = 'Web search gives up after 10 s and returns partial results'
  await editForSlowProviders(t.core, d, v2)

  let brief = briefOf(impl)
  expect(brief.notices).toHaveLength(1)
  expect(brief.text).toContain(`D-1 v2 [accepted] "Search timeout": ${v2}`)
  expect(brief.text).toContain('D-1 changed (now v2): slow providers.')
  expect(occurrences(brief.text, 'Search timeout')).toBe(1)
  expect(brief.text).toContain('Your tasks: T-1')
  expect(occurrences(brief.text, v2)).toBe(1)
  expect(brief.text).not.toContain('Current statement:')
  // The stored notice, read alone (the UI, a tool result), keeps the title and the statement.
  expect(brief.notices.at(0)?.text).toContain(
    `D-1 "Search timeout" changed (now v2): slow providers.\nCurrent statement: ${v2}`,
  )

  const v3 = 'Web search gives up after 8 s'
  await t.core.invoke('decisions.update', {
    decisionId: d.id,
    expectedVersion: (await t.core.invoke('decisions.get', { decisionId: d.id })).version,
    statement: v3,
    reason: 'compromise',
  })
  brief = briefOf(impl)
  expect(brief.notices).toHaveLength(2)
  expect(brief.noticeTexts[0]).toContain('D-1 changed (now v2): slow providers.')
  expect(brief.noticeTexts[0]).not.toContain('Current statement:')
  expect(brief.text).not.toContain(v2)
  expect(brief.noticeTexts[1]).not.toContain('Current statement:')
  expect(occurrences(brief.text, v3)).toBe(1)
})
