import { useEffect, useRef, useState } from 'react'
import type { Decision, Impact } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { describeImpact } from '../../lib/impact'
import { useAction } from '../../lib/use-action'
import { asClientError } from '../../api/errors'
import { useApp } from '../../stores/app-store'

const statuses: Decision['status'][] = ['proposed', 'accepted', 'rejected', 'superseded']

export interface EditOutcome {
  decision: Decision
  impact: Impact
}

/**
 * Edits a decision in place: the draft, a live impact preview, then one confirmed compare-and-set update
 * against the version the edit started from.
 */
export function DecisionEditor({ decision, sourceMessageId, onDone, onCancel }: { decision: Decision; sourceMessageId?: string; onDone(o: EditOutcome): void; onCancel(): void }) {
  const api = useApp((s) => s.api)
  const members = useApp((s) => s.members)
  const applyDecision = useApp((s) => s.applyDecision)
  const [base, setBase] = useState(decision)
  const [title, setTitle] = useState(decision.title)
  const [statement, setStatement] = useState(decision.statement)
  const [status, setStatus] = useState(decision.status)
  const [reason, setReason] = useState('')
  const [editorial, setEditorial] = useState(false)
  const [preview, setPreview] = useState<{ impact: Impact; forKey: string } | null>(null)
  const [previewError, setPreviewError] = useState<string | null>(null)

  const changed = title.trim() !== base.title || statement.trim() !== base.statement || status !== base.status
  const normativeChange = statement.trim() !== base.statement || status !== base.status
  const key = JSON.stringify([statement.trim(), status, editorial, base.version])
  const moved = decision.version !== base.version

  useEffect(() => {
    if (!changed) {
      // Clearing the preview when the draft goes back to the decision is this effect's job, not a render's.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      setPreview(null)
      return
    }
    let live = true
    const t = setTimeout(() => {
      api
        .call('decisions.previewImpact', {
          decisionId: base.id,
          ...(statement.trim() && statement.trim() !== base.statement ? { statement: statement.trim() } : {}),
          ...(status !== base.status ? { status } : {}),
          ...(editorial ? { editorial: true } : {}),
        })
        .then((impact) => {
          if (!live) return
          setPreview({ impact, forKey: key })
          setPreviewError(null)
        })
        .catch((err: unknown) => live && setPreviewError(asClientError(err).message))
    }, 250)
    return () => {
      live = false
      clearTimeout(t)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, changed])

  const save = useAction(async () => {
    const result = await api.call('decisions.update', {
      decisionId: base.id,
      expectedVersion: base.version,
      ...(title.trim() !== base.title ? { title: title.trim() } : {}),
      ...(statement.trim() !== base.statement ? { statement: statement.trim() } : {}),
      ...(status !== base.status ? { status } : {}),
      reason: reason.trim() || undefined,
      ...(editorial ? { editorial: true } : {}),
      ...(sourceMessageId ? { sourceMessageId } : {}),
    })
    applyDecision(result.decision)
    onDone(result)
  })

  // Opened from a card in a chat: the statement gets the cursor and the whole editor comes into view
  // (focus inside a session also stops it from following newer steps while you edit).
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const field = root.current?.querySelector('textarea')
    field?.focus({ preventScroll: true })
    field?.setSelectionRange(field.value.length, field.value.length)
    root.current?.scrollIntoView({ block: 'nearest' })
  }, [])

  const conflict = save.error?.code === 'version_conflict' || moved
  const previewReady = !normativeChange || editorial || preview?.forKey === key

  return (
    <div className="deditor" data-testid="decision-editor" ref={root}>
      <label className="field">
        <span className="field-label">Statement</span>
        <textarea value={statement} onChange={(e) => setStatement(e.target.value)} rows={Math.min(8, Math.max(3, statement.split('\n').length + 1))} aria-label="Statement" />
      </label>
      <div className="deditor-row">
        <label className="field grow">
          <span className="field-label">Title</span>
          <input value={title} onChange={(e) => setTitle(e.target.value)} aria-label="Title" />
        </label>
        <label className="field">
          <span className="field-label">Status</span>
          <select value={status} onChange={(e) => setStatus(e.target.value as Decision['status'])} aria-label="Status">
            {statuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      <label className="field">
        <span className="field-label">Reason</span>
        <input value={reason} onChange={(e) => setReason(e.target.value)} placeholder="Why it changes (kept in the history)" aria-label="Reason" />
      </label>
      <label className="check">
        <input type="checkbox" checked={editorial} onChange={(e) => setEditorial(e.target.checked)} /> Editorial fix only (wording; flags nothing)
      </label>
      {changed && (
        <div className={`impact-preview${preview && preview.impact.tasks.length + preview.impact.reports.length > 0 && !editorial ? ' has-impact' : ''}`} data-testid="impact-preview">
          <strong>Impact: </strong>
          {previewError ? previewError : preview && preview.forKey === key ? describeImpact(editorial ? { ...preview.impact, normative: false } : preview.impact, members) : 'checking…'}
        </div>
      )}
      {conflict && (
        <div className="warn-text">
          {decision.key} is now at v{decision.version} (you started from v{base.version}).{' '}
          <button
            className="link-btn"
            onClick={() => {
              setBase(decision)
              save.setError(null)
            }}
          >
            Apply my edit on v{decision.version}
          </button>
        </div>
      )}
      {save.error && save.error.code !== 'version_conflict' && <ErrorText error={save.error.message} />}
      <div className="deditor-actions">
        <button className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button className="btn primary" disabled={!changed || !previewReady || save.pending || conflict} onClick={() => void save.run()}>
          {save.pending ? 'Saving…' : `Confirm → v${base.version + 1}`}
        </button>
      </div>
    </div>
  )
}
