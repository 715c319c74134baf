// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Decision, Revision, StepRef } from '../../shared/schemas'
import { Markdown } from '../../renderer/src/components/Markdown'
import { DecisionCard } from '../../renderer/src/features/decisions/DecisionCard'
import { RefChip } from '../../renderer/src/components/RefChip'
import { decisionChipView } from '../../renderer/src/components/pins'
import { clientApi, renderIn, storeWith } from '../fixtures/app-store'
import type { AppStore } from '../../renderer/src/stores/types'

const WS = 'w00000002'
const statements = [
  'Fail the whole search after 30 s',
  'Return partial results after 30 s',
  'Return partial results after 20 s',
]
const decision = (version: number): Decision => ({
  id: `${WS}-d1`,
  workspaceId: WS,
  key: 'D-1',
  title: 'Search timeout',
  statement: statements[version - 1]!,
  rationale: '',
  status: 'accepted',
  version,
  fingerprint: `f${version}`,
  sourceMessageId: null,
  supersedes: null,
  supersededBy: null,
  createdBy: null,
  createdAt: '',
  updatedAt: '',
})
// Asserted: the fields Revision gains elsewhere (proposal provenance) do not matter to a pinned card.
const revision = (version: number): Revision =>
  ({
    decisionId: `${WS}-d1`,
    version,
    title: 'Search timeout',
    statement: statements[version - 1],
    rationale: '',
    status: 'accepted',
    fingerprint: `f${version}`,
    reason: '',
    actorId: null,
    editorial: false,
    sourceMessageId: null,
    createdAt: '',
  }) as Revision
const pinV1: StepRef[] = [{ key: 'D-1', kind: 'decision', id: `${WS}-d1`, version: 1 }]

function storeAt(version: number, calls: string[] = []): AppStore {
  const api = clientApi(async (m: string) => {
    calls.push(m)
    if (m === 'decisions.history') return [1, 2, 3].filter((v) => v <= version).map(revision)
    throw Object.assign(new Error(`unexpected ${m}`), { code: 'internal' })
  })
  return storeWith({ workspaceId: WS, decisions: { [`${WS}-d1`]: decision(version) } }, api)
}
const mount = renderIn

afterEach(cleanup)

describe('decision chips', () => {
  it('show the pinned version, and the current one when it moved on', () => {
    expect(decisionChipView(3, undefined)).toEqual({ version: 3, nowVersion: null })
    expect(decisionChipView(3, 3)).toEqual({ version: 3, nowVersion: null })
    expect(decisionChipView(3, 1)).toEqual({ version: 1, nowVersion: 3 })
  })

  it('render "D-1 v1 changed since — now v3" in a pinned step, the live version in an unpinned one', () => {
    const store = storeAt(3)
    const { container } = mount(
      store,
      <>
        <div id="pinned">
          <Markdown text="Search over 30 s fails (D-1) ✅ pass" refs={pinV1} />
        </div>
        <div id="old">
          <Markdown text="Search over 30 s fails (D-1) ✅ pass" />
        </div>
      </>,
    )
    const pinned = container.querySelector('#pinned [data-ref="D-1"]')!
    expect(pinned.textContent).toBe('D-1v1changed since — now v3')
    expect(pinned.getAttribute('data-changed')).toBe('3')
    expect(container.querySelector('#old [data-ref="D-1"]')!.textContent).toBe('D-1v3')
    // Once the decision is back at the pinned version's number the mark goes: nothing changed since.
    act(() => store.setState({ decisions: { [`${WS}-d1`]: decision(1) } }))
    expect(container.querySelector('#pinned [data-ref="D-1"]')!.textContent).toBe('D-1v1')
  })
})

describe("a merged task's decision chip", () => {
  it('says the version the code was merged on, "· now v3" while the content moved on, never the live version alone', () => {
    const { container } = mount(
      storeAt(3),
      <>
        <div id="behind">
          <RefChip refKey="D-1" mergedOn={{ version: 2, nowVersion: 3 }} />
        </div>
        <div id="back">
          <RefChip refKey="D-1" mergedOn={{ version: 2, nowVersion: null }} />
        </div>
      </>,
    )
    const behind = container.querySelector('#behind [data-ref="D-1"]')!
    expect(behind.textContent).toBe('merged on D-1 v2 · now v3')
    expect(behind.getAttribute('data-version')).toBe('2')
    expect(behind.className).toContain('ref-changed')
    const back = container.querySelector('#back [data-ref="D-1"]')!
    expect(back.textContent).toBe('merged on D-1 v2')
    expect(back.className).not.toContain('ref-changed')
  })
})

describe('a pinned decision card', () => {
  it('shows the pinned statement, a one-click word diff to the current one, and edits from the current version', async () => {
    const calls: string[] = []
    const store = storeAt(2, calls)
    mount(store, <DecisionCard decisionKey="D-1" pinnedVersion={1} />)
    const card = screen.getByTestId('decision-card')
    expect(card.getAttribute('data-version')).toBe('2')
    expect(screen.getByTestId('pinned-version').textContent).toContain('Written against v1 · changed since — now v2')
    await waitFor(() => expect(screen.getByTestId('dcard-statement').textContent).toBe(statements[0]))
    fireEvent.click(screen.getByTestId('pinned-diff-toggle'))
    const diff = screen.getByTestId('dcard-statement')
    expect(diff.querySelector('del')?.textContent).toBe('Fail the whole search')
    expect(diff.querySelector('ins')?.textContent).toBe('Return partial results')
    fireEvent.click(screen.getByText('Edit'))
    expect(screen.getByLabelText<HTMLTextAreaElement>('Statement').value).toBe(statements[1])
    // A second card for the same pin reads the cached history.
    cleanup()
    mount(store, <DecisionCard decisionKey="D-1" pinnedVersion={1} />)
    await waitFor(() => expect(screen.getByTestId('dcard-statement').textContent).toBe(statements[0]))
    expect(calls.filter((c) => c === 'decisions.history')).toHaveLength(1)
  })

  it('is the plain live card when its pin is the current version', () => {
    mount(storeAt(1), <DecisionCard decisionKey="D-1" pinnedVersion={1} />)
    expect(screen.queryByTestId('pinned-version')).toBeNull()
    expect(screen.getByTestId('dcard-statement').textContent).toBe(statements[0])
  })
})

describe('code blocks', () => {
  it('have a Copy button that copies the code as written and says Copied', async () => {
    const copied: string[] = []
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: async (t: string) => void copied.push(t) },
    })
    mount(storeAt(1), <Markdown text={'Run:\n\n```ts\nconst a: number = 1\nexport { a }\n```'} />)
    const button = screen.getByTestId('code-copy')
    expect(button.textContent).toBe('Copy')
    fireEvent.click(button)
    await waitFor(() => expect(button.textContent).toBe('Copied'))
    expect(copied).toEqual(['const a: number = 1\nexport { a }'])
  })
})
