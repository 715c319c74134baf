/**
 * Which task's attempts dialog is open ("Try it with…" or the compare view). A pick moves the task's card to another
 * column (a new card), so the open dialog is kept here, where the remounted card finds it, not in the card's state.
 */
import { create } from 'zustand'

interface AttemptsViewState {
  open: { taskId: string; mode: 'try' | 'compare' } | null
  show(taskId: string, mode: 'try' | 'compare'): void
  close(): void
}

export const useAttemptsView = create<AttemptsViewState>((set) => ({
  open: null,
  show: (taskId, mode) => set({ open: { taskId, mode } }),
  close: () => set({ open: null }),
}))
