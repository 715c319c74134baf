/**
 * One string per key in this browser's (or app window's) localStorage, for UI preferences that never reach the
 * core. Storage can be switched off (privacy settings) or full: reads then find nothing and writes are dropped, and
 * the view goes on with what it holds.
 */
function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage
  } catch {
    return null
  }
}

export function readPref(key: string): string | null {
  try {
    return storage()?.getItem(key) ?? null
  } catch {
    return null
  }
}

/** null (or ''): the key goes. */
export function writePref(key: string, value: string | null): void {
  const s = storage()
  if (!s) return
  try {
    if (value) s.setItem(key, value)
    else s.removeItem(key)
  } catch {
    // Quota full: the preference is not kept.
  }
}
