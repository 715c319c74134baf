// @vitest-environment happy-dom
/**
 * The folder chooser shows the listing last asked for: the first listing (home) answering after the folder you typed
 * and went to does not replace it, and does not overwrite the path you are typing. (A full run under load saw the
 * e2e's "repo" folder never appear: home's slow answer had replaced the typed folder's listing.)
 */
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { FolderListing } from '../../shared/schemas'
import { FolderBrowser } from '../../renderer/src/features/workspaces/FolderBrowser'
import { clientApi, renderIn, storeWith } from '../fixtures/app-store'

afterEach(cleanup)

const listing = (path: string, folders: string[]): FolderListing => ({
  path,
  parent: '/',
  home: '/home/u',
  isRepo: false,
  folders: folders.map((name) => ({ name, path: `${path}/${name}`, isRepo: false })),
  truncated: false,
})

/** A client whose first listing (home, no path) answers only when released; a path's listing answers at once. */
function slowHome() {
  let release: () => void = () => {}
  const api = clientApi(async (method: string, p: { path?: string }) => {
    if (method !== 'folders.browse') return []
    if (!p.path) {
      await new Promise<void>((r) => (release = r))
      return listing('/home/u', ['docs'])
    }
    return listing(p.path, ['repo', 'data'])
  })
  return { api, releaseHome: () => release() }
}

describe('folder chooser', () => {
  it('a slow first listing answering late replaces neither the folder you went to nor what you typed', async () => {
    const { api, releaseHome } = slowHome()
    renderIn(storeWith({}, api), <FolderBrowser onChoose={() => {}} onClose={() => {}} />)
    const input = screen.getByTestId<HTMLInputElement>('folder-path')
    fireEvent.change(input, { target: { value: '/tmp/e2e' } })
    // Home answers while the path is typed: the typed path stays.
    releaseHome()
    await new Promise((r) => setTimeout(r, 0))
    expect(input.value).toBe('/tmp/e2e')
    fireEvent.submit(input.closest('form')!)
    await waitFor(() =>
      expect(screen.getAllByTestId('folder-item').map((b) => b.textContent?.replace('▸', ''))).toContain('repo'),
    )
    expect(input.value).toBe('/tmp/e2e')
  })

  it('going to a folder while the first listing loads shows that folder, even when the first answers after it', async () => {
    const { api, releaseHome } = slowHome()
    renderIn(storeWith({}, api), <FolderBrowser onChoose={() => {}} onClose={() => {}} />)
    const input = screen.getByTestId<HTMLInputElement>('folder-path')
    fireEvent.change(input, { target: { value: '/tmp/e2e' } })
    fireEvent.submit(input.closest('form')!)
    await waitFor(() =>
      expect(screen.getAllByTestId('folder-item').map((b) => b.textContent?.replace('▸', ''))).toContain('repo'),
    )
    releaseHome()
    await new Promise((r) => setTimeout(r, 0))
    expect(screen.getAllByTestId('folder-item').map((b) => b.textContent?.replace('▸', ''))).toContain('repo')
    expect(input.value).toBe('/tmp/e2e')
  })
})
