/** Small named selectors. Indexes derived from a record are cached by the record's identity. */
import type { Decision, Member, Proposal, Step, Task } from '../../../shared/schemas'
import type { AppState, SessionState } from './types'

function indexBy<T>(
  cache: WeakMap<object, Map<string, T>>,
  record: Record<string, T>,
  key: (t: T) => string,
): Map<string, T> {
  let index = cache.get(record)
  if (!index) {
    index = new Map(Object.values(record).map((v) => [key(v), v]))
    cache.set(record, index)
  }
  return index
}

const decisionKeys = new WeakMap<object, Map<string, Decision>>()
const proposalKeys = new WeakMap<object, Map<string, Proposal>>()
const taskKeys = new WeakMap<object, Map<string, Task>>()

export const decisionByKey = (key: string) => (s: AppState) => indexBy(decisionKeys, s.decisions, (d) => d.key).get(key)
export const proposalByKey = (key: string) => (s: AppState) => indexBy(proposalKeys, s.proposals, (p) => p.key).get(key)
export const taskByKey = (key: string) => (s: AppState) => indexBy(taskKeys, s.tasks, (t) => t.key).get(key)

/** The key of the decision a proposal (by key) would change. */
export function decisionKeyProposedBy(
  s: Pick<AppState, 'proposals' | 'decisions'>,
  proposalKey: string,
): string | undefined {
  const p = indexBy(proposalKeys, s.proposals, (x) => x.key).get(proposalKey)
  return p && s.decisions[p.decisionId]?.key
}

import { keyNumber } from '../../../shared/keys'
export const byKey = <T extends { key: string }>(a: T, b: T) => keyNumber(a.key) - keyNumber(b.key)

const lists = new WeakMap<object, unknown[]>()
function sortedOnce<T>(record: Record<string, T>, sort: (a: T, b: T) => number): T[] {
  let list = lists.get(record) as T[] | undefined
  if (!list) {
    list = Object.values(record).sort(sort)
    lists.set(record, list)
  }
  return list
}

export const selectDecisions = (s: AppState): Decision[] => sortedOnce(s.decisions, byKey)
export const selectProposals = (s: AppState): Proposal[] => sortedOnce(s.proposals, byKey)

const memberLists = new WeakMap<object, Member[]>()
export const selectMembers = (s: AppState): Member[] => {
  let list = memberLists.get(s.memberOrder)
  if (
    !list ||
    list.some((m, i) => {
      const id = s.memberOrder[i]
      return id === undefined || m !== s.members[id]
    })
  ) {
    list = s.memberOrder.map((id) => s.members[id]).filter((m) => m !== undefined)
    memberLists.set(s.memberOrder, list)
  }
  return list
}

export const pendingProposalCount = (s: AppState) => selectProposals(s).filter((p) => p.state === 'pending').length
export const openQuestionCount = (s: AppState) =>
  s.memberOrder.reduce((n, id) => n + (s.sessions[id]?.info.question ? 1 : 0), 0)
export const pendingApprovalCount = (s: AppState) =>
  s.memberOrder.reduce((n, id) => n + (s.sessions[id]?.info.pendingApprovals.length ?? 0), 0)

/** The workspace's flagged tasks and reports needing attention, as the server counts them (0 until it answers). */
export const flaggedTaskCount = (s: AppState) => s.counts.flaggedTasks ?? 0
export const staleReportCount = (s: AppState) => s.counts.staleReports ?? 0

export const memberName = (id: string | null | undefined) => (s: AppState) =>
  id ? (s.members[id]?.name ?? 'a former member') : 'you'

/** Where a step lives, if some loaded session holds it (for "made in" links). */
export function findStep(s: AppState, stepId: string): { memberId: string; step: Step } | null {
  for (const [memberId, session] of Object.entries<SessionState>(s.sessions)) {
    const step = session.steps.findLast((x) => x.id === stepId)
    if (step) return { memberId, step }
  }
  return null
}

const fromStepIndex = new WeakMap<object, WeakMap<object, Map<string, string[]>>>()
const noKeys: string[] = []
/** Keys of decisions and proposals recorded from a message (step), for cards under that message. */
export const recordedFrom =
  (stepId: string) =>
  (s: AppState): string[] => {
    let inner = fromStepIndex.get(s.decisions)
    if (!inner) fromStepIndex.set(s.decisions, (inner = new WeakMap()))
    let index = inner.get(s.proposals)
    if (!index) {
      index = new Map()
      for (const r of [...Object.values(s.decisions), ...Object.values(s.proposals)]) {
        if (!r.sourceMessageId) continue
        const list = index.get(r.sourceMessageId) ?? []
        list.push(r.key)
        index.set(r.sourceMessageId, list)
      }
      inner.set(s.proposals, index)
    }
    return index.get(stepId) ?? noKeys
  }
