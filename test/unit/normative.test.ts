import { describe, expect, it } from 'vitest'
import { isNormativeChange, isNormativeStatusMove, normativeText } from '../../shared/normative'
import { contentHash } from '../../electron/main/harness/decisions/fingerprint'

describe('the normative rule (shared/normative.ts)', () => {
  it('a statement change is normative; whitespace alone is not', () => {
    expect(
      isNormativeChange(
        { statement: 'Timeout 5 s.', status: 'accepted' },
        { statement: 'Timeout 10 s.', status: 'accepted' },
      ),
    ).toBe(true)
    expect(
      isNormativeChange(
        { statement: 'Timeout 5 s.', status: 'accepted' },
        { statement: '  Timeout\n5 s. ', status: 'accepted' },
      ),
    ).toBe(false)
  })

  it('proposed → accepted is not normative; withdrawing (rejected, superseded) or restoring is', () => {
    expect(isNormativeStatusMove('proposed', 'accepted')).toBe(false)
    expect(isNormativeChange({ statement: 'A', status: 'proposed' }, { statement: 'A', status: 'accepted' })).toBe(
      false,
    )
    expect(isNormativeStatusMove('accepted', 'rejected')).toBe(true)
    expect(isNormativeStatusMove('accepted', 'superseded')).toBe(true)
    expect(isNormativeStatusMove('rejected', 'superseded')).toBe(true)
    expect(isNormativeStatusMove('superseded', 'accepted')).toBe(true)
  })

  it('the core fingerprints exactly that text (stored hashes keep their format)', () => {
    expect(normativeText({ statement: ' a  b ', status: 'accepted' })).toBe('in-force\na b')
    expect(contentHash('a b', 'accepted')).toBe(contentHash(' a\n b', 'proposed'))
    expect(contentHash('a b', 'accepted')).not.toBe(contentHash('a b', 'rejected'))
    // The value stored by every earlier version of Concord for this content.
    expect(contentHash('REST', 'accepted')).toBe('4ac5deb19c190b5f')
  })
})
