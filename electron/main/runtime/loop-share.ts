/**
 * Long synchronous pieces of the runtime (a turn's brief and model request, a slice of automatic-turn work) each get
 * a turn of the event loop of their own. setImmediate alone does not give that: every callback queued before the
 * check phase runs in that one phase, so three members starting a turn at once (one send each, or three git
 * snapshots answering together) ran their preparations back to back, one long stall for streaming, the bridge and
 * every other call. Here waiters are let go one per loop iteration, in arrival order, and timers and I/O run between.
 */

const waiting: (() => void)[] = []
let scheduled = false

function release(): void {
  scheduled = false
  waiting.shift()?.()
  // Queued from the check phase, the next release runs in the next iteration, after its timers and I/O.
  if (waiting.length) schedule()
}

function schedule(): void {
  if (scheduled) return
  scheduled = true
  setImmediate(release)
}

/** Resolves in a turn of the event loop that no other waiter shares (the work after it runs there). */
export function loopTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    schedule()
  })
}
