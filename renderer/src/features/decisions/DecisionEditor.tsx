import { useEffect, useRef, useState } from 'react'
import { decisionStatuses } from '../../../../shared/enums'
import { isNormativeChange } from '../../../../shared/normative'
import type { Decision, Impact, Revision } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { describeImpact, followUpSentences } from '../../lib/impact'
import { useAction } from '../../lib/use-action'
import { asClientError } from '../../api/errors'
import { useApp } from '../../stores/app-store'
import './decision-editor.css'

export interface EditOutcome {
  decision: Decision
  impact: Impact
}

/**
 * Edits a decision in place: the draft, a live impact preview, then one confirmed compare-and-set update
 * against the version the edit started from. With `revertTo` it is the same editor holding that revision's
 * content (read-only), and the confirmed change is decisions.revert.
 */
export function DecisionEditor({
  decision,
  sourceMessageId,
  revertTo,
  onDone,
  onCancel,
}: {
  decision: Decision
  sourceMessageId?: string
  revertTo?: Revision
  onDone(o: EditOutcome): void
  onCancel(): void
}) {
  const api = useApp((s) => s.api)
  const members = useApp((s) => s.members)
  const applyDecisionChange = useApp((s) => s.applyDecisionChange)
  const start = revertTo ?? decision
  const [base, setBase] = useState(decision)
  const [title, setTitle] = useState(start.title)
  const [statement, setStatement] = useState(start.statement)
  const [rationale, setRationale] = useState(start.rationale)
  const [status, setStatus] = useState(start.status)
  const [reason, setReason] = useState('')
  const [editorial, setEditorial] = useState(false)
  // A statement change asks whether the rationale still holds: kept (confirmed) or edited.
  const [rationaleKept, setRationaleKept] = useState(false)
  const [preview, setPreview] = useState<{ impact: Impact; forKey: string } | null>(null)
  const [previewError, setPreviewError] = useState<string | null>(null)

  const statementChanged = statement.trim() !== base.statement
  const rationaleChanged = rationale.trim() !== base.rationale
  const changed = title.trim() !== base.title || statementChanged || rationaleChanged || status !== base.status
  // The one rule (shared/normative.ts): statement text, or a move between in force and withdrawn.
  const normativeChange = isNormativeChange(
    { statement: base.statement, status: base.status },
    { statement: statement.trim(), status },
  )
  // Only a rationale that exists can argue against the new statement (none: nothing to confirm).
  const rationaleAsked = statementChanged && !revertTo && base.rationale.trim() !== ''
  const rationaleOpen = rationaleAsked && !rationaleChanged && !rationaleKept
  const key = JSON.stringify([statement.trim(), status, editorial, base.version])
  const moved = decision.version !== base.version

  useEffect(() => {
    if (!changed || !normativeChange) {
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
  }, [key, changed, normativeChange])

  const save = useAction(async () => {
    const result = revertTo
      ? await api.call('decisions.revert', {
          decisionId: base.id,
          toVersion: revertTo.version,
          expectedVersion: base.version,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        })
      : await api.call('decisions.update', {
          decisionId: base.id,
          expectedVersion: base.version,
          ...(title.trim() !== base.title ? { title: title.trim() } : {}),
          ...(statementChanged ? { statement: statement.trim() } : {}),
          ...(rationaleChanged ? { rationale: rationale.trim() } : {}),
          ...(status !== base.status ? { status } : {}),
          reason: reason.trim() || undefined,
          ...(editorial ? { editorial: true } : {}),
          ...(sourceMessageId ? { sourceMessageId } : {}),
        })
    // The answer and the decision.changed event are applied once (the store dedupes by decision + version).
    await applyDecisionChange(result.decision, result.impact)
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
  const ro = !!revertTo

  return (
    <div className={`deditor${revertTo ? ' reverting' : ''}`} data-testid="decision-editor" ref={root}>
      {revertTo && (
        <div className="deditor-revert" data-testid="revert-banner">
          Revert to v{revertTo.version}: a new version v{base.version + 1} with the content v{revertTo.version} had.
          Check the impact below before you confirm.
        </div>
      )}
      <div className={`deditor-texts${rationaleAsked ? ' asking' : ''}`}>
        <label className="field">
          <span className="field-label">Statement</span>
          <textarea
            value={statement}
            readOnly={ro}
            onChange={(e) => setStatement(e.target.value)}
            rows={Math.min(8, Math.max(3, statement.split('\n').length + 1))}
            aria-label="Statement"
          />
        </label>
        <div
          className={`field deditor-rationale${rationaleOpen ? ' open-question' : ''}`}
          data-testid="rationale-field"
        >
          <span className="field-label">
            {rationaleAsked ? 'Rationale: does it still hold for the new statement?' : 'Rationale'}
          </span>
          <textarea
            value={rationale}
            readOnly={ro}
            onChange={(e) => setRationale(e.target.value)}
            rows={Math.min(6, Math.max(2, rationale.split('\n').length + 1))}
            aria-label="Rationale"
            placeholder="Why this decision (printed as the context in the export)"
          />
          {rationaleAsked && !rationaleChanged && (
            <label className="check" data-testid="rationale-keep">
              <input type="checkbox" checked={rationaleKept} onChange={(e) => setRationaleKept(e.target.checked)} /> It
              still holds as written
            </label>
          )}
          {rationaleAsked && rationaleChanged && (
            <span className="muted small">Rationale edited: it changes with the statement.</span>
          )}
        </div>
      </div>
      <div className="deditor-row">
        <label className="field grow">
          <span className="field-label">Title</span>
          <input value={title} readOnly={ro} onChange={(e) => setTitle(e.target.value)} aria-label="Title" />
        </label>
        <label className="field">
          <span className="field-label">Status</span>
          <select
            value={status}
            disabled={ro}
            onChange={(e) => setStatus(e.target.value as Decision['status'])}
            aria-label="Status"
          >
            {decisionStatuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      <label className="field">
        <span className="field-label">Reason</span>
        <input
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder={
            revertTo ? `Why back to v${revertTo.version} (kept in the history)` : 'Why it changes (kept in the history)'
          }
          aria-label="Reason"
        />
      </label>
      {!revertTo && (
        <label className="check">
          <input type="checkbox" checked={editorial} onChange={(e) => setEditorial(e.target.checked)} /> Editorial fix
          only (wording; flags nothing)
        </label>
      )}
      {changed && (
        <div
          className={`impact-preview${preview && preview.impact.tasks.length + preview.impact.reports.length > 0 && !editorial && normativeChange ? ' has-impact' : ''}`}
          data-testid="impact-preview"
        >
          <strong>{normativeChange && !editorial ? 'Normative change. Impact: ' : 'Impact: '}</strong>
          {!normativeChange
            ? 'Not a normative change (title, rationale or a status that keeps it in force): no task or report is affected.'
            : previewError
              ? previewError
              : preview && preview.forKey === key
                ? editorial
                  ? describeImpact({ ...preview.impact, normative: false }, members)
                  : impactSentence(preview.impact, members)
                : 'checking…'}
        </div>
      )}
      {changed && rationaleOpen && (
        <div className="warn-text" data-testid="rationale-prompt">
          The statement changed but the rationale did not: confirm it still holds, or edit it.
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
        <button
          className="btn primary"
          disabled={!changed || !previewReady || save.pending || conflict || rationaleOpen}
          onClick={() => void save.run()}
        >
          {save.pending ? 'Saving…' : revertTo ? `Revert → v${base.version + 1}` : `Confirm → v${base.version + 1}`}
        </button>
      </div>
    </div>
  )
}

/** The impact in a sentence, with the claims an edit back to earlier content makes valid again. */
export function impactSentence(impact: Impact, members: Parameters<typeof describeImpact>[1]): string {
  const restored = restoredText(impact)
  const flagsNothing = impact.tasks.length === 0 && impact.reports.every((r) => r.staleClaimIds.length === 0)
  if (restored && flagsNothing) {
    const followUps = followUpSentences(impact)
    return `Nothing new is flagged.${restored}${followUps ? ` ${followUps}` : ''}`
  }
  return describeImpact(impact, members) + restored
}

/** "Restores 2 claims in R-4" for an edit back to content evidence was pinned to (a revert). */
function restoredText(impact: Impact | null): string {
  const restored = (impact?.reports ?? []).filter((r) => r.restoredClaimIds.length)
  if (!restored.length) return ''
  const n = restored.reduce((k, r) => k + r.restoredClaimIds.length, 0)
  return ` Restores ${n} claim${n === 1 ? '' : 's'} in ${restored.map((r) => r.key).join(', ')} (valid again).`
}
