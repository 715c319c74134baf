// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ClientApi } from '../../renderer/src/api/bridge-client'
import { DecisionsPanel } from '../../renderer/src/features/decisions/DecisionsPanel'
import { clientApi, renderIn, storeWith } from '../fixtures/app-store'

const WS = 'w00000009'
afterEach(cleanup)

/** A client that records every export call and answers as the core would for /repo. */
function recording() {
  const sent: { m: string; p: Record<string, unknown> }[] = []
  const api = clientApi(async (m: string, p: Record<string, unknown>) => {
    if (m === 'export.decisionLog' || m === 'export.download') sent.push({ m, p })
    if (m === 'export.decisionLog') {
      const folder = (p.folder as string | undefined) ?? (p.flavour === 'adr-tools' ? 'doc/adr' : 'docs/decisions')
      const file = `/repo/${folder}/0001-a.md`
      return {
        format: 'madr',
        outDir: `/repo/${folder}`,
        folder,
        files: [file],
        changed: p.dryRun ? [file] : [file],
        removed: [],
        dryRun: p.dryRun === true,
      }
    }
    if (m === 'export.download')
      return {
        name: 'ws-decisions-madr.zip',
        url: '/downloads/0123456789abcdef0123456789abcdef/ws-decisions-madr.zip',
        size: 22,
        count: 1,
      }
    return { items: [], nextCursor: null, total: 0 }
  })
  return { api, sent }
}

function mount(api: ClientApi, nativeDialogs: boolean) {
  renderIn(storeWith({ workspaceId: WS }, api, { nativeDialogs }), <DecisionsPanel />)
}

describe('the export box', () => {
  it('lists the files from a dry run before writing them; flavour and folder go with both calls', async () => {
    const { api, sent } = recording()
    mount(api, true)
    expect(sent).toEqual([]) // nothing planned until the box is opened
    fireEvent.click(screen.getByTestId('export-open'))
    await screen.findByTestId('export-plan')
    expect(sent).toEqual([{ m: 'export.decisionLog', p: { workspaceId: WS, format: 'madr', dryRun: true } }])
    expect(screen.getByTestId('export-plan').textContent).toContain('docs/decisions/0001-a.md')
    // The folder field shows the conventions' folder until one is typed.
    expect(screen.getByTestId<HTMLInputElement>('export-folder').placeholder).toBe('docs/decisions')

    const flavour = screen.getByTestId<HTMLSelectElement>('export-flavour')
    expect(flavour.value).toBe('')
    fireEvent.change(flavour, { target: { value: 'adr-tools' } })
    await waitFor(() => expect(sent).toHaveLength(2))
    expect(sent[1]!.p).toEqual({ workspaceId: WS, format: 'madr', flavour: 'adr-tools', dryRun: true })
    fireEvent.change(screen.getByTestId('export-folder'), { target: { value: 'architecture/decisions' } })
    // While the new plan is not in, nothing can be written.
    expect(screen.getByTestId<HTMLButtonElement>('export-run').disabled).toBe(true)
    await waitFor(() => expect(sent).toHaveLength(3))
    await waitFor(() => expect(screen.getByTestId('export-plan').textContent).toContain('architecture/decisions'))
    expect(sent[2]!.p).toEqual({
      workspaceId: WS,
      format: 'madr',
      flavour: 'adr-tools',
      folder: 'architecture/decisions',
      dryRun: true,
    })
    const write = screen.getByTestId<HTMLButtonElement>('export-run')
    expect(write.textContent).toBe('Write 1 file')
    fireEvent.click(write)
    await screen.findByTestId('export-done')
    expect(sent[3]).toEqual({
      m: 'export.decisionLog',
      p: { workspaceId: WS, format: 'madr', flavour: 'adr-tools', folder: 'architecture/decisions' },
    })
  })

  it('under concord serve offers the zip instead of writing into the server’s checkout', async () => {
    const { api, sent } = recording()
    mount(api, false)
    fireEvent.click(screen.getByTestId('export-open'))
    await screen.findByTestId('export-plan')
    const run = screen.getByTestId<HTMLButtonElement>('export-run')
    expect(run.textContent).toBe('Download zip')
    fireEvent.click(run)
    await screen.findByTestId('export-done')
    expect(sent.map((s) => s.m)).toEqual(['export.decisionLog', 'export.download'])
    expect(sent[1]!.p).toEqual({ workspaceId: WS, format: 'madr' })
  })
})
