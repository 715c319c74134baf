/** Which turn the session offers "Undo this turn" on, and which turns it shows undone (renderer turn-undo.ts). */
import { describe, expect, it } from 'vitest'
import type { Step } from '../../shared/schemas'
import { turnUndo } from '../../renderer/src/features/session/turn-undo'

const step = (id: string, turnId: string, extra: Partial<Step> = {}): Step =>
  ({ id, turnId, seq: 0, kind: id === turnId ? 'user' : 'model', changes: null, checkpoint: null, ...extra }) as Step
const changed = [{ path: 'a.ts', status: 'modified' as const }]
const at = (commit: string, undone = false) => ({
  commit,
  undone: undone ? { at: 'x', commit, keptRef: 'refs/concord/undone/turn-1', keptCommit: 'k' } : null,
})

describe('turnUndo', () => {
  it('offers the latest turn that changed its tree and is not undone; a turn that only talked is passed over', () => {
    const steps = [
      step('s1', 's1', { checkpoint: at('a') }),
      step('s2', 's1', { changes: changed }),
      step('s3', 's3', { checkpoint: at('b') }),
      step('s4', 's3', { changes: changed }),
      step('s5', 's5', { checkpoint: at('c') }),
      step('s6', 's5'),
    ]
    expect(turnUndo(steps)).toEqual({ undone: new Set(), undoable: 's3' })
  })

  it('a turn undone is shown undone, and the one before it is offered next; turns outside a task tree never are', () => {
    const steps = [
      step('s1', 's1', { checkpoint: at('a') }),
      step('s2', 's1', { changes: changed }),
      step('s3', 's3', { checkpoint: at('b', true) }),
      step('s4', 's3', { changes: changed }),
      step('s5', 's5'),
      step('s6', 's5', { changes: changed }),
    ]
    expect(turnUndo(steps)).toEqual({ undone: new Set(['s3']), undoable: 's1' })
  })
})
