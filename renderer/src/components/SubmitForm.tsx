import type { ReactNode } from 'react'

/** A form whose submit (Enter, or its submit button) calls `onSubmit` and never reloads the page. */
export function SubmitForm({
  className,
  testId,
  onSubmit,
  children,
}: {
  className: string
  testId?: string
  onSubmit(): void
  children: ReactNode
}) {
  return (
    <form
      className={className}
      data-testid={testId}
      onSubmit={(e) => {
        e.preventDefault()
        onSubmit()
      }}
    >
      {children}
    </form>
  )
}
