/**
 * The setup and run commands of task trees, keyed by task id: filled by tasks.treeRuns when a card with a tree shows,
 * and kept current by the task.treeRun event (stores/events.ts), so every card reads one copy.
 */
import { create } from 'zustand'
import type { TreeRun } from '../../../../shared/schemas'

interface TreeRunsState {
  byTask: Record<string, { setup?: TreeRun; run?: TreeRun }>
  apply(run: TreeRun): void
  applyAll(taskId: string, runs: TreeRun[]): void
}

export const useTreeRuns = create<TreeRunsState>((set) => ({
  byTask: {},
  apply: (run) =>
    set((s) => {
      const cur = s.byTask[run.taskId]?.[run.kind]
      // An event older than what is shown (a fetch answered later) does not win.
      if (cur && cur.startedAt > run.startedAt) return s
      return { byTask: { ...s.byTask, [run.taskId]: { ...s.byTask[run.taskId], [run.kind]: run } } }
    }),
  applyAll: (taskId, runs) =>
    set((s) => {
      const next = { ...s.byTask[taskId] }
      for (const r of runs) if (!next[r.kind] || next[r.kind]!.startedAt <= r.startedAt) next[r.kind] = r
      return { byTask: { ...s.byTask, [taskId]: next } }
    }),
}))
