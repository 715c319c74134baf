import { useApp } from '../../stores/app-store'
import { decisionByKey, proposalByKey, taskByKey } from '../../stores/selectors'
import { taskStatusWords } from '../../lib/impact'

/** An inline `D-n` / `P-n` / `T-n` that always shows the record's current state. */
export function RefChip({ refKey }: { refKey: string }) {
  const kind = refKey[0]
  const decision = useApp(decisionByKey(refKey))
  const proposal = useApp(proposalByKey(refKey))
  const task = useApp(taskByKey(refKey))
  const openDecision = useApp((s) => s.openDecision)
  const setRightTab = useApp((s) => s.setRightTab)
  if (kind === 'D' && decision) {
    return (
      <button className={`ref-chip ref-decision st-${decision.status}`} onClick={() => openDecision(decision.id)} title={`${decision.title} — ${decision.statement}`} data-ref={refKey}>
        {refKey}
        <span className="ref-ver">v{decision.version}</span>
      </button>
    )
  }
  if (kind === 'P' && proposal) {
    return (
      <button className={`ref-chip ref-proposal ps-${proposal.state}`} onClick={() => setRightTab('inbox')} title={`proposal ${proposal.state}`} data-ref={refKey}>
        {refKey}
        <span className="ref-ver">{proposal.state}</span>
      </button>
    )
  }
  if (kind === 'T' && task) {
    return (
      <button className={`ref-chip ref-task${task.flag ? ' flagged' : ''}`} onClick={() => setRightTab('tasks')} title={task.title} data-ref={refKey}>
        {refKey}
        <span className="ref-ver">{taskStatusWords[task.status]}</span>
      </button>
    )
  }
  return <span className="ref-unknown">{refKey}</span>
}
