import { keyKind } from '../../../shared/keys'
import type { Decision, Proposal, Task } from '../../../shared/schemas'
import { useApp } from '../stores/app-store'
import { decisionByKey, proposalByKey, taskByKey } from '../stores/selectors'
import { taskStatusWords } from '../lib/impact'
import { changedSince, decisionChipView, mergedOn, usePinnedVersion, type DecisionChipView } from './pins'
import './pins.css'

/**
 * An inline `D-n` / `P-n` / `T-n`. A decision shows the version the step was written against (its pin, or
 * the version its text names: "D-1 v1") and, when the decision has moved on, that it changed since;
 * unpinned, the current version. A task's status is in its title, not in the sentence: "T-1 was
 * delivered" in an old message does not read "T-1 in progress was delivered". `mergedOn`: the chip of a merged
 * task's link, the version its code was merged on and the current one when the content moved on since
 * ("merged on D-1 v2 · now v3"; an edit back to that content makes it "merged on D-1 v2" again).
 */
export function RefChip({
  refKey,
  writtenVersion,
  mergedOn: merged,
}: {
  refKey: string
  writtenVersion?: number
  mergedOn?: DecisionChipView
}) {
  const kind = keyKind(refKey)
  const decision = useApp(decisionByKey(refKey))
  const proposal = useApp(proposalByKey(refKey))
  const task = useApp(taskByKey(refKey))
  const pinnedByStep = usePinnedVersion(refKey)
  const pinned = writtenVersion ?? pinnedByStep
  if (kind === 'decision' && decision) {
    return merged ? (
      <MergedOnChip refKey={refKey} decision={decision} merged={merged} />
    ) : (
      <DecisionChip refKey={refKey} decision={decision} pinned={pinned} />
    )
  }
  if (kind === 'proposal' && proposal) return <ProposalChip refKey={refKey} proposal={proposal} />
  if (kind === 'task' && task) return <TaskChip refKey={refKey} task={task} />
  return <span className="ref-unknown">{refKey}</span>
}

/** The version the step was written against, and that the decision changed since when it did. */
function DecisionChip({
  refKey,
  decision,
  pinned,
}: {
  refKey: string
  decision: Decision
  pinned: number | undefined
}) {
  const openDecision = useApp((s) => s.openDecision)
  const view = decisionChipView(decision.version, pinned)
  const changed = view.nowVersion !== null
  return (
    <button
      className={`ref-chip ref-decision st-${decision.status}${changed ? ' ref-changed' : ''}`}
      onClick={() => openDecision(decision.id)}
      title={
        changed
          ? `${refKey} v${view.version} — ${changedSince(view.nowVersion!)}: ${decision.title} — ${decision.statement}`
          : `${decision.title} — ${decision.statement}`
      }
      data-ref={refKey}
      data-version={view.version}
      data-changed={changed ? view.nowVersion! : undefined}
    >
      {refKey}
      <span className="ref-ver">v{view.version}</span>
      {changed && <span className="ref-since">{changedSince(view.nowVersion!)}</span>}
    </button>
  )
}

/** A merged task's link: the version its code was merged on, and the current one when the content moved on. */
function MergedOnChip({ refKey, decision, merged }: { refKey: string; decision: Decision; merged: DecisionChipView }) {
  const openDecision = useApp((s) => s.openDecision)
  const changed = merged.nowVersion !== null
  return (
    <button
      className={`ref-chip ref-decision ref-merged st-${decision.status}${changed ? ' ref-changed' : ''}`}
      onClick={() => openDecision(decision.id)}
      title={`${mergedOn(refKey, merged)}: the base branch has code written for ${refKey} v${merged.version} — ${decision.title}: ${decision.statement}`}
      data-ref={refKey}
      data-version={merged.version}
      data-changed={changed ? merged.nowVersion! : undefined}
      data-testid="merged-on-chip"
    >
      {mergedOn(refKey, merged)}
    </button>
  )
}

function ProposalChip({ refKey, proposal }: { refKey: string; proposal: Proposal }) {
  const setRightTab = useApp((s) => s.setRightTab)
  return (
    <button
      className={`ref-chip ref-proposal ps-${proposal.state}`}
      onClick={() => setRightTab('inbox')}
      title={`proposal ${proposal.state}`}
      data-ref={refKey}
    >
      {refKey}
      <span className="ref-ver">{proposal.state}</span>
    </button>
  )
}

/** Its status in the title only: "T-1 was delivered" in an old message must not read "T-1 in progress was delivered". */
function TaskChip({ refKey, task }: { refKey: string; task: Task }) {
  const setRightTab = useApp((s) => s.setRightTab)
  return (
    <button
      className={`ref-chip ref-task ts-${task.status}${task.flag ? ' flagged' : ''}`}
      onClick={() => setRightTab('tasks')}
      title={`${task.title} — now ${taskStatusWords[task.status]}`}
      data-ref={refKey}
      data-status={task.status}
    >
      {refKey}
    </button>
  )
}
