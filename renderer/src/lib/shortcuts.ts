/** Keyboard shortcuts: one table, matched by a pure function (the App binds it to window keydown). */
export type ShortcutAction =
  | { type: 'member'; index: number }
  | { type: 'prevMember' }
  | { type: 'nextMember' }
  | { type: 'focusComposer' }
  | { type: 'palette' }
  | { type: 'toggleTeam' }
  | { type: 'togglePanel' }
  | { type: 'help' }
  | { type: 'escape' }

export interface KeyLike {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  shiftKey: boolean
  /** True when the key went to a text field (plain-letter shortcuts must not fire there). */
  inField: boolean
}

export const shortcutHelp: { keys: string; what: string }[] = [
  { keys: 'Ctrl/⌘ 1 – 9', what: 'Switch to member 1 – 9' },
  { keys: 'Alt ↑ / Alt ↓', what: 'Previous / next member' },
  { keys: 'Ctrl/⌘ K', what: 'Search decisions, tasks, reports and messages; run a command' },
  { keys: '/', what: 'Focus the message box' },
  { keys: 'Alt T', what: 'Team view: all sessions side by side' },
  { keys: 'Alt P', what: 'Show or hide the right panel' },
  { keys: 'Ctrl/⌘ Shift F', what: 'Search (the same as Ctrl/⌘ K)' },
  { keys: 'Enter / Shift Enter', what: 'Send / new line' },
  { keys: '?', what: 'This list' },
  { keys: 'Esc', what: 'Close a dialog' },
]

export function matchShortcut(e: KeyLike): ShortcutAction | null {
  const mod = e.ctrlKey || e.metaKey
  if (e.key === 'Escape') return { type: 'escape' }
  if (mod && !e.altKey && !e.shiftKey && /^[1-9]$/.test(e.key)) return { type: 'member', index: Number(e.key) - 1 }
  if (e.altKey && !mod && e.key === 'ArrowUp') return { type: 'prevMember' }
  if (e.altKey && !mod && e.key === 'ArrowDown') return { type: 'nextMember' }
  if (mod && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') return { type: 'palette' }
  if (mod && !e.altKey && e.shiftKey && e.key.toLowerCase() === 'f') return { type: 'palette' }
  if (e.altKey && !mod && (e.key.toLowerCase() === 't' || e.key === '†')) return { type: 'toggleTeam' }
  if (e.altKey && !mod && (e.key.toLowerCase() === 'p' || e.key === 'π')) return { type: 'togglePanel' }
  if (!e.inField && !mod && !e.altKey) {
    if (e.key === '/') return { type: 'focusComposer' }
    if (e.key === '?') return { type: 'help' }
  }
  return null
}
