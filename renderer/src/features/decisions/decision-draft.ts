/** The state of a decision's edit (DecisionEditor): the draft, its live impact preview, and its confirmed save. */
import { useEffect, useState } from 'react'
import { isNormativeChange } from '../../../../shared/normative'
import type { Decision, Impact, Revision } from '../../../../shared/schemas'
import type { ClientApi } from '../../api/bridge-client'
import { asClientError } from '../../api/errors'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

export interface EditOutcome {
  decision: Decision
  impact: Impact
}

/** The draft's fields, from the decision (or the revision a revert goes back to), and what they change. */
export function useDecisionDraft(decision: Decision, revertTo: Revision | undefined) {
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
  return {
    base,
    setBase,
    title,
    setTitle,
    statement,
    setStatement,
    rationale,
    setRationale,
    status,
    setStatus,
    reason,
    setReason,
    editorial,
    setEditorial,
    rationaleKept,
    setRationaleKept,
    statementChanged,
    rationaleChanged,
    changed,
    normativeChange,
    rationaleAsked,
    rationaleOpen,
    key,
  }
}
export type DecisionDraft = ReturnType<typeof useDecisionDraft>

/** The impact of a normative draft, asked for a quarter second after the draft last changed. */
export function useImpactPreview(api: ClientApi, d: DecisionDraft) {
  const [preview, setPreview] = useState<{ impact: Impact; forKey: string } | null>(null)
  const [previewError, setPreviewError] = useState<string | null>(null)
  const { base, statement, status, editorial, key, changed, normativeChange } = d
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
  return { preview, previewError }
}

/** The confirmed change: decisions.update against the version the edit started from, or decisions.revert. */
export function useSaveDraft(
  d: DecisionDraft,
  revertTo: Revision | undefined,
  sourceMessageId: string | undefined,
  onDone: (o: EditOutcome) => void,
) {
  const api = useApp((s) => s.api)
  const applyDecisionChange = useApp((s) => s.applyDecisionChange)
  const { base, title, statement, rationale, status, reason, editorial } = d
  return useAction(async () => {
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
          ...(d.statementChanged ? { statement: statement.trim() } : {}),
          ...(d.rationaleChanged ? { rationale: rationale.trim() } : {}),
          ...(status !== base.status ? { status } : {}),
          reason: reason.trim() || undefined,
          ...(editorial ? { editorial: true } : {}),
          ...(sourceMessageId ? { sourceMessageId } : {}),
        })
    // The answer and the decision.changed event are applied once (the store dedupes by decision + version).
    await applyDecisionChange(result.decision, result.impact)
    onDone(result)
  })
}
