// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ArchiveButton } from '../../renderer/src/features/archive/ArchiveButton'
import { ArchiveUndo, dismissUndo, UNDO_MS } from '../../renderer/src/features/archive/undo'
import { shortcutHelp } from '../../renderer/src/lib/shortcuts'
import { clientApi, renderIn, storeWith } from '../fixtures/app-store'

const WS = 'w00000005'
const T = `${WS}-t1`

function mount(calls: string[]) {
  const api = clientApi(async (m: string) => {
    calls.push(m)
    return { id: T, key: 'T-1', title: 'Web search' }
  })
  return renderIn(
    storeWith({ workspaceId: WS }, api),
    <>
      <ArchiveButton target={{ kind: 'task', id: T }} />
      <ArchiveUndo />
    </>,
  )
}

afterEach(() => {
  act(() => dismissUndo())
  cleanup()
  vi.useRealTimers()
})

describe('archive undo', () => {
  it('offers Undo after archiving, and Undo restores', async () => {
    const calls: string[] = []
    mount(calls)
    fireEvent.click(screen.getByTestId('archive-task'))
    await waitFor(() => expect(screen.getByTestId('archive-undo').textContent).toContain('T-1 Web search archived.'))
    fireEvent.click(screen.getByTestId('archive-undo-button'))
    await waitFor(() => expect(screen.queryByTestId('archive-undo')).toBeNull())
    expect(calls).toEqual(['tasks.archive', 'tasks.restore'])
  })

  it('withdraws the offer after a few seconds', async () => {
    vi.useFakeTimers()
    const calls: string[] = []
    mount(calls)
    await act(async () => {
      fireEvent.click(screen.getByTestId('archive-task'))
      await vi.advanceTimersByTimeAsync(0)
    })
    expect(screen.getByTestId('archive-undo')).toBeTruthy()
    await act(async () => {
      await vi.advanceTimersByTimeAsync(UNDO_MS)
    })
    expect(screen.queryByTestId('archive-undo')).toBeNull()
    expect(calls).toEqual(['tasks.archive'])
  })
})

describe('the shortcut list', () => {
  it('names the session search', () => {
    expect(shortcutHelp.map((s) => s.keys)).toContain('Ctrl/⌘ Shift F')
  })
})
