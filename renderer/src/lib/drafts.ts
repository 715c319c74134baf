/**
 * What a person was typing to a member, kept per workspace and member in localStorage: it survives switching
 * members and reloads, and goes when the message is sent. A UI preference, not data: it never reaches the core.
 */
const key = (workspaceId: string, memberId: string) => `concord.draft.${workspaceId}.${memberId}`

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage
  } catch {
    // Storage can be switched off (privacy settings): drafts then live only as long as the view.
    return null
  }
}

export function loadDraft(workspaceId: string, memberId: string): string {
  return storage()?.getItem(key(workspaceId, memberId)) ?? ''
}

export function saveDraft(workspaceId: string, memberId: string, text: string): void {
  const s = storage()
  if (!s) return
  try {
    if (text) s.setItem(key(workspaceId, memberId), text)
    else s.removeItem(key(workspaceId, memberId))
  } catch {
    // Quota full: the draft is not kept, typing goes on.
  }
}

export function clearDraft(workspaceId: string, memberId: string): void {
  saveDraft(workspaceId, memberId, '')
}
