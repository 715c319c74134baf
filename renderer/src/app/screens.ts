/**
 * The workspace screen's chunk (app/Workspace.tsx): App renders it once loaded, main.tsx starts loading it early.
 * Not React.lazy with Suspense: React holds a resolved boundary's content back up to 300 ms after its fallback
 * was shown (to batch reveals), which was 300 ms of every start that opened a workspace.
 */
import { useSyncExternalStore } from 'react'

type Screen = typeof import('./Workspace')

let screen: Screen | null = null
let failure: Error | null = null
let loading: Promise<Screen> | null = null
const listeners = new Set<() => void>()
const changed = () => listeners.forEach((f) => f())

export function loadWorkspaceScreen(): Promise<Screen> {
  return (loading ??= import('./Workspace').then(
    (m) => {
      screen = m
      failure = null
      changed()
      return m
    },
    (err: unknown) => {
      // The next call tries again (a server that was restarted serves the chunk again).
      loading = null
      failure = err instanceof Error ? err : new Error(String(err))
      changed()
      throw failure
    },
  ))
}

const subscribe = (f: () => void) => {
  listeners.add(f)
  return () => listeners.delete(f)
}
const snapshot = () => ({ screen, failure })
let last = snapshot()

/** The loaded module (null until then) and the last load's failure. */
export function useWorkspaceScreen(): { screen: Screen | null; failure: Error | null } {
  return useSyncExternalStore(subscribe, () => {
    if (last.screen !== screen || last.failure !== failure) last = snapshot()
    return last
  })
}
