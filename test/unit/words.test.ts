import { describe, expect, it } from 'vitest'
import { noticeHeadline } from '../../electron/main/harness/decisions/notice-text'
import { markdownToPlain } from '../../renderer/src/lib/plain-text'

describe('words', () => {
  it("a notice's first line is one sentence whatever the reason ends with", () => {
    const d = { id: 3, version: 2, title: 'Search' }
    expect(noticeHeadline(d, 'the UI felt hung.')).toBe('D-3 "Search" changed (now v2): the UI felt hung.')
    expect(noticeHeadline(d, 'why?')).toBe('D-3 "Search" changed (now v2): why?')
    expect(noticeHeadline(d, 'slow ')).toBe('D-3 "Search" changed (now v2): slow.')
    expect(noticeHeadline(d, '')).toBe('D-3 "Search" changed (now v2).')
  })
})

describe('a quoted message', () => {
  it('reads as its Markdown renders, without the syntax', () => {
    expect(markdownToPlain('**Fail** the _whole_ `search` after [30 s](https://x.test)')).toBe(
      'Fail the whole search after 30 s',
    )
    expect(markdownToPlain('## Plan\n- keep **D-1**\n> quoted')).toBe('Plan\nkeep D-1\nquoted')
    expect(markdownToPlain('snake_case_name stays')).toBe('snake_case_name stays')
  })
})
