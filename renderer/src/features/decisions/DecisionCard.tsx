import { useState } from 'react'
import { Badge } from '../../components/ui'
import { describeImpact } from '../../lib/impact'
import { useApp } from '../../stores/app-store'
import { decisionByKey } from '../../stores/selectors'
import { DecisionEditor, type EditOutcome } from './DecisionEditor'

export const statusTone = { proposed: 'info', accepted: 'good', rejected: 'bad', superseded: 'neutral' } as const

/** A live reference card: always the decision's current text; edited in place from any chat. */
export function DecisionCard({ decisionKey, sourceMessageId }: { decisionKey: string; sourceMessageId?: string }) {
  const decision = useApp(decisionByKey(decisionKey))
  const members = useApp((s) => s.members)
  const openDecision = useApp((s) => s.openDecision)
  const [editing, setEditing] = useState(false)
  const [outcome, setOutcome] = useState<EditOutcome | null>(null)
  if (!decision) return null
  return (
    <div className={`dcard st-${decision.status}`} data-testid="decision-card" data-key={decision.key} data-version={decision.version}>
      <div className="dcard-head">
        <span className="dkey">{decision.key}</span>
        <span className="dtitle">{decision.title}</span>
        <span className="spacer" />
        <Badge tone={statusTone[decision.status]}>{decision.status}</Badge>
        <span className="dver" title="version">
          v{decision.version}
        </span>
        {!editing && (
          <span className="dcard-links">
            <button
              className="link-btn"
              onClick={() => {
                setOutcome(null)
                setEditing(true)
              }}
            >
              Edit
            </button>
            <button className="link-btn" onClick={() => openDecision(decision.id)}>
              History
            </button>
          </span>
        )}
      </div>
      {!editing && (
        <div className="dcard-statement" title={decision.statement}>
          {decision.statement}
        </div>
      )}
      {outcome && !editing && (
        <div className="dcard-outcome" data-testid="edit-outcome">
          Updated to v{outcome.decision.version}. {describeImpact(outcome.impact, members)}
        </div>
      )}
      {editing ? (
        <DecisionEditor
          decision={decision}
          sourceMessageId={sourceMessageId}
          onCancel={() => setEditing(false)}
          onDone={(o) => {
            setOutcome(o)
            setEditing(false)
          }}
        />
      ) : null}
    </div>
  )
}
