// @vitest-environment happy-dom
/**
 * The highlighter is not part of the first screen's script: code shows plain until it has loaded, then the
 * blocks already on screen render again, highlighted, without being mounted again.
 */
import { act, cleanup, render } from '@testing-library/react'
import { afterEach, expect, it } from 'vitest'
import { Markdown } from '../../renderer/src/components/Markdown'
import { loadHighlighter } from '../../renderer/src/components/markdown-render'
import { createAppStore, StoreContext } from '../../renderer/src/stores/app-store'
import type { ClientApi } from '../../renderer/src/api/bridge-client'

afterEach(cleanup)

const api = {
  call: () => Promise.reject(new Error('no api here')),
  onEvent: () => () => {},
  onConnection: () => () => {},
  close: () => {},
} as unknown as ClientApi

it('shows code plain until the highlighter has loaded, then highlighted in place', async () => {
  const store = createAppStore(api)
  const { container } = render(
    <StoreContext.Provider value={store}>
      <Markdown text={'Here:\n\n```ts\nexport const a: number = 1\n```'} />
    </StoreContext.Provider>,
  )
  const code = () => container.querySelector('pre code')!
  expect(code().textContent).toBe('export const a: number = 1\n')
  expect(container.querySelector('.hljs-keyword')).toBeNull()
  const block = container.querySelector('pre')
  await act(() => loadHighlighter())
  expect(container.querySelector('pre code.hljs .hljs-keyword')?.textContent).toBe('export')
  // The same element, rendered again: not a new mount.
  expect(container.querySelector('pre')?.parentElement).toBe(block?.parentElement)
  expect(code().textContent).toBe('export const a: number = 1\n')
})
