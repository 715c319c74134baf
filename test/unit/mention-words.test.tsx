// @vitest-environment happy-dom
import { cleanup } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Decision, Task } from '../../shared/schemas'
import { Markdown } from '../../renderer/src/components/Markdown'
import { renderIn, storeWith } from '../fixtures/app-store'

const WS = 'w00000003'
const decision: Decision = {
  id: `${WS}-d1`,
  workspaceId: WS,
  key: 'D-1',
  title: 'Search timeout',
  statement: 'Return partial results after 20 s',
  rationale: '',
  status: 'accepted',
  version: 3,
  fingerprint: 'f3',
  sourceMessageId: null,
  supersedes: null,
  supersededBy: null,
  createdBy: null,
  createdAt: '',
  updatedAt: '',
}
const task = {
  id: `${WS}-t1`,
  workspaceId: WS,
  key: 'T-1',
  title: 'Web search',
  status: 'in_progress',
  flag: null,
} as unknown as Task

function mount(text: string) {
  const store = storeWith({ workspaceId: WS, decisions: { [decision.id]: decision }, tasks: { [task.id]: task } })
  return renderIn(store, <Markdown text={text} />)
}

afterEach(cleanup)

describe('mentions in an old message', () => {
  it('a version the text names is the chip\'s version, not a second one ("D-1 v1 v1")', () => {
    const { container } = mount('R-2 is based on D-1 v1 and nothing else.')
    const chip = container.querySelector('[data-ref="D-1"]')!
    expect(chip.getAttribute('data-version')).toBe('1')
    expect(chip.getAttribute('data-changed')).toBe('3')
    const text = container.querySelector('.md')!.textContent
    expect(text).not.toMatch(/v1\s*v1/)
    expect(text.match(/v1/g)).toHaveLength(1)
    expect(text).toContain(' and nothing else.')
  })

  it('a task chip does not put its current status into the sentence ("T-1 in progress was delivered")', () => {
    const { container } = mount('T-1 was delivered yesterday.')
    expect(container.querySelector('.md')!.textContent).toBe('T-1 was delivered yesterday.')
    expect(container.querySelector('[data-ref="T-1"]')!.getAttribute('title')).toContain('now in progress')
  })
})
