/**
 * What the last "Update from <base>" did, keyed by task id. A card moves column when its task goes from accepted to
 * delivered, so the answer is kept here, where the remounted card finds it, and shown while the task is still where
 * that update left it.
 */
import { create } from 'zustand'
import type { BranchUpdate } from '../../../../shared/schemas'

export interface ShownUpdate {
  update: BranchUpdate
  /** The task's delivered commit when the update was asked for (a conflict leaves it there). */
  was: string | null
}

interface BranchUpdatesState {
  byTask: Record<string, ShownUpdate>
  record(taskId: string, shown: ShownUpdate): void
}

export const useBranchUpdates = create<BranchUpdatesState>((set) => ({
  byTask: {},
  record: (taskId, shown) => set((s) => ({ byTask: { ...s.byTask, [taskId]: shown } })),
}))

/** Whether the update still describes the task: it is at the head the update made (or, after a conflict, still at the one it had). */
export function stillShown(shown: ShownUpdate | undefined, artifact: string | null | undefined): boolean {
  if (!shown) return false
  const at = shown.update.outcome === 'conflict' ? shown.was : (shown.update.task.artifact?.commit ?? null)
  return (artifact ?? null) === at
}
