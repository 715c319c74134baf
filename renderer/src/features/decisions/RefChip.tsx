import { keyKind } from '../../../../shared/keys'
import { useApp } from '../../stores/app-store'
import { decisionByKey, proposalByKey, taskByKey } from '../../stores/selectors'
import { taskStatusWords } from '../../lib/impact'
import { changedSince, decisionChipView, usePinnedVersion } from './pins'
import './pins.css'

/**
 * An inline `D-n` / `P-n` / `T-n`. A decision shows the version the step was written against (its pin, or
 * the version its text names: "D-1 v1") and, when the decision has moved on, that it changed since;
 * unpinned, the current version. A task's status is in its title, not in the sentence: "T-1 was
 * delivered" in an old message does not read "T-1 in progress was delivered".
 */
export function RefChip({ refKey, writtenVersion }: { refKey: string; writtenVersion?: number }) {
  const kind = keyKind(refKey)
  const decision = useApp(decisionByKey(refKey))
  const proposal = useApp(proposalByKey(refKey))
  const task = useApp(taskByKey(refKey))
  const pinnedByStep = usePinnedVersion(refKey)
  const pinned = writtenVersion ?? pinnedByStep
  const openDecision = useApp((s) => s.openDecision)
  const setRightTab = useApp((s) => s.setRightTab)
  if (kind === 'decision' && decision) {
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
  if (kind === 'proposal' && proposal) {
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
  if (kind === 'task' && task) {
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
  return <span className="ref-unknown">{refKey}</span>
}
