/**
 * The setup and run commands of task trees, keyed by task id: filled by tasks.treeRuns when a card with a tree shows,
 * and kept current by the task.treeRun event (stores/events.ts), so every card reads one copy.
 */
import { create } from 'zustand'
import type { TreeRun } from '../../../shared/schemas'

interface TreeRunsState {
  byTask: Record<string, { setup?: TreeRun; run?: TreeRun }>
  apply(run: TreeRun): void
  applyAll(taskId: string, runs: TreeRun[]): void
}

/**
 * Whether `next` may replace what is shown. A later start wins; for the same start, a record of the run running
 * never replaces its end: an answer (tasks.treeRuns, tasks.run) read while the command ran can arrive after the
 * event that said it ended, and the card would then show "running" for ever.
 */
export function replaces(shown: TreeRun | undefined, next: TreeRun): boolean {
  if (!shown || next.startedAt > shown.startedAt) return true
  if (next.startedAt < shown.startedAt) return false
  return next.endedAt !== null || shown.endedAt === null
}

export const useTreeRuns = create<TreeRunsState>((set) => ({
  byTask: {},
  apply: (run) =>
    set((s) => {
      if (!replaces(s.byTask[run.taskId]?.[run.kind], run)) return s
      return { byTask: { ...s.byTask, [run.taskId]: { ...s.byTask[run.taskId], [run.kind]: run } } }
    }),
  applyAll: (taskId, runs) =>
    set((s) => {
      const next = { ...s.byTask[taskId] }
      for (const r of runs) if (replaces(next[r.kind], r)) next[r.kind] = r
      return { byTask: { ...s.byTask, [taskId]: next } }
    }),
}))
