/**
 * Work on a workspace run off its caller's path, one pass at a time: asked for while a pass runs, it runs once more
 * after that one (however often it was asked meanwhile). The merge queue (tasks/merge-queue.ts) and the check of the
 * tasks against the base (workspace/base-moves.ts) run this way.
 */
import type { Ctx } from './context'
import type { Harness } from './harness'

/** A workspace's pass: the one running now, and whether another was asked for meanwhile. */
export interface Pass {
  running: Promise<void> | null
  again: boolean
}

export interface PassWork {
  /** True once the harness closed: a pass still running then ends quietly. */
  closed: () => boolean
  run: (ctx: Ctx) => Promise<void>
  /** A pass failed while the harness was open (what a closed store throws is for it to pass over). */
  failed: (err: unknown) => void
}

/** Runs a pass of `work` on the workspace, or asks the running one to run once more; never throws. */
export function runOnePass(h: Harness, wsId: string, pass: Pass, work: PassWork): Promise<void> {
  if (pass.running) {
    pass.again = true
    return pass.running
  }
  const passes = async (): Promise<void> => {
    do {
      pass.again = false
      if (work.closed()) return
      try {
        const ctx = h.ctx(wsId)
        if (!ctx.store.db.open) return
        await work.run(ctx)
      } catch (err) {
        if (!work.closed()) work.failed(err)
      }
    } while (pass.again)
  }
  pass.running = passes().finally(() => {
    pass.running = null
  })
  return pass.running
}
