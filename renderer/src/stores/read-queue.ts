/**
 * The reads of one query (a list, a tab count), one at a time and in order: a read that starts after another is
 * answered after it, so an older answer never overwrites a newer one.
 */
export interface ReadQueue {
  /** Runs `read` once every read queued before it has ended. */
  queue(read: () => Promise<void>): Promise<void>
  /**
   * Queues `read` as a refetch. Asked while a refetch waits to start, it joins that one (its read will see what asked);
   * asked while one is reading (its read may predate what asked), it queues one more, which a burst shares.
   */
  refetch(read: () => Promise<void>): Promise<void>
}

export function readQueue(): ReadQueue {
  let tail: Promise<void> = Promise.resolve()
  let waiting: Promise<void> | null = null
  const queue = (read: () => Promise<void>) => {
    const run = tail.then(read)
    tail = run.catch(() => undefined)
    return run
  }
  return {
    queue,
    refetch(read) {
      // The queued function runs in a later microtask at the earliest: `waiting` is set before it clears it.
      waiting ??= queue(() => {
        waiting = null
        return read()
      })
      return waiting
    },
  }
}
