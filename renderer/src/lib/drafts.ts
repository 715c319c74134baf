import { readPref, writePref } from './local-prefs'

/**
 * What a person was typing to a member, kept per workspace and member in localStorage: it survives switching
 * members and reloads, and goes when the message is sent. A UI preference, not data: it never reaches the core.
 */
const key = (workspaceId: string, memberId: string) => `concord.draft.${workspaceId}.${memberId}`

export function loadDraft(workspaceId: string, memberId: string): string {
  return readPref(key(workspaceId, memberId)) ?? ''
}

/** An empty text forgets the draft. */
export function saveDraft(workspaceId: string, memberId: string, text: string): void {
  writePref(key(workspaceId, memberId), text)
}

export function clearDraft(workspaceId: string, memberId: string): void {
  saveDraft(workspaceId, memberId, '')
}
