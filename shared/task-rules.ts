import type { Task } from './schemas'

/**
 * The one home of a task's status and flag words and of the moves between statuses.
 * The core enforces the moves (harness/tasks/tasks.ts), the board offers exactly these, and every
 * place that prints a status or a flag to a person uses these words.
 */
export type TaskStatusValue = Task['status']
export type TaskFlagValue = NonNullable<Task['flag']>

/** The board's working columns, left to right (the card's Alt ← / Alt → step along them). */
export const workingStatuses: readonly TaskStatusValue[] = ['todo', 'in_progress', 'delivered', 'accepted']
/** The board's folded columns, after the working ones. */
export const foldedStatuses: readonly TaskStatusValue[] = ['blocked', 'cancelled']
/** Board order: the working columns first, then the folded ones. */
export const taskStatuses: readonly TaskStatusValue[] = [...workingStatuses, ...foldedStatuses]

export const taskStatusWords: Record<TaskStatusValue, string> = {
  todo: 'to do',
  in_progress: 'in progress',
  delivered: 'delivered',
  accepted: 'accepted',
  blocked: 'blocked',
  cancelled: 'cancelled',
}

export const taskFlagWords: Record<TaskFlagValue, string> = {
  requirements_updated: 'requirements updated',
  needs_adjustment: 'needs adjustment',
  needs_reverification: 'needs re-verification',
}

/**
 * Where a task may go from each status. `delivered → accepted` is listed because the board offers it,
 * but it is made by tasks.accept (which checks the evidence), never by tasks.setStatus. Reopening an
 * accepted task is for deciders only; the core checks that separately.
 */
export const taskMoves: Record<TaskStatusValue, readonly TaskStatusValue[]> = {
  todo: ['in_progress', 'blocked', 'cancelled'],
  in_progress: ['delivered', 'todo', 'blocked', 'cancelled'],
  delivered: ['accepted', 'in_progress', 'cancelled'],
  accepted: ['in_progress'],
  blocked: ['todo', 'in_progress', 'cancelled'],
  cancelled: ['todo'],
}

/** True when the move is in the table. Staying where it is is not a move and is always allowed (a re-delivery records a new artifact). */
export function canMove(from: TaskStatusValue, to: TaskStatusValue): boolean {
  return from === to || taskMoves[from].includes(to)
}

const quoted = (s: TaskStatusValue) => `“${taskStatusWords[s]}”`

/** “in progress”, “blocked” or “cancelled” (quoted: “to do” must not read as part of the sentence). */
export function listWords(statuses: readonly TaskStatusValue[]): string {
  const words = statuses.map(quoted)
  return words.length <= 1 ? (words[0] ?? 'nowhere') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`
}

/** Why a move is refused, naming the allowed ones; null when it is allowed. */
export function moveRefusal(key: string, from: TaskStatusValue, to: TaskStatusValue): string | null {
  if (canMove(from, to)) return null
  return `${key} is ${quoted(from)}: it can move to ${listWords(taskMoves[from])}, not to ${quoted(to)}`
}

/**
 * What a change to a decision's normative content does to a task that depends on it (DESIGN §2), as data: the
 * store builds its SQL from these (store/task-rules-sql.ts), so the edit, its preview (a dry run of the edit) and
 * the bench's minimal write set apply one rule.
 * - Untouched: `cancelled` tasks, and merged ones (a follow-up task carries the change).
 * - The flag: the first row whose status or current flag matches; a stronger flag the task has is kept.
 * - The status: an accepted task's acceptance is revoked (it is delivered again); others keep theirs.
 * - Told at once: the assignee of a task in one of `notifiedOnChange` before the edit (a todo task's assignee
 *   reads the new requirement when it starts), unless that member made the edit.
 */
export const untouchedOnChange: readonly TaskStatusValue[] = ['cancelled']
export const flagOnChange: readonly { flag: TaskFlagValue; statuses: readonly TaskStatusValue[] }[] = [
  { flag: 'needs_reverification', statuses: ['delivered', 'accepted'] },
  { flag: 'needs_adjustment', statuses: ['in_progress'] },
]
export const defaultFlagOnChange: TaskFlagValue = 'requirements_updated'
export const statusOnChange: Partial<Record<TaskStatusValue, TaskStatusValue>> = { accepted: 'delivered' }
export const notifiedOnChange: readonly TaskStatusValue[] = ['in_progress', 'delivered', 'accepted']
