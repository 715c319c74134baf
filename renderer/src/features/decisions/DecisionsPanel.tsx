import { useMemo, useState } from 'react'
import { useNewRecordForm } from '../../components/new-record-form'
import { Badge, CardForm, EmptyState, Field } from '../../components/ui'
import { excerpt } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { selectDecisions } from '../../stores/selectors'
import { statusTone } from './DecisionCard'
import { DecisionDetail } from './DecisionDetail'
import { ExportBox } from './ExportBox'
import './decision-editor.css'

export function DecisionsPanel() {
  const decisions = useApp(selectDecisions)
  const focusId = useApp((s) => s.focusDecisionId)
  const openDecision = useApp((s) => s.openDecision)
  const [query, setQuery] = useState('')
  const focused = useApp((s) => (focusId ? s.decisions[focusId] : undefined))
  const { showForm, openForm, closeForm } = useNewRecordForm('decision')

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
        <button className="btn small primary" onClick={openForm}>
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

export { NewDecisionForm }
export { MadeIn } from './MadeIn'
export { authorship } from './DecisionDetail'
