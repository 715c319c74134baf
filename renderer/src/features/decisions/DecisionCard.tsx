import { useState } from 'react'
import type { Decision, Revision } from '../../../../shared/schemas'
import { Badge } from '../../components/ui'
import { describeImpact } from '../../lib/impact'
import { useApp } from '../../stores/app-store'
import { decisionByKey } from '../../stores/selectors'
import { DecisionEditor, type EditOutcome } from './DecisionEditor'
import { Diff } from './Diff'
import { FollowUpOffers } from './FollowUpOffers'
import { changedSince, usePinnedRevision } from '../../components/pins'
import '../../components/pins.css'

export const statusTone = { proposed: 'info', accepted: 'good', rejected: 'bad', superseded: 'neutral' } as const

/**
 * A reference card, edited in place from any chat. Live by default; given the version a message was
 * written against (`pinnedVersion`) that is no longer current, it shows that version's statement, says
 * the decision changed since, and offers the word diff to the current text. Edit always starts from the
 * current version.
 */
export function DecisionCard({
  decisionKey,
  sourceMessageId,
  pinnedVersion,
}: {
  decisionKey: string
  sourceMessageId?: string
  pinnedVersion?: number
}) {
  const decision = useApp(decisionByKey(decisionKey))
  const members = useApp((s) => s.members)
  const openDecision = useApp((s) => s.openDecision)
  const [editing, setEditing] = useState(false)
  const [outcome, setOutcome] = useState<EditOutcome | null>(null)
  const [showDiff, setShowDiff] = useState(false)
  const stale = decision !== undefined && pinnedVersion !== undefined && pinnedVersion !== decision.version
  const pinned = usePinnedRevision(stale ? decision.id : undefined, stale ? pinnedVersion : undefined)
  if (!decision) return null
  // Pinned to an older version: that version's title and status, once its revision is loaded.
  const shown = stale ? pinned : decision
  return (
    <div
      className={`dcard st-${(shown ?? decision).status}${stale ? ' dcard-pinned' : ''}`}
      data-testid="decision-card"
      data-key={decision.key}
      data-version={decision.version}
      data-pinned-version={pinnedVersion}
    >
      <div className="dcard-head">
        <span className="dkey">{decision.key}</span>
        <span className="dtitle">{shown ? shown.title : decision.title}</span>
        <span className="spacer" />
        {/* The status and version of the text shown: a message's older version is not labelled with today's. */}
        <span className="dcard-status" data-testid="dcard-status">
          {shown && <Badge tone={statusTone[shown.status]}>{shown.status}</Badge>}
        </span>
        <span className="dver" title={stale ? `the version this message was written against` : 'version'}>
          v{stale ? pinnedVersion : decision.version}
        </span>
        {!editing && (
          <CardLinks
            title={stale ? `Edit from the current version, v${decision.version}` : undefined}
            onEdit={() => {
              setOutcome(null)
              setEditing(true)
            }}
            onHistory={() => openDecision(decision.id)}
          />
        )}
      </div>
      {!editing && (
        <PinnedStatement
          decision={decision}
          pinnedVersion={pinnedVersion}
          pinned={pinned}
          stale={stale}
          showDiff={showDiff}
          setShowDiff={setShowDiff}
        />
      )}
      {outcome && !editing && (
        <div className="dcard-outcome" data-testid="edit-outcome">
          Updated to v{outcome.decision.version}. {describeImpact(outcome.impact, members)}
          <FollowUpOffers impact={outcome.impact} />
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

/** The statement shown: the current one, or the pinned version's with the change since it. */
function PinnedStatement({
  decision,
  pinnedVersion,
  pinned,
  stale,
  showDiff,
  setShowDiff,
}: {
  decision: Decision
  pinnedVersion: number | undefined
  pinned: Revision | undefined
  stale: boolean
  showDiff: boolean
  setShowDiff: (f: (v: boolean) => boolean) => void
}) {
  return (
    <>
      {stale && (
        <div className="dcard-pin" data-testid="pinned-version">
          <span className="pin-label">
            Written against v{pinnedVersion} · {changedSince(decision.version)}
          </span>
          <button
            className="link-btn"
            onClick={() => setShowDiff((v) => !v)}
            aria-pressed={showDiff}
            data-testid="pinned-diff-toggle"
            disabled={!pinned}
          >
            {showDiff ? 'Hide change' : `Show change v${pinnedVersion} → v${decision.version}`}
          </button>
        </div>
      )}
      <div
        className={`dcard-statement${showDiff ? ' dcard-diff' : ''}`}
        title={stale ? pinned?.statement : decision.statement}
        data-testid="dcard-statement"
      >
        {!stale ? (
          decision.statement
        ) : !pinned ? (
          <span className="muted">Loading v{pinnedVersion}…</span>
        ) : showDiff ? (
          <Diff before={pinned.statement} after={decision.statement} />
        ) : (
          pinned.statement
        )}
      </div>
    </>
  )
}

/** Edit in place, or open the decision's history. */
function CardLinks({ title, onEdit, onHistory }: { title: string | undefined; onEdit(): void; onHistory(): void }) {
  return (
    <span className="dcard-links">
      <button className="link-btn" onClick={onEdit} title={title}>
        Edit
      </button>
      <button className="link-btn" onClick={onHistory}>
        History
      </button>
    </span>
  )
}
