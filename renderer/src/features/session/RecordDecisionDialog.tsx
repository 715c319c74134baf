import { useState } from 'react'
import type { Step } from '../../../../shared/schemas'
import { DialogActions } from '../../components/DialogActions'
import { ErrorText, Field, Modal } from '../../components/ui'
import { excerpt } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { selectDecisions } from '../../stores/selectors'

/** Records a message (or the selected part of it) as a new decision or a proposed change to one, linked to the message. */
export function RecordDecisionDialog({ step, text, onClose }: { step: Step; text: string; onClose(): void }) {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const decisions = useApp(selectDecisions)
  const applyDecision = useApp((s) => s.applyDecision)
  const applyProposal = useApp((s) => s.applyProposal)
  const [mode, setMode] = useState<'new' | 'change'>('new')
  const [title, setTitle] = useState(excerpt(text.split('\n')[0] ?? '', 70))
  const [statement, setStatement] = useState(text.trim())
  const [rationale, setRationale] = useState('')
  const [decisionId, setDecisionId] = useState(
    decisions.find((d) => d.status === 'accepted')?.id ?? decisions[0]?.id ?? '',
  )
  const [reason, setReason] = useState('')

  const submit = useAction(async () => {
    if (mode === 'new') {
      const d = await api.call('decisions.create', {
        workspaceId,
        title: title.trim(),
        statement: statement.trim(),
        ...(rationale.trim() ? { rationale: rationale.trim() } : {}),
        sourceMessageId: step.id,
      })
      applyDecision(d)
    } else {
      const p = await api.call('proposals.create', {
        decisionId,
        statement: statement.trim(),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        sourceMessageId: step.id,
      })
      applyProposal(p)
    }
    onClose()
  })

  const ready = statement.trim() && (mode === 'new' ? title.trim() : decisionId)
  return (
    <Modal
      title="Record from this message"
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          onConfirm={() => void submit.run()}
          confirmLabel={mode === 'new' ? 'Record decision' : 'Propose change'}
          disabled={!ready || submit.pending}
        />
      }
    >
      <ModeTabs mode={mode} setMode={setMode} canChange={decisions.length > 0} />
      {mode === 'new' ? (
        <Field label="Title">
          <input value={title} onChange={(e) => setTitle(e.target.value)} aria-label="Decision title" />
        </Field>
      ) : (
        <DecisionPick decisionId={decisionId} setDecisionId={setDecisionId} />
      )}
      <Field label={mode === 'new' ? 'Statement' : 'New statement'}>
        <textarea value={statement} onChange={(e) => setStatement(e.target.value)} rows={5} aria-label="Statement" />
      </Field>
      {mode === 'new' ? (
        <Field label="Rationale">
          <textarea value={rationale} onChange={(e) => setRationale(e.target.value)} rows={2} />
        </Field>
      ) : (
        <Field label="Reason">
          <input value={reason} onChange={(e) => setReason(e.target.value)} />
        </Field>
      )}
      <div className="muted small">Linked to this message; the decision shows where it was made.</div>
      <ErrorText error={submit.error?.message} />
    </Modal>
  )
}

/** New decision, or a change to an existing one (offered once there is one). */
function ModeTabs({
  mode,
  setMode,
  canChange,
}: {
  mode: 'new' | 'change'
  setMode(mode: 'new' | 'change'): void
  canChange: boolean
}) {
  return (
    <div className="segmented" role="tablist">
      <button
        role="tab"
        aria-selected={mode === 'new'}
        className={mode === 'new' ? 'on' : ''}
        onClick={() => setMode('new')}
      >
        New decision
      </button>
      <button
        role="tab"
        aria-selected={mode === 'change'}
        className={mode === 'change' ? 'on' : ''}
        onClick={() => setMode('change')}
        disabled={!canChange}
      >
        Change an existing one
      </button>
    </div>
  )
}

/** The decision a proposed change is for. */
function DecisionPick({ decisionId, setDecisionId }: { decisionId: string; setDecisionId(id: string): void }) {
  const decisions = useApp(selectDecisions)
  return (
    <Field label="Decision" hint="Recorded as a proposal: it changes nothing until you (or a decider) accept it.">
      <select value={decisionId} onChange={(e) => setDecisionId(e.target.value)} aria-label="Decision">
        {decisions.map((d) => (
          <option key={d.id} value={d.id}>
            {d.key} · {d.title} (v{d.version}, {d.status})
          </option>
        ))}
      </select>
    </Field>
  )
}
