import { useApp } from '../../stores/app-store'
import './search.css'

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.userAgent)

/** The sidebar's search button: opens the command palette (also Ctrl/⌘ K), which searches records and sessions. */
export function SearchButton() {
  const workspaceId = useApp((s) => s.workspaceId)
  const setOpen = useApp((s) => s.setPaletteOpen)
  if (!workspaceId) return null
  return (
    <button
      className="search-open"
      onClick={() => setOpen(true)}
      data-testid="search-open"
      title="Search decisions, tasks, reports and messages, or run a command (Ctrl/⌘ K)"
    >
      <span aria-hidden>⌕</span>
      <span className="search-open-label">Search</span>
      <kbd>{isMac ? '⌘K' : 'Ctrl K'}</kbd>
    </button>
  )
}
