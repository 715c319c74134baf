import { describe, expect, it } from 'vitest'
import type { Revision } from '../../shared/schemas'
import { authorship } from '../../renderer/src/features/decisions/DecisionsPanel'

const rev = (version: number, extra: Partial<Revision> = {}): Revision => ({
  decisionId: 'w1-d1',
  version,
  title: 'Timeout',
  statement: 's',
  rationale: '',
  status: 'accepted',
  fingerprint: 'f',
  reason: '',
  actorId: null,
  editorial: false,
  sourceMessageId: null,
  createdAt: '',
  proposalId: null,
  proposedBy: null,
  ...extra,
})
const who = (id: string | null) => (id === null ? 'you' : id === 'w1-m1' ? 'Tester' : 'Lead')

describe('who made each revision, in the history', () => {
  it('a proposal by Tester accepted by the human reads "proposed by Tester, accepted by you"', () => {
    expect(authorship(rev(2, { proposalId: 'w1-p1', proposedBy: 'w1-m1' }), rev(1), who)).toBe(
      'proposed by Tester, accepted by you',
    )
  })
  it('a decision a proposer recorded is proposed by it; the status move to accepted is an acceptance', () => {
    expect(authorship(rev(1, { status: 'proposed', actorId: 'w1-m1' }), undefined, who)).toBe('proposed by Tester')
    expect(authorship(rev(2), rev(1, { status: 'proposed' }), who)).toBe('accepted by you')
    expect(authorship(rev(1), undefined, who)).toBe('created by you')
    expect(authorship(rev(3, { actorId: 'w1-m2' }), rev(2), who)).toBe('changed by Lead')
  })
})
