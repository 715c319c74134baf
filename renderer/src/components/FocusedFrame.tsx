import type { ReactNode } from 'react'

/** One task or report open on its own above its list (as search opened it), with the way back to the whole list. */
export function FocusedFrame({
  kind,
  itemKey,
  onBack,
  className,
  children,
}: {
  kind: 'task' | 'report'
  itemKey: string | undefined
  onBack(): void
  /** Classes before the frame's own (`task-focus`, `report-focus`). */
  className?: string
  children: ReactNode
}) {
  return (
    <div
      className={`${className ? `${className} ` : ''}${kind}-focus`}
      data-testid={`${kind}-focus`}
      data-key={itemKey}
    >
      <div className="panel-toolbar">
        <button className="link-btn" onClick={onBack} data-testid={`${kind}-focus-back`}>
          ← All {kind}s
        </button>
      </div>
      {children}
    </div>
  )
}
