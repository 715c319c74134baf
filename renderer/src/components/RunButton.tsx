import type { ReactNode } from 'react'

/** A button that runs an action (a useAction) and is disabled while it runs. */
export function RunButton({
  action,
  className = 'btn',
  title,
  testId,
  children,
}: {
  action: { run(): Promise<unknown>; pending: boolean }
  className?: string
  title?: string
  testId?: string
  children: ReactNode
}) {
  return (
    <button
      type="button"
      className={className}
      onClick={() => void action.run()}
      disabled={action.pending}
      title={title}
      data-testid={testId}
    >
      {children}
    </button>
  )
}
