import { describe, expect, it } from 'vitest'
import { matchActions, type PaletteAction } from '../../renderer/src/features/search/palette-actions'

const action = (id: string, label: string, hint?: string): PaletteAction => ({
  id,
  label,
  ...(hint ? { hint } : {}),
  run: () => undefined,
})

describe('the palette matches commands', () => {
  const actions = [
    action('new-task', 'New task'),
    action('new-decision', 'New decision'),
    action('member-1', 'Message Ivy', 'tester'),
    action('team', 'Team view: every session side by side', 'Alt T'),
  ]
  const ids = (q: string) => matchActions(actions, q).map((a) => a.id)

  it('by every word typed, in any case and order, the hint included; all of them for nothing typed', () => {
    expect(ids('')).toEqual(['new-task', 'new-decision', 'member-1', 'team'])
    expect(ids('new')).toEqual(['new-task', 'new-decision'])
    expect(ids('TASK new')).toEqual(['new-task'])
    expect(ids('tester')).toEqual(['member-1'])
    expect(ids('new zebra')).toEqual([])
  })
})
