/**
 * How many leading and trailing items two sequences share, the tail never overlapping the head: what each diff in
 * Concord trims before it compares the changed middle (word diffs of statements, line diffs of edits).
 */
export function commonEnds<T>(a: readonly T[], b: readonly T[]): { head: number; tail: number } {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  return { head, tail }
}
