import { describe, expect, it } from 'vitest'
import type { Impact } from '../../shared/schemas'
import { describeImpact } from '../../renderer/src/lib/impact'
import { impactSentence } from '../../renderer/src/features/decisions/DecisionEditor'
import { zeroCounts } from '../../electron/main/harness/decisions/impact'

const base: Impact = {
  decisionId: 'w:decision:1',
  version: 2,
  normative: true,
  truncated: false,
  counts: zeroCounts(),
  tasks: [],
  reports: [],
  notifiedMemberIds: [],
}

describe('impact preview of a merged task', () => {
  it('says the merged task stays merged and a follow-up task will be created', () => {
    const text = 'T-1 is merged: the base branch has its code; a follow-up task will be created'
    expect(
      describeImpact({ ...base, mergedTasks: [{ taskId: 'w:task:1', key: 'T-1', text, followUp: 'create' }] }, {}),
    ).toBe(`${text}.`)
    expect(describeImpact(base, {})).toBe('No task or report depends on this decision yet.')
  })
})

describe('impact preview of an edit back to what a merged task implements', () => {
  const obsolete = (cancelled: boolean) => ({
    taskId: 'w:task:2',
    key: 'T-2',
    mergedTaskId: 'w:task:1',
    mergedKey: 'T-1',
    cancelled,
    text: `T-2 is obsolete: D-1 is back to what T-1 was merged on (v1); ${cancelled ? 'the change cancels it' : 'cancelling it is offered'}`,
  })
  it('says which follow-up is obsolete and whether the change cancels it, also beside restored claims', () => {
    expect(describeImpact({ ...base, obsoleteFollowUps: [obsolete(true)] }, {})).toBe(
      'T-2 is obsolete: D-1 is back to what T-1 was merged on (v1); the change cancels it.',
    )
    const restored = {
      ...base,
      obsoleteFollowUps: [obsolete(false)],
      reports: [
        {
          reportId: 'w:report:1',
          key: 'R-1',
          taskId: 'w:task:1',
          authorId: null,
          staleClaimIds: [],
          restoredClaimIds: ['c1'],
          validity: 'valid' as const,
        },
      ],
    }
    expect(impactSentence(restored, {})).toBe(
      'Nothing new is flagged. Restores 1 claim in R-1 (valid again). T-2 is obsolete: D-1 is back to what T-1 was merged on (v1); cancelling it is offered.',
    )
  })
})

describe('impact preview of a large edit', () => {
  it("names the first eight tasks and reports and counts the rest from the edit's counts", () => {
    const tasks = Array.from({ length: 50 }, (_, i) => ({
      taskId: `w:task:${i + 1}`,
      key: `T-${i + 1}`,
      status: 'todo' as const,
      flag: 'requirements_updated' as const,
      assigneeId: null,
      acceptanceRevoked: false,
    }))
    const reports = Array.from({ length: 50 }, (_, i) => ({
      reportId: `w:report:${i + 1}`,
      key: `R-${i + 1}`,
      taskId: 'w:task:1',
      authorId: null,
      staleClaimIds: ['c1', 'c2', 'c3'],
      restoredClaimIds: [],
      validity: 'stale' as const,
    }))
    const impact: Impact = {
      ...base,
      truncated: true,
      counts: { ...base.counts, tasks: 1000, reports: 10_000, staleClaims: 30_000 },
      tasks,
      reports,
    }
    const text = describeImpact(impact, {})
    expect(text).toContain('Flags T-1 to do, T-2 to do,')
    expect(text).toContain('T-8 to do, and 992 more tasks; stales 3 claims in R-1,')
    expect(text).toContain('3 claims in R-8, and 9,992 more reports.')
    expect(text).not.toContain('T-9 ')
    // Everything listed: every one named, nothing counted.
    const small = { ...impact, truncated: false, counts: { ...impact.counts, tasks: 2, reports: 1 } }
    expect(describeImpact({ ...small, tasks: tasks.slice(0, 2), reports: reports.slice(0, 1) }, {})).toBe(
      'Flags T-1 to do, T-2 to do; stales 3 claims in R-1.',
    )
  })
})
