import type { ReactNode, Ref } from 'react'

/** One choice among a few: its words, how it looks, and what it does. */
export interface Choice {
  label: ReactNode
  onClick(): void
  /** primary (the expected answer), danger (denies, cancels), ghost (steps back); plain when absent. */
  tone?: 'primary' | 'danger' | 'ghost'
  title?: string
  testId?: string
  /** data-action: what keyboard shortcuts press (the approval bar's A, L, D). */
  action?: string
  /** Disabled on its own terms, beside the row's `disabled`. */
  disabled?: boolean
  buttonRef?: Ref<HTMLButtonElement>
  type?: 'button' | 'submit'
}

/**
 * The small buttons of a decision made on the spot (Allow / Always… / Deny…, Approve / Request changes / Reject,
 * Allow all / Deny all), all disabled while one of them runs. The caller's element holds them.
 */
export function ChoiceButtons({
  choices,
  disabled,
}: {
  choices: (Choice | false | null | undefined)[]
  disabled?: boolean
}) {
  return (
    <>
      {choices.map(
        (c, i) =>
          c && (
            <button
              key={i}
              ref={c.buttonRef}
              type={c.type}
              className={`btn small${c.tone ? ` ${c.tone}` : ''}`}
              disabled={disabled || c.disabled}
              onClick={c.onClick}
              data-testid={c.testId}
              data-action={c.action}
              title={c.title}
            >
              {c.label}
            </button>
          ),
      )}
    </>
  )
}
