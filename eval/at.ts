/**
 * The item at index `i`: the experiment addresses its members, tasks and decisions by their index in the scenario,
 * so an index with no item is a bug in the experiment, and says so here rather than as an undefined further on.
 */
export function at<T>(items: readonly T[], i: number): T {
  const item = items[i]
  if (item === undefined) throw new Error(`eval: index ${i} is outside a list of ${items.length}`)
  return item
}
