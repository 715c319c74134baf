import { describe, expect, it } from 'vitest'
import type { Impact } from '../../shared/schemas'
import { describeImpact } from '../../renderer/src/lib/impact'

const base: Impact = {
  decisionId: 'w:decision:1',
  version: 2,
  normative: true,
  truncated: false,
  counts: {
    tasks: 0,
    needsAdjustment: 0,
    needsReverification: 0,
    acceptanceRevoked: 0,
    reports: 0,
    staleClaims: 0,
    restoredClaims: 0,
  },
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
