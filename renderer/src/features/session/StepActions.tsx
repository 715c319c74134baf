import type { Step } from '../../../../shared/schemas'

export interface StepActions {
  onRecord(step: Step, text: string): void
}

function selectedTextWithin(el: HTMLElement | null): string {
  const sel = window.getSelection()
  if (!el || !sel || sel.isCollapsed || sel.rangeCount === 0) return ''
  const range = sel.getRangeAt(0)
  return el.contains(range.commonAncestorContainer) ? sel.toString().trim() : ''
}

export function Actions({
  step,
  bodyRef,
  actions,
}: {
  step: Step
  bodyRef: React.RefObject<HTMLDivElement | null>
  actions: StepActions
}) {
  // An empty box still takes the spacer's place in the meta line.
  if (!step.text.trim() || step.status === 'streaming') return <div className="step-actions" />
  return (
    <div className="step-actions">
      <button
        className="link-btn"
        // Keep the text selection alive while the button is pressed.
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => actions.onRecord(step, selectedTextWithin(bodyRef.current) || step.text)}
        title="Record this message, or the part you selected, as a decision or a proposed change"
      >
        Record decision
      </button>
      <button
        className="link-btn"
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => void navigator.clipboard?.writeText(step.text)}
      >
        Copy
      </button>
    </div>
  )
}
