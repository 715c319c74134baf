import { useEffect } from 'react'
import { useApp } from '../stores/app-store'

/** Where the right panel is a drawer over the session (styles.css, 960 px). */
export const DRAWER_QUERY = '(max-width: 960px)'

/**
 * In a narrow window the right panel is a drawer over the chat: it opens when asked for (a chip, a tab, Alt P,
 * the ‹ button), not on arrival or when the window narrows.
 */
export function useNarrowDrawer(): void {
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  useEffect(() => {
    const media = window.matchMedia?.(DRAWER_QUERY)
    if (!media) return
    const fold = () => {
      if (media.matches) setPanelOpen(false)
    }
    fold()
    media.addEventListener?.('change', fold)
    return () => media.removeEventListener?.('change', fold)
  }, [setPanelOpen])
}
