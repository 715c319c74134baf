/**
 * One piece of work at a time per key (a task tree's folder): a later call waits for the one before it to settle.
 * Bringing a tree's head over writes files beside the tree and the task's branch; two members submitting at once
 * must not interleave those steps.
 */
const tails = new Map<string, Promise<unknown>>()

export function onePerTree<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(key) ?? Promise.resolve()
  const run = before.then(work, work)
  const tail = run.catch(() => undefined)
  tails.set(key, tail)
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key)
  })
  return run
}
