/** What a figure asks the board to show: one assignee's tasks, the flagged ones, or those on one decision. */
export interface BoardFilter {
  assigneeId?: string
  flagged?: true
  decisionId?: string
}

/**
 * A figure opens the items behind its number: the board or the reports panel, already filtered. The filter is
 * handed over once, to the panel that mounts next (clicking a tile switches the tab, so that panel mounts).
 */
let boardFilter: BoardFilter | null = null
let staleReportsOnly: boolean | null = null

export function openFiltered(intent: { board?: BoardFilter; staleReports?: boolean }): void {
  boardFilter = intent.board ?? null
  staleReportsOnly = intent.staleReports ?? null
}

/** The board's filter asked for by a figure, once. */
export function takeBoardFilter(): BoardFilter | null {
  const f = boardFilter
  boardFilter = null
  return f
}

/** Whether a figure asked the reports panel for stale reports only, once. */
export function takeStaleReportsOnly(): boolean | null {
  const s = staleReportsOnly
  staleReportsOnly = null
  return s
}
