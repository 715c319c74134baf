// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SEARCH_MARK_END as E, SEARCH_MARK_START as S } from '../../shared/schemas'
import { clearDraft, loadDraft, saveDraft } from '../../renderer/src/lib/drafts'
import { Snippet } from '../../renderer/src/features/search/snippet'

afterEach(cleanup)

describe('search snippet', () => {
  it('marks each match and renders the rest as text, never as HTML', () => {
    const { container } = render(<Snippet text={`…the ${S}timeout${E} is <b>30 s</b>; ${S}timeouts${E}`} />)
    expect([...container.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['timeout', 'timeouts'])
    expect(container.querySelector('b')).toBeNull()
    expect(container.textContent).toBe('…the timeout is <b>30 s</b>; timeouts')
  })

  it('shows an unclosed mark as plain text', () => {
    const { container } = render(<Snippet text={`a ${S}b`} />)
    expect(container.querySelectorAll('mark')).toHaveLength(0)
    expect(container.textContent).toBe(`a ${S}b`)
  })
})

describe('drafts', () => {
  beforeEach(() => localStorage.clear())

  it('keeps one draft per workspace and member; an empty draft is removed', () => {
    saveDraft('w1', 'm1', 'for one')
    saveDraft('w1', 'm2', 'for two')
    saveDraft('w2', 'm1', 'other workspace')
    expect([loadDraft('w1', 'm1'), loadDraft('w1', 'm2'), loadDraft('w2', 'm1'), loadDraft('w2', 'm2')]).toEqual([
      'for one',
      'for two',
      'other workspace',
      '',
    ])
    clearDraft('w1', 'm1')
    expect(loadDraft('w1', 'm1')).toBe('')
    expect(localStorage.length).toBe(2)
  })
})
