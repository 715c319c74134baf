import { useEffect, useState } from 'react'
import type { Decision, Revision } from '../../../../shared/schemas'
import { asClientError } from '../../api/errors'
import { mergedOn } from '../../components/pins'
import { Badge, ErrorText } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useApp } from '../../stores/app-store'
import { useTaskList } from '../../stores/task-lists'
import { statusTone } from './DecisionCard'
import { DecisionEditor, impactSentence, type EditOutcome } from './DecisionEditor'
import { Diff } from './Diff'
import { FollowUpOffers } from './FollowUpOffers'
import { MadeIn } from './MadeIn'

/** The decision's revisions, read again when its version moves. */
function useHistory(decision: Decision) {
  const api = useApp((s) => s.api)
  const [history, setHistory] = useState<Revision[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let live = true
    api
      .call('decisions.history', { decisionId: decision.id })
      .then((h) => live && setHistory(h))
      .catch((e: unknown) => live && setError(asClientError(e).message))
    return () => {
      live = false
    }
  }, [api, decision.id, decision.version])
  return { history, error }
}

export function DecisionDetail({ decision, onBack }: { decision: Decision; onBack(): void }) {
  const members = useApp((s) => s.members)
  const { history, error } = useHistory(decision)
  const [editing, setEditing] = useState(false)
  const [reverting, setReverting] = useState<Revision | null>(null)
  const [outcome, setOutcome] = useState<EditOutcome | null>(null)

  const who = (id: string | null) => (id ? (members[id]?.name ?? 'a former member') : 'you')
  return (
    <div className="panel-section ddetail" data-testid="decision-detail" data-key={decision.key}>
      <div className="panel-toolbar">
        <button className="link-btn" onClick={onBack}>
          ← All decisions
        </button>
      </div>
      <div className="ddetail-head">
        <span className="dkey big">{decision.key}</span>
        <h3>{decision.title}</h3>
        <Badge tone={statusTone[decision.status]}>{decision.status}</Badge>
        <span className="dver">v{decision.version}</span>
      </div>
      {editing || reverting ? (
        <DecisionEditor
          key={reverting ? `revert-${reverting.version}` : 'edit'}
          decision={decision}
          {...(reverting ? { revertTo: reverting } : {})}
          onCancel={() => {
            setEditing(false)
            setReverting(null)
          }}
          onDone={(o) => {
            setOutcome(o)
            setEditing(false)
            setReverting(null)
          }}
        />
      ) : (
        <DecisionBody
          decision={decision}
          outcome={outcome}
          who={who}
          onEdit={() => {
            setOutcome(null)
            setEditing(true)
          }}
        />
      )}
      <DependentTasks decision={decision} />
      <h4>History</h4>
      <ErrorText error={error} />
      {history && (
        <ol className="history">
          {[...history].reverse().map((r) => (
            <RevisionItem
              key={r.version}
              r={r}
              prev={history.find((h) => h.version === r.version - 1)}
              decision={decision}
              reverting={reverting?.version === r.version}
              who={who}
              onRevert={() => {
                setOutcome(null)
                setEditing(false)
                setReverting(r)
              }}
            />
          ))}
        </ol>
      )}
    </div>
  )
}

/** The decision as it stands: its texts, who recorded it, the last edit's outcome, and what can be done with it. */
function DecisionBody({
  decision,
  outcome,
  who,
  onEdit,
}: {
  decision: Decision
  outcome: EditOutcome | null
  who: (id: string | null) => string
  onEdit(): void
}) {
  const members = useApp((s) => s.members)
  const startNew = useApp((s) => s.startNew)
  return (
    <>
      <div className="ddetail-statement">{decision.statement}</div>
      {decision.rationale && <div className="ddetail-rationale">{decision.rationale}</div>}
      <div className="ddetail-meta">
        Recorded by {who(decision.createdBy)} {shortTime(decision.createdAt)}{' '}
        <MadeIn stepId={decision.sourceMessageId} />
      </div>
      {outcome && (
        <div className="dcard-outcome" data-testid="edit-outcome">
          Updated to v{outcome.decision.version}. {impactSentence(outcome.impact, members)}
          <FollowUpOffers impact={outcome.impact} />
        </div>
      )}
      <div className="dcard-actions">
        <button className="btn small" onClick={onEdit}>
          Edit
        </button>
        {decision.status !== 'rejected' && decision.status !== 'superseded' && (
          <button
            className="btn small"
            onClick={() => startNew('task', decision.id)}
            data-testid="new-task-on"
            title={`A new task that implements ${decision.key}, linked to it`}
          >
            New task on {decision.key}
          </button>
        )}
      </div>
    </>
  )
}

