import { describe, expect, it } from 'vitest'
import { announcedVersions, isKey, keyKind, keyNumber, makeKey, mentionedKeys, parseKey } from '../../shared/keys'

describe('the key format (shared/keys)', () => {
  it('builds and parses keys both ways', () => {
    expect(makeKey('decision', 12)).toBe('D-12')
    expect(makeKey('task', 3n)).toBe('T-3')
    expect(parseKey('R-5')).toEqual({ kind: 'report', n: 5 })
    expect(parseKey(' P-2 ')).toEqual({ kind: 'proposal', n: 2 })
    expect(parseKey('d-3')).toBeNull()
    expect(parseKey('d-3', { ignoreCase: true })).toEqual({ kind: 'decision', n: 3 })
    for (const bad of ['X-1', 'D-', 'D1', 'D-1a', 'D-1234567890123456', '']) expect(parseKey(bad)).toBeNull()
    expect(isKey('D-1', 'decision')).toBe(true)
    expect(isKey('T-1', 'decision')).toBe(false)
    expect(keyKind('T-9')).toBe('task')
    expect(keyKind('Z-9')).toBeUndefined()
    expect(keyNumber('T-12')).toBe(12)
    expect(keyNumber('nope')).toBeNaN()
  })

  it('finds mentions in prose, not in code, once each, in order', () => {
    const text =
      'See T-2 and D-1, then D-1 again (R-4). `D-7` is code.\n```\nD-8\n```\nP-3 too; XD-5 and D-5x are not keys.'
    expect(mentionedKeys(text)).toEqual(['T-2', 'D-1', 'R-4', 'P-3'])
    expect(mentionedKeys(text, 'DTR')).toEqual(['T-2', 'D-1', 'R-4'])
    expect(mentionedKeys('D-99999999999999999 and D-1')).toEqual(['D-1'])
  })

  it('reads the version a notice announces', () => {
    const text =
      'D-1 "API" changed (now v2): clients asked.\nCurrent statement: Use GraphQL\n\nD-3 "Search" changed (now v5).\nYour tasks: T-1 (needs adjustment).'
    expect([...announcedVersions(text)]).toEqual([
      ['D-1', 2],
      ['D-3', 5],
    ])
    expect(announcedVersions('D-1 is fine, nothing changed').size).toBe(0)
  })
})
