import { describe, expect, it } from 'vitest'
import { noticeHeadline } from '../../electron/main/harness/propagation'

describe('words', () => {
  it("a notice's first line is one sentence whatever the reason ends with", () => {
    const d = { id: 3, version: 2, title: 'Search' }
    expect(noticeHeadline(d, 'the UI felt hung.')).toBe('D-3 "Search" changed (now v2): the UI felt hung.')
    expect(noticeHeadline(d, 'why?')).toBe('D-3 "Search" changed (now v2): why?')
    expect(noticeHeadline(d, 'slow ')).toBe('D-3 "Search" changed (now v2): slow.')
    expect(noticeHeadline(d, '')).toBe('D-3 "Search" changed (now v2).')
  })
})