/** The tasks that link the decision, and the version each one pinned. */
function DependentTasks({ decision }: { decision: Decision }) {
  // The server's list of them (tasks.page by decision), read again on the events that may change it.
  const dependents = useTaskList({ decisionId: decision.id })
  if (dependents.tasks.length === 0) return null
  return (
    <div className="ddetail-deps">
      <h4>Tasks that depend on it ({dependents.total})</h4>
      {dependents.tasks.map((t) => {
        const link = t.links.find((l) => l.decisionId === decision.id)
        if (!link) return null
        return (
          <div key={t.id} className="dep-row">
            <span className="dkey">{t.key}</span> {t.title}{' '}
            <span className={link.state === 'suspect' ? 'badge badge-warn' : 'muted'} data-testid="dep-pin">
              {t.merged
                ? mergedOn(decision.key, {
                    version: link.pinnedVersion,
                    nowVersion: link.state === 'suspect' ? link.currentVersion : null,
                  })
                : link.state === 'suspect'
                  ? `suspect: pinned v${link.pinnedVersion}`
                  : `pinned v${link.pinnedVersion}`}
            </span>
          </div>
        )
      })}
      {dependents.hasMore && (
        <button
          className="btn small"
          disabled={dependents.loading}
          onClick={dependents.loadMore}
          data-testid="dependents-more"
        >
          {dependents.total - dependents.tasks.length} more
        </button>
      )}
    </div>
  )
}

/** One revision of the history: who made it, what it changed, and a revert to it. */
function RevisionItem({
  r,
  prev,
  decision,
  reverting,
  who,
  onRevert,
}: {
  r: Revision
  prev: Revision | undefined
  decision: Decision
  reverting: boolean
  who: (id: string | null) => string
  onRevert(): void
}) {
  return (
    <li className={`revision${reverting ? ' reverting' : ''}`} data-testid="revision" data-version={r.version}>
      <div className="revision-head">
        <span className="dver">v{r.version}</span>
        <span className="revision-who" data-testid="revision-who">
          {authorship(r, prev, who)} · {shortTime(r.createdAt)}
        </span>
        {r.editorial && <Badge>editorial</Badge>}
        {prev && prev.status !== r.status && (
          <Badge tone={statusTone[r.status]}>{`${prev.status} → ${r.status}`}</Badge>
        )}
      </div>
      {r.reason && r.version > 1 && <div className="revision-reason">“{r.reason}”</div>}
      {prev && prev.title !== r.title && (
        <div className="revision-diff">
          Title: <Diff before={prev.title} after={r.title} />
        </div>
      )}
      <div className="revision-diff">{prev ? <Diff before={prev.statement} after={r.statement} /> : r.statement}</div>
      {prev && prev.rationale !== r.rationale && (
        <div className="revision-diff muted">
          Rationale: <Diff before={prev.rationale} after={r.rationale} />
        </div>
      )}
      {r.sourceMessageId && (
        <div className="revision-src">
          <MadeIn stepId={r.sourceMessageId} memberId={r.sourceMemberId} />
        </div>
      )}
      {r.version < decision.version && (
        <div className="revision-actions">
          <button
            className="btn small"
            data-testid="revert"
            disabled={sameContent(r, decision)}
            title={
              sameContent(r, decision)
                ? `v${decision.version} already says what v${r.version} said`
                : `A new version with v${r.version}'s content, after its impact preview`
            }
            onClick={onRevert}
          >
            Revert to this version
          </button>
        </div>
      )}
    </li>
  )
}

/** "proposed by Tester, accepted by you", "created by you", "changed by Lead". */
export function authorship(r: Revision, prev: Revision | undefined, who: (id: string | null) => string): string {
  if (r.proposalId) return `proposed by ${who(r.proposedBy)}, accepted by ${who(r.actorId)}`
  if (!prev) return `${r.status === 'proposed' ? 'proposed' : 'created'} by ${who(r.actorId)}`
  if (prev.status === 'proposed' && r.status === 'accepted') return `accepted by ${who(r.actorId)}`
  return `changed by ${who(r.actorId)}`
}

const sameContent = (r: Revision, d: Decision) =>
  r.title === d.title && r.statement === d.statement && r.rationale === d.rationale && r.status === d.status
