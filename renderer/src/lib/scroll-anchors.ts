import { readPref, writePref } from './local-prefs'

/**
 * Where a person left a member's session, kept per workspace and member in localStorage so that a reload lands
 * on the same rows: the step at the top of the view and how far into it the view was scrolled. No anchor means
 * the view follows the newest steps (the default). A UI preference, not data: it never reaches the core.
 */
export interface ScrollAnchor {
  /** The key of the row at the top of the view (a step id). */
  key: string
  /** Pixels from that row's top to the top of the view. */
  offset: number
}

const key = (workspaceId: string, memberId: string) => `concord.scroll.${workspaceId}.${memberId}`

export function loadAnchor(workspaceId: string, memberId: string): ScrollAnchor | null {
  try {
    const raw = JSON.parse(readPref(key(workspaceId, memberId)) ?? 'null') as Partial<ScrollAnchor> | null
    if (!raw || typeof raw.key !== 'string' || typeof raw.offset !== 'number' || !Number.isFinite(raw.offset))
      return null
    return { key: raw.key, offset: Math.max(0, raw.offset) }
  } catch {
    return null
  }
}

/** null: the view is at the newest steps (nothing to restore). */
export function saveAnchor(workspaceId: string, memberId: string, anchor: ScrollAnchor | null): void {
  writePref(key(workspaceId, memberId), anchor ? JSON.stringify(anchor) : null)
}
