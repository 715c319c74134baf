/**
 * The reports one edit of a decision (content `from` → `to`) touches, derived from the immutable pins:
 * claims and basis entries pinned to `from` leave (stale, suspect), those pinned to `to` come back
 * (restored). Only reports that existed at the edit (id ≤ last) count, so the same answer holds later.
 */
import type { ReadableStore } from '../../store/readable-store'

export interface TouchedReport {
  id: number
  taskId: number
  authorId: number | null
  claimCount: number
  /** Claims made stale / restored by the edit. */
  stale: number
  restored: number
  /** Its basis entry on the decision was at `from` (now suspect). */
  leaving: boolean
}

export interface EditPins {
  decisionId: number
  from: string
  to: string
  /** The newest report when the edit was made. */
  last: number
}

/** Touched reports with id in (after, last], ascending; at most `limit` (-1: all). */
export function touchedReports(
  store: ReadableStore,
  e: EditPins,
  after: number,
  limit = -1,
  pinned?: { from: boolean; to: boolean },
): TouchedReport[] {
  const r = store.reportPins
  // A content no report is pinned to (the new one, mostly) needs no reading: the kept pin figures say so.
  const none = { ids: [], counts: [], tasks: [], authors: [], claimCounts: [] }
  const fromPinned = pinned?.from ?? r.pinTotals(e.decisionId, e.from).reports > 0
  const toPinned = pinned?.to ?? r.pinTotals(e.decisionId, e.to).reports > 0
  const stale = fromPinned ? r.pinnedClaims(e.decisionId, e.from, after, e.last, limit) : none
  const restored = toPinned ? r.pinnedClaims(e.decisionId, e.to, after, e.last, limit) : none
  const leaving = fromPinned ? r.pinnedBasis(e.decisionId, e.from, after, e.last, limit) : none
  const back = toPinned ? r.pinnedBasis(e.decisionId, e.to, after, e.last, limit) : none
  // Four ascending id lists; one linear merge joins them (the first `limit` of the union lie within the first `limit` of each).
  const out: TouchedReport[] = []
  const headless: TouchedReport[] = []
  let i = 0
  let j = 0
  let k = 0
  let m = 0
  while (limit < 0 || out.length < limit) {
    const id = Math.min(
      stale.ids[i] ?? Infinity,
      restored.ids[j] ?? Infinity,
      leaving.ids[k] ?? Infinity,
      back.ids[m] ?? Infinity,
    )
    if (id === Infinity) break
    const t: TouchedReport = { id, taskId: 0, authorId: null, claimCount: 0, stale: 0, restored: 0, leaving: false }
    let head = false
    if (stale.ids[i] === id) t.stale = stale.counts[i++] ?? 0
    if (restored.ids[j] === id) t.restored = restored.counts[j++] ?? 0
    if (leaving.ids[k] === id) {
      t.leaving = true
      head = setHead(t, leaving, k++)
    }
    if (back.ids[m] === id) head = setHead(t, back, m++) || head
    if (!head) headless.push(t)
    out.push(t)
  }
  // Claims on a decision the report's basis does not name: their heads in one read.
  if (headless.length) {
    const heads = new Map(store.reports.heads(headless.map((t) => t.id)).map((h) => [h.id, h]))
    for (const t of headless) {
      const h = heads.get(t.id)
      if (h) Object.assign(t, { taskId: h.task_id, authorId: h.author_id, claimCount: h.claim_count })
    }
  }
  return out
}

function setHead(t: TouchedReport, b: ReturnType<ReadableStore['reportPins']['pinnedBasis']>, at: number): boolean {
  t.taskId = b.tasks[at] ?? 0
  t.authorId = b.authors[at] ?? null
  t.claimCount = b.claimCounts[at] ?? 0
  return true
}

/** The claim ids the edit made stale and restored, for reports in (after, upTo]. */
export function touchedClaims(store: ReadableStore, e: EditPins, after: number, upTo: number) {
  const r = store.reportPins
  const ids = (fingerprint: string) =>
    r.pinTotals(e.decisionId, fingerprint).claims > 0
      ? r.pinnedClaimIds(e.decisionId, fingerprint, after, upTo)
      : new Map<number, number[]>()
  return { stale: ids(e.from), restored: ids(e.to) }
}
