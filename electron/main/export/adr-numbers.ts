/**
 * The ADR numbers of a whole workspace, held compact for the export download: a file's links name other decisions by
 * number and file, so every decision is numbered before the first file is rendered. Kept as a ref object per decision
 * in a Map (100,000 of them) they were young objects every scavenge copied while the Map grew, and those pauses were
 * the download's longest event-loop stalls (issue 32); two typed arrays hold the same in 16 bytes a decision.
 */
import { parseKey } from '../../../shared/keys'
import type { AdrRef } from './adr-model'
import { adrFileName } from './madr'
import type { DecisionDoc } from './schema'

/** The row of a decision id (`D-7` → 7), or null. */
function decisionRow(id: string): number | null {
  const key = parseKey(id)
  return key?.kind === 'decision' ? key.n : null
}

export class AdrNumbers {
  private rows: Float64Array = new Float64Array(1024)
  private numbers: Float64Array = new Float64Array(1024)
  private length = 0

  /** A decision's number; decisions come in creation order (ascending ids). */
  add(id: string, number: number): void {
    const row = decisionRow(id)
    if (row === null || (this.length && row <= this.rows[this.length - 1]!))
      throw new Error(`decision ${id} is out of order or not a decision id`)
    if (this.length === this.rows.length) {
      this.rows = grown(this.rows)
      this.numbers = grown(this.numbers)
    }
    this.rows[this.length] = row
    this.numbers[this.length++] = number
  }

  /** The number of decision `id`, or undefined when it has none. */
  get(id: string): number | undefined {
    const row = decisionRow(id)
    if (row === null) return undefined
    let lo = 0
    let hi = this.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const at = this.rows[mid]!
      if (at === row) return this.numbers[mid]
      if (at < row) lo = mid + 1
      else hi = mid - 1
    }
    return undefined
  }
}

function grown(a: Float64Array): Float64Array {
  const b = new Float64Array(a.length * 2)
  b.set(a)
  return b
}

/**
 * The refs one page of ADR files needs (AdrContext.refs): its decisions', and those of the decisions they supersede
 * or are superseded by, whose titles `titleOf` reads. Built per page and dropped with it.
 */
export function pageRefs(
  page: readonly DecisionDoc[],
  numbers: AdrNumbers,
  titleOf: (id: string) => string | undefined,
): Map<string, AdrRef> {
  const refs = new Map<string, AdrRef>()
  const put = (id: string, title: string | undefined) => {
    const number = numbers.get(id)
    if (number !== undefined && title !== undefined)
      refs.set(id, { id, number, file: adrFileName(number, title), title })
  }
  for (const d of page) put(d.id, d.title)
  for (const d of page)
    for (const other of [d.supersedes, d.supersededBy])
      if (other !== null && !refs.has(other)) put(other, titleOf(other))
  return refs
}
