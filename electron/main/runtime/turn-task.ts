/**
 * Which task a turn works on when its message was not sent for one: the member's only task in progress, or the
 * one of its tasks in progress that the message names (exactly one). The choice is stored on the message, so the
 * chat, the usage per task and the tools all see the same task.
 */
import { makeKey, mentionedKeys, parseKey } from '../../../shared/keys'
import type { Ctx } from '../harness/context'
import type { MemberRow, StepRow, TaskRow } from '../harness/rows'

export const tasksInProgress = (ctx: Ctx, member: MemberRow): TaskRow[] => ctx.store.tasks.inProgress(member.id)

/** The task the text names among `tasks`, when it names exactly one of them. */
export function namedTask(text: string, tasks: TaskRow[]): TaskRow | null {
  const ids = new Set(tasks.map((t) => t.id))
  const named = new Set(
    mentionedKeys(text, 'T')
      .map((k) => parseKey(k)?.n)
      .filter((n): n is number => n !== undefined && ids.has(n)),
  )
  return named.size === 1 ? tasks.find((t) => named.has(t.id))! : null
}

/** Binds the turn's first step to its task (see the file comment); returns the task row id or null. */
export function bindTurnTask(ctx: Ctx, member: MemberRow, start: StepRow): number | null {
  if (start.task_id !== null) return start.task_id
  const active = tasksInProgress(ctx, member)
  const task = active.length === 1 ? active[0] : active.length > 1 ? namedTask(start.text, active) : null
  if (!task) return null
  ctx.store.steps.setTask(start.id, task.id)
  start.task_id = task.id
  return task.id
}

/**
 * Where a turn bound to none of the member's several tasks in progress works, and how to choose one, for the
 * refusal of an edit there. Null when the member has fewer than two (the tree's own words say it).
 */
export function unboundTreeText(ctx: Ctx, member: MemberRow, treeDescription: string): string | null {
  const active = tasksInProgress(ctx, member)
  if (active.length < 2) return null
  const list = active.map((t) => `${makeKey('task', t.id)} "${t.title}"`)
  const names = `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`
  return `${treeDescription}: this turn is bound to none of your ${active.length} tasks in progress (${names}); a turn works in a task's tree when its message names exactly one of them (e.g. "${makeKey('task', active[0]!.id)}: …"), or when the human chooses the task under the message box`
}

/** The task a turn works on: the one its message names, else the member's single task in progress. */
export function turnTask(ctx: Ctx, member: MemberRow, start: StepRow): number | null {
  if (start.task_id !== null) return start.task_id
  const [only, ...others] = tasksInProgress(ctx, member)
  return only && !others.length ? only.id : null
}
