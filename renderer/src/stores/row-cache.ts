/**
 * The `tasks` and `reports` caches: rows by id, as the server last sent them. A read answered late never puts back an
 * older row: a task by its version, and between rows of one version (a report has none) the read that began last wins.
 */
export interface RowReads {
  /** The order of a read about to be sent (later reads get larger numbers). */
  next(): number
  /** Merges rows one read brought into `cache`; the same object when nothing changed. */
  merge<T extends { id: string; version?: number }>(
    cache: Record<string, T>,
    rows: T[],
    read: number,
  ): Record<string, T>
}

/** Same content: the held object is kept, so a card whose row did not change does not render again. */
function sameRow(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

export function rowReads(): RowReads {
  let last = 0
  /** The read that last wrote each row. */
  const wroteBy = new Map<string, number>()
  return {
    next: () => ++last,
    merge(cache, rows, read) {
      let out = cache
      for (const row of rows) {
        const held = out[row.id]
        if (held) {
          const v = row.version ?? 0
          const heldV = held.version ?? 0
          if (v < heldV || (v === heldV && read < (wroteBy.get(row.id) ?? 0))) continue
        }
        wroteBy.set(row.id, read)
        if (held && sameRow(held, row)) continue
        if (out === cache) out = { ...cache }
        out[row.id] = row
      }
      return out
    },
  }
}
