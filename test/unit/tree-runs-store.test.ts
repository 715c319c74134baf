/**
 * The card's copy of a task's setup and run: answers and events about the same run arrive in any order (an HTTP
 * answer read while the command ran, the WebSocket event that says it ended), and the end is what stays shown.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import type { TreeRun } from '../../shared/schemas'
import { useTreeRuns } from '../../renderer/src/stores/tree-runs'

const T = 'w00000001-t1'
const run = (over: Partial<TreeRun>): TreeRun => ({
  taskId: T,
  kind: 'setup',
  command: 'npm ci',
  state: 'running',
  exitCode: null,
  output: '',
  copied: [],
  refused: [],
  sandboxed: true,
  startedAt: '2026-12-03T10:00:00.000Z',
  endedAt: null,
  ...over,
})
const ended = run({ state: 'failed', exitCode: 1, output: 'boom', endedAt: '2026-12-03T10:00:01.000Z' })
const shown = () => useTreeRuns.getState().byTask[T]?.setup

describe('tree runs on the card', () => {
  beforeEach(() => useTreeRuns.setState({ byTask: {} }))

  it('keeps the end of a run when a snapshot of it running arrives later (event first, answer after)', () => {
    useTreeRuns.getState().apply(run({}))
    useTreeRuns.getState().apply(ended)
    useTreeRuns.getState().applyAll(T, [run({ output: 'half' })])
    expect(shown()?.state).toBe('failed')
    useTreeRuns.getState().apply(run({ output: 'half' }))
    expect(shown()?.state).toBe('failed')
  })

  it('takes the newer output of a running command, its end, and a later start', () => {
    useTreeRuns.getState().apply(run({}))
    useTreeRuns.getState().apply(run({ output: 'installing' }))
    expect(shown()?.output).toBe('installing')
    useTreeRuns.getState().applyAll(T, [ended])
    expect(shown()?.state).toBe('failed')
    const again = run({ startedAt: '2026-12-03T10:05:00.000Z' })
    useTreeRuns.getState().apply(again)
    expect(shown()).toEqual(again)
    // An answer about the older run, arriving late, does not bring it back.
    useTreeRuns.getState().apply(ended)
    expect(shown()).toEqual(again)
  })
})
