import { FollowUpOffers } from './FollowUpOffers'
import { mergedOn } from '../../components/pins'
import { useEffect, useMemo, useState } from 'react'
import type { Decision, Revision } from '../../../../shared/schemas'
import { Badge, CardForm, EmptyState, ErrorText, Field } from '../../components/ui'
import { excerpt, shortTime } from '../../lib/format'
import { markdownToPlain } from '../../lib/plain-text'
import { useAction } from '../../lib/use-action'
import { asClientError } from '../../api/errors'
import { useApp } from '../../stores/app-store'
import { findStep, selectDecisions } from '../../stores/selectors'
import { useTaskList } from '../../stores/task-lists'
import { statusTone } from './DecisionCard'
import { DecisionEditor, impactSentence, type EditOutcome } from './DecisionEditor'
import { Diff } from './Diff'
import { ExportBox } from './ExportBox'
import './decision-editor.css'

export function DecisionsPanel() {
  const decisions = useApp(selectDecisions)
  const focusId = useApp((s) => s.focusDecisionId)
  const openDecision = useApp((s) => s.openDecision)
  const [query, setQuery] = useState('')
  const [creating, setCreating] = useState(false)
  const focused = useApp((s) => (focusId ? s.decisions[focusId] : undefined))
  const newRecord = useApp((s) => s.newRecord)
  const startNew = useApp((s) => s.startNew)

  // "New decision" from the palette opens the form; closing it clears the request.
  const showForm = creating || newRecord === 'decision'
  const closeForm = () => {
    setCreating(false)
    if (newRecord) startNew(null)
  }

  const shown = useMemo(() => {
    const q = query.trim().toLowerCase()
    if (!q) return decisions
    return decisions.filter((d) =>
      `${d.key} ${d.title} ${d.statement} ${d.rationale} ${d.status}`.toLowerCase().includes(q),
    )
  }, [decisions, query])

  if (focused) return <DecisionDetail decision={focused} onBack={() => openDecision(null)} />

  return (
    <div className="panel-section">
      <div className="panel-toolbar">
        <input
          className="search grow"
          type="search"
          placeholder="Search decisions"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label="Search decisions"
        />
        <button className="btn small primary" onClick={() => setCreating(true)}>
          New
        </button>
      </div>
      {showForm && <NewDecisionForm onClose={closeForm} />}
      {decisions.length === 0 && !showForm ? (
        <EmptyState title="No decisions yet">
          Decisions are the trade-offs your team must agree on. Hover any message and choose <b>Record decision</b>, or
          create one here. Mention it as <code>D-1</code> in any chat and it shows as a live card.
        </EmptyState>
      ) : shown.length === 0 && query ? (
        <div className="muted pad">No decision matches “{query}”.</div>
      ) : (
        <ul className="dlist">
          {shown.map((d) => (
            <li key={d.id}>
              <button
                className="dlist-item"
                onClick={() => openDecision(d.id)}
                data-testid="decision-row"
                data-key={d.key}
              >
                <span className="dkey">{d.key}</span>
                <span className="dlist-main">
                  <span className="dlist-title">{d.title}</span>
                  <span className="dlist-statement">{excerpt(d.statement, 110)}</span>
                </span>
                <span className="dlist-meta">
                  <Badge tone={statusTone[d.status]}>{d.status}</Badge>
                  <span className="dver">v{d.version}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <ExportBox />
    </div>
  )
}

function NewDecisionForm({
  onClose,
  initial,
}: {
  onClose(): void
  initial?: { statement?: string; sourceMessageId?: string }
}) {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const applyDecision = useApp((s) => s.applyDecision)
  const openDecision = useApp((s) => s.openDecision)
  const [title, setTitle] = useState('')
  const [statement, setStatement] = useState(initial?.statement ?? '')
  const [rationale, setRationale] = useState('')
  const create = useAction(async () => {
    const d = await api.call('decisions.create', {
      workspaceId,
      title: title.trim(),
      statement: statement.trim(),
      ...(rationale.trim() ? { rationale: rationale.trim() } : {}),
    })
    applyDecision(d)
    onClose()
    // What was recorded, with what comes next: a task on it, or an edit.
    openDecision(d.id)
  })
  return (
    <CardForm
      onSubmit={() => void create.run()}
      onCancel={onClose}
      submitLabel="Record decision"
      canSubmit={!create.pending && !!title.trim() && !!statement.trim()}
      error={create.error?.message}
    >
      <Field label="Title">
        <input value={title} onChange={(e) => setTitle(e.target.value)} placeholder="e.g. API style" required />
      </Field>
      <Field label="Statement" hint="The normative text tasks and reports are checked against.">
        <textarea value={statement} onChange={(e) => setStatement(e.target.value)} rows={3} required />
      </Field>
      <Field label="Rationale">
        <textarea value={rationale} onChange={(e) => setRationale(e.target.value)} rows={2} />
      </Field>
    </CardForm>
  )
}

/**
 * "Made in Implementer's session: '…'" with a link that opens the message in its session; when the step is
 * not loaded yet, the member it belongs to (from the history) is enough to open the session at it.
 */
export function MadeIn({ stepId, memberId: knownMemberId }: { stepId: string | null; memberId?: string | null }) {
  // Two selections of stable values (a fresh {memberId, step} object each time would re-render forever).
  const memberId = useApp((s) => (stepId ? findStep(s, stepId)?.memberId : undefined))
  const step = useApp((s) => (stepId ? findStep(s, stepId)?.step : undefined))
  const where = memberId && step ? { memberId, step } : null
  const name = useApp((s) => (memberId ? s.members[memberId]?.name : undefined))
  const knownName = useApp((s) => (knownMemberId ? s.members[knownMemberId]?.name : undefined))
  const focusStep = useApp((s) => s.focusStep)
  const selectMember = useApp((s) => s.selectMember)
  if (!stepId) return null
  if (!where) {
    if (!knownMemberId) return <span className="muted">from a message that is no longer in any session</span>
    return (
      <button
        className="link-btn made-in"
        data-testid="made-in"
        onClick={() => {
          selectMember(knownMemberId)
          focusStep(knownMemberId, stepId)
        }}
      >
        from a message in {knownName ?? 'a member'}’s session
      </button>
    )
  }
  return (
    <button className="link-btn made-in" onClick={() => focusStep(where.memberId, stepId)} data-testid="made-in">
      from {where.step.kind === 'user' ? 'your message to' : 'a message in'} {name ?? 'a member'}’s session: “
      {excerpt(markdownToPlain(where.step.text), 60)}”
    </button>
  )
}

function DecisionDetail({ decision, onBack }: { decision: Decision; onBack(): void }) {
  const api = useApp((s) => s.api)
  const members = useApp((s) => s.members)
  const [history, setHistory] = useState<Revision[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [editing, setEditing] = useState(false)
  const [reverting, setReverting] = useState<Revision | null>(null)
  const [outcome, setOutcome] = useState<EditOutcome | null>(null)
  const startNew = useApp((s) => s.startNew)
  // The server's list of them (tasks.page by decision), read again on the events that may change it.
  const dependents = useTaskList({ decisionId: decision.id })

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
            <button
              className="btn small"
              onClick={() => {
                setOutcome(null)
                setEditing(true)
              }}
            >
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
      )}
      {dependents.tasks.length > 0 && (
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
      )}
      <h4>History</h4>
      <ErrorText error={error} />
      {history && (
        <ol className="history">
          {[...history].reverse().map((r) => {
            const prev = history.find((h) => h.version === r.version - 1)
            return (
              <li
                key={r.version}
                className={`revision${reverting?.version === r.version ? ' reverting' : ''}`}
                data-testid="revision"
                data-version={r.version}
              >
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
                <div className="revision-diff">
                  {prev ? <Diff before={prev.statement} after={r.statement} /> : r.statement}
                </div>
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
                      onClick={() => {
                        setOutcome(null)
                        setEditing(false)
                        setReverting(r)
                      }}
                    >
                      Revert to this version
                    </button>
                  </div>
                )}
              </li>
            )
          })}
        </ol>
      )}
    </div>
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

export { NewDecisionForm }
