/**
 * Undo for an archive: the archived thing leaves its list at once (its button goes with it), so the
 * offer to restore it lives here, one line at the bottom of the window for a few seconds.
 */
import { useSyncExternalStore } from 'react'
import { useAction } from '../../lib/use-action'

/** How long the Undo stays offered. */
export const UNDO_MS = 8000

export interface UndoOffer {
  id: number
  /** What was archived, in words ("T-1 Web search"). */
  what: string
  restore(): Promise<unknown>
}

let offer: UndoOffer | null = null
let timer: ReturnType<typeof setTimeout> | null = null
let nextId = 1
const listeners = new Set<() => void>()
const emit = () => listeners.forEach((l) => l())

export function offerUndo(what: string, restore: () => Promise<unknown>): void {
  if (timer) clearTimeout(timer)
  const id = nextId++
  offer = { id, what, restore }
  timer = setTimeout(() => dismissUndo(id), UNDO_MS)
  emit()
}

export function dismissUndo(id?: number): void {
  if (!offer || (id !== undefined && offer.id !== id)) return
  if (timer) clearTimeout(timer)
  offer = null
  timer = null
  emit()
}

const subscribe = (l: () => void) => {
  listeners.add(l)
  return () => listeners.delete(l)
}

/** Mounted once with the workspace screen. */
export function ArchiveUndo() {
  const current = useSyncExternalStore(
    subscribe,
    () => offer,
    () => offer,
  )
  const undo = useAction(async () => {
    if (!current) return false
    await current.restore()
    dismissUndo(current.id)
    return true
  })
  if (!current) return null
  return (
    <div className="archive-undo" role="status" data-testid="archive-undo">
      <span>{current.what} archived.</span>
      <button
        className="link-btn"
        disabled={undo.pending}
        onClick={() => void undo.run()}
        data-testid="archive-undo-button"
      >
        Undo
      </button>
      <button className="link-btn muted" onClick={() => dismissUndo(current.id)} aria-label="Dismiss">
        ×
      </button>
      {undo.error && (
        <span className="error-inline" role="alert">
          {undo.error.message}
        </span>
      )}
    </div>
  )
}
