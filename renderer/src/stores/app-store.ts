/** The one renderer store: slices combined once, persistence (UI preferences only) on the combined store. */
import { createContext, useContext } from 'react'
import { useStore } from 'zustand'
import { createStore } from 'zustand/vanilla'
import type { ClientApi } from '../api/bridge-client'
import { createHarnessSlice } from './harness-slice'
import { createListsSlice } from './lists-slice'
import { createMembersSlice } from './members-slice'
import { createSessionsSlice } from './sessions-slice'
import type { AppState, AppStore, RightTab, Theme } from './types'
import { createUiSlice } from './ui-slice'
import { createWorkspaceSlice } from './workspace-slice'

export interface StoreOptions {
  /** Persist UI preferences in localStorage (off in tests). */
  persist?: boolean
  /** The desktop app: folders are chosen in the system's dialog. */
  nativeDialogs?: boolean
}

export function createAppStore(api: ClientApi, options: StoreOptions = {}): AppStore {
  const init = (set: AppStore['setState'], get: AppStore['getState']): AppState => ({
    api,
    nativeDialogs: options.nativeDialogs ?? false,
    ...createWorkspaceSlice(set, get, api),
    ...createMembersSlice(set, get, api),
    ...createSessionsSlice(set, get, api),
    ...createHarnessSlice(set, get, api),
    ...createListsSlice(set, get, api),
    ...createUiSlice(set, get, api),
  })
  if (!options.persist) return createStore<AppState>()((set, get) => init(set, get))
  const store = createStore<AppState>()((set, get) => ({ ...init(set, get), ...loadPrefs(localStorage) }))
  keepPrefs(store, localStorage)
  return store
}

/** The UI preferences kept across reloads (never any workspace data). */
type Prefs = Pick<AppState, 'theme' | 'lastWorkspaceId' | 'lastMemberId' | 'rightTab' | 'panelOpen' | 'notifyDesktop'>
const PREFS_KEY = 'concord.ui'
const themes: Theme[] = ['system', 'light', 'dark']
const tabs: RightTab[] = ['decisions', 'tasks', 'reports', 'inbox', 'figures']

/** Reads the saved preferences, keeping only well-formed fields (the format zustand's persist wrote). */
export function loadPrefs(storage: Storage): Partial<Prefs> {
  try {
    const saved = JSON.parse(storage.getItem(PREFS_KEY) ?? 'null') as {
      state?: Record<string, unknown>
      version?: number
    } | null
    const p = saved?.version === 1 ? (saved.state ?? {}) : {}
    const out: Partial<Prefs> = {}
    if (themes.includes(p.theme as Theme)) out.theme = p.theme as Theme
    if (tabs.includes(p.rightTab as RightTab)) out.rightTab = p.rightTab as RightTab
    if (typeof p.panelOpen === 'boolean') out.panelOpen = p.panelOpen
    if (typeof p.lastWorkspaceId === 'string') out.lastWorkspaceId = p.lastWorkspaceId
    if (typeof p.lastMemberId === 'string') out.lastMemberId = p.lastMemberId
    if (typeof p.notifyDesktop === 'boolean') out.notifyDesktop = p.notifyDesktop
    return out
  } catch {
    return {}
  }
}

/**
 * Writes the preferences when one of them changes. (zustand's persist middleware serialized and wrote
 * them on every state change, streamed text included: dozens of localStorage writes a second.)
 */
export function keepPrefs(store: AppStore, storage: Storage): () => void {
  const pick = (s: AppState): Prefs => ({
    theme: s.theme,
    lastWorkspaceId: s.lastWorkspaceId,
    lastMemberId: s.lastMemberId,
    rightTab: s.rightTab,
    panelOpen: s.panelOpen,
    notifyDesktop: s.notifyDesktop,
  })
  let last = pick(store.getState())
  return store.subscribe((s) => {
    if (
      s.theme === last.theme &&
      s.lastWorkspaceId === last.lastWorkspaceId &&
      s.lastMemberId === last.lastMemberId &&
      s.rightTab === last.rightTab &&
      s.panelOpen === last.panelOpen &&
      s.notifyDesktop === last.notifyDesktop
    )
      return
    last = pick(s)
    try {
      storage.setItem(PREFS_KEY, JSON.stringify({ state: last, version: 1 }))
    } catch {
      // A full or refused storage only loses the preferences.
    }
  })
}

export const StoreContext = createContext<AppStore | null>(null)

export function useAppStore(): AppStore {
  const store = useContext(StoreContext)
  if (!store) throw new Error('useApp outside <StoreContext.Provider>')
  return store
}

/** Reads a slice of the store; the selector must return a stable value (use useShallow for objects). */
export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useAppStore(), selector)
}
