/** The one renderer store: slices combined once, persistence (UI preferences only) on the combined store. */
import { createContext, useContext } from 'react'
import { useStore } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'
import { createStore } from 'zustand/vanilla'
import type { ClientApi } from '../api/bridge-client'
import { createHarnessSlice } from './harness-slice'
import { createMembersSlice } from './members-slice'
import { createSessionsSlice } from './sessions-slice'
import type { AppState, AppStore } from './types'
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
    ...createUiSlice(set, get, api),
  })
  if (!options.persist) return createStore<AppState>()((set, get) => init(set, get))
  return createStore<AppState>()(
    persist((set, get) => init(set, get), {
      name: 'concord.ui',
      version: 1,
      storage: createJSONStorage(() => localStorage),
      partialize: (s) => ({ theme: s.theme, lastWorkspaceId: s.lastWorkspaceId, rightTab: s.rightTab, panelOpen: s.panelOpen }),
    }),
  )
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
