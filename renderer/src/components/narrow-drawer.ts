import { useCallback, useEffect } from 'react'
import { useApp } from '../stores/app-store'

/** Where the right panel is a drawer over the session (styles.css, 960 px). */
export const DRAWER_QUERY = '(max-width: 960px)'

/**
 * Opened in a narrow window, the workspace screen starts with the right panel folded: it is a drawer over the chat
 * there, opened when asked for (a chip, a tab, Alt P, the ‹ button). Resizing later leaves it as the user had it.
 */
export function useNarrowDrawer(): void {
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  useEffect(() => {
    if (window.matchMedia?.(DRAWER_QUERY).matches) setPanelOpen(false)
  }, [setPanelOpen])
}

/** Where the panel is a drawer over the session: folds it, for an action that opens a session from the panel. */
export function foldDrawer(setPanelOpen: (open: boolean) => void): void {
  if (window.matchMedia?.(DRAWER_QUERY).matches) setPanelOpen(false)
}

/**
 * Where the panel is a drawer over the chat, a press in the chat folds it: the chat is the user's again, whole — a
 * decision card's Edit and its inline editor were cut in half under it (issue 31). Wide windows keep it open.
 */
export function useFoldDrawerOnPress(): () => void {
  const panelOpen = useApp((s) => s.panelOpen)
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  return useCallback(() => {
    if (panelOpen && window.matchMedia?.(DRAWER_QUERY).matches) setPanelOpen(false)
  }, [panelOpen, setPanelOpen])
}
