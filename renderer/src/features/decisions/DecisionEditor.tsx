import { useEffect, useRef } from 'react'
import { decisionStatuses } from '../../../../shared/enums'
import type { Decision, Impact, Member, Revision } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { describeImpact, followUpSentences } from '../../lib/impact'
import { useApp } from '../../stores/app-store'
import {
  useDecisionDraft,
  useImpactPreview,
  useSaveDraft,
  type DecisionDraft,
  type EditOutcome,
} from './decision-draft'
import './decision-editor.css'

export type { EditOutcome } from './decision-draft'

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
  const d = useDecisionDraft(decision, revertTo)
  const { base, changed, normativeChange, editorial, key } = d
  const { preview, previewError } = useImpactPreview(api, d)
  const save = useSaveDraft(d, revertTo, sourceMessageId, onDone)

  // Opened from a card in a chat: the statement gets the cursor and the whole editor comes into view
  // (focus inside a session also stops it from following newer steps while you edit).
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const field = root.current?.querySelector('textarea')
    field?.focus({ preventScroll: true })
    field?.setSelectionRange(field.value.length, field.value.length)
    root.current?.scrollIntoView({ block: 'nearest' })
  }, [])

  const conflict = save.error?.code === 'version_conflict' || decision.version !== base.version
  const previewReady = !normativeChange || editorial || preview?.forKey === key

  return (
    <div className={`deditor${revertTo ? ' reverting' : ''}`} data-testid="decision-editor" ref={root}>
      {revertTo && (
        <div className="deditor-revert" data-testid="revert-banner">
          Revert to v{revertTo.version}: a new version v{base.version + 1} with the content v{revertTo.version} had.
          Check the impact below before you confirm.
        </div>
      )}
      <DraftTexts d={d} ro={!!revertTo} />
      <DraftFields d={d} revertTo={revertTo} />
      {changed && <ImpactPreview d={d} preview={preview} previewError={previewError} />}
      {changed && d.rationaleOpen && (
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
              d.setBase(decision)
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
          disabled={!changed || !previewReady || save.pending || conflict || d.rationaleOpen}
          onClick={() => void save.run()}
        >
          {save.pending ? 'Saving…' : revertTo ? `Revert → v${base.version + 1}` : `Confirm → v${base.version + 1}`}
        </button>
      </div>
    </div>
  )
}

/** The statement and the rationale, which a statement change asks about. */
function DraftTexts({ d, ro }: { d: DecisionDraft; ro: boolean }) {
  const { statement, rationale, rationaleAsked, rationaleChanged } = d
  return (
    <div className={`deditor-texts${rationaleAsked ? ' asking' : ''}`}>
      <label className="field">
        <span className="field-label">Statement</span>
        <GrowingText value={statement} readOnly={ro} onChange={d.setStatement} lines={[3, 8]} label="Statement" />
      </label>
      <div
        className={`field deditor-rationale${d.rationaleOpen ? ' open-question' : ''}`}
        data-testid="rationale-field"
      >
        <span className="field-label">
          {rationaleAsked ? 'Rationale: does it still hold for the new statement?' : 'Rationale'}
        </span>
        <GrowingText
          value={rationale}
          readOnly={ro}
          onChange={d.setRationale}
          lines={[2, 6]}
          label="Rationale"
          placeholder="Why this decision (printed as the context in the export)"
        />
        {rationaleAsked && !rationaleChanged && (
          <label className="check" data-testid="rationale-keep">
            <input type="checkbox" checked={d.rationaleKept} onChange={(e) => d.setRationaleKept(e.target.checked)} />{' '}
            It still holds as written
          </label>
        )}
        {rationaleAsked && rationaleChanged && (
          <span className="muted small">Rationale edited: it changes with the statement.</span>
        )}
      </div>
    </div>
  )
}

/** A text box one line taller than its text, within `lines` (the fewest and the most). */
function GrowingText({
  value,
  readOnly,
  onChange,
  lines: [fewest, most],
  label,
  placeholder,
}: {
  value: string
  readOnly: boolean
  onChange(text: string): void
  lines: [number, number]
  label: string
  placeholder?: string
}) {
  return (
    <textarea
      value={value}
      readOnly={readOnly}
      onChange={(e) => onChange(e.target.value)}
      rows={Math.min(most, Math.max(fewest, value.split('\n').length + 1))}
      aria-label={label}
      placeholder={placeholder}
    />
  )
}

/** The title, the status, the reason, and whether the edit is an editorial fix. */
function DraftFields({ d, revertTo }: { d: DecisionDraft; revertTo: Revision | undefined }) {
  const ro = !!revertTo
  return (
    <>
      <div className="deditor-row">
        <label className="field grow">
          <span className="field-label">Title</span>
          <input value={d.title} readOnly={ro} onChange={(e) => d.setTitle(e.target.value)} aria-label="Title" />
        </label>
        <label className="field">
          <span className="field-label">Status</span>
          <select
            value={d.status}
            disabled={ro}
            onChange={(e) => d.setStatus(e.target.value as Decision['status'])}
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
          value={d.reason}
          onChange={(e) => d.setReason(e.target.value)}
          placeholder={
            revertTo ? `Why back to v${revertTo.version} (kept in the history)` : 'Why it changes (kept in the history)'
          }
          aria-label="Reason"
        />
      </label>
      {!revertTo && (
        <label className="check">
          <input type="checkbox" checked={d.editorial} onChange={(e) => d.setEditorial(e.target.checked)} /> Editorial
          fix only (wording; flags nothing)
        </label>
      )}
    </>
  )
}

/** What the draft would flag, as the server previews it. */
function ImpactPreview({
  d,
  preview,
  previewError,
}: {
  d: DecisionDraft
  preview: { impact: Impact; forKey: string } | null
  previewError: string | null
}) {
  const members: Record<string, Member> = useApp((s) => s.members)
  const { normativeChange, editorial, key } = d
  return (
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
