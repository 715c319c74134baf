import { memo } from 'react'
import type { Row } from '../../stores/steps'
import type { StepActions } from './StepActions'
import {
  ErrorStep,
  InterruptedStep,
  MessageStep,
  NoticeStep,
  ToolStep,
  UserStep,
  type StepKindProps,
} from './StepKinds'
import { ModelStep } from './ModelStep'

export type { StepActions } from './StepActions'

const byKind: Record<string, ((p: StepKindProps) => React.ReactNode) | undefined> = {
  user: UserStep,
  message: MessageStep,
  model: ModelStep,
  plan: ModelStep,
  tool: ToolStep,
  notice: NoticeStep,
  error: ErrorStep,
  interrupted: InterruptedStep,
}

export const StepRow = memo(
  function StepRow({
    row,
    memberId,
    actions,
    highlighted,
    undoable = false,
    undone = false,
  }: {
    row: Row
    memberId: string
    actions: StepActions
    highlighted: boolean
    /** The turn this step starts is the one "Undo this turn" is offered on (turn-undo.ts). */
    undoable?: boolean
    /** The step belongs to a turn that was undone: shown struck. */
    undone?: boolean
  }) {
    const { step } = row
    const Kind = byKind[step.kind]
    if (!Kind) return null
    const cls = `step step-${step.kind}${step.status === 'streaming' ? ' streaming' : ''}${highlighted ? ' highlighted' : ''}${undone ? ' turn-undone' : ''}`
    const box = {
      className: cls,
      'data-step-id': step.id,
      'data-kind': step.kind,
      'data-status': step.status,
      'data-testid': 'step',
    }
    return <Kind row={row} memberId={memberId} actions={actions} undoable={undoable} box={box} />
  },
  (a, b) =>
    a.row.step === b.row.step &&
    a.memberId === b.memberId &&
    a.actions === b.actions &&
    a.highlighted === b.highlighted &&
    a.undoable === b.undoable &&
    a.undone === b.undone &&
    a.row.tools.length === b.row.tools.length &&
    a.row.tools.every((t, i) => t === b.row.tools[i]),
)
