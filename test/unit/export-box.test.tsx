// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import { DecisionsPanel } from '../../renderer/src/features/decisions/DecisionsPanel'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'

const WS = 'w00000009'
afterEach(cleanup)

describe('the export box', () => {
  it("offers the MADR flavour, leaving it to the repository's conventions unless one is chosen", async () => {
    const sent: Record<string, unknown>[] = []
    const api = {
      call: async (m: string, p: Record<string, unknown>) => {
        if (m === 'export.decisionLog') {
          sent.push(p)
          return { format: 'madr', outDir: '/repo/doc/adr', files: ['/repo/doc/adr/0001-a.md'] }
        }
        return { items: [], nextCursor: null, total: 0 }
      },
      onEvent: () => () => {},
      onConnection: () => () => {},
      close: () => {},
    } as unknown as ClientApi
    const store = createAppStore(api)
    store.setState({ workspaceId: WS })
    render(
      <StoreContext.Provider value={store}>
        <DecisionsPanel />
      </StoreContext.Provider>,
    )
    const flavour = screen.getByTestId<HTMLSelectElement>('export-flavour')
    expect(flavour.value).toBe('')
    fireEvent.click(screen.getByRole('button', { name: 'Export' }))
    await screen.findByTestId('export-result')
    expect(sent[0]).toEqual({ workspaceId: WS, format: 'madr' })
    fireEvent.change(flavour, { target: { value: 'adr-tools' } })
    fireEvent.click(screen.getByRole('button', { name: 'Export' }))
    await waitFor(() => expect(sent).toHaveLength(2))
    expect(sent[1]).toEqual({ workspaceId: WS, format: 'madr', flavour: 'adr-tools' })
  })
})
