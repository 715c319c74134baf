/**
 * The editor a task's tree opens in: a UI preference of this browser or app window, kept in its storage (local-prefs)
 * beside (not inside) the store's preferences, chosen from the card's menu the first time another editor is picked.
 */
import { useSyncExternalStore } from 'react'
import { Editor } from '../../../../shared/schemas'
import { readPref, writePref } from '../../lib/local-prefs'

const KEY = 'concord.editor'
const listeners = new Set<() => void>()

function read(): Editor {
  const parsed = Editor.safeParse(readPref(KEY))
  return parsed.success ? parsed.data : 'vscode'
}

/** A full or refused storage forgets the choice; the menu still opens what was picked. */
export function setEditorPref(editor: Editor): void {
  writePref(KEY, editor)
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
