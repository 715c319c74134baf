/**
 * The editor a task's tree opens in: a UI preference of this browser or app window, kept in localStorage beside (not
 * inside) the store's preferences, chosen from the card's menu the first time another editor is picked.
 */
import { useSyncExternalStore } from 'react'
import { Editor } from '../../../../shared/schemas'

const KEY = 'concord.editor'
const listeners = new Set<() => void>()

function read(): Editor {
  try {
    const parsed = Editor.safeParse(localStorage.getItem(KEY))
    return parsed.success ? parsed.data : 'vscode'
  } catch {
    return 'vscode'
  }
}

export function setEditorPref(editor: Editor): void {
  try {
    localStorage.setItem(KEY, editor)
  } catch {
    // A full or refused storage forgets the choice; the menu still opens what was picked.
  }
  for (const l of listeners) l()
}

export function useEditorPref(): Editor {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l)
      return () => listeners.delete(l)
    },
    read,
    () => 'vscode',
  )
}
