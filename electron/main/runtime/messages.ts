/**
 * Messages into a member's inbox: the human's and other members' (sessions.send, message, delegate), Concord's own
 * at a task's start, and the notice prompt an external agent gets after its turn. Each is a queued step, shown in the
 * session at once and picked up when the member is free.
 */
import { ApiError } from '../../../shared/errors'
import { makeKey } from '../../../shared/keys'
import type { EventBus } from '../platform/events/event-bus'
import type { ApprovalPolicy } from '../harness/members/approval-policy'
import { requireActiveMember } from '../harness/workspace/archive'
import type { Harness } from '../harness/harness'
import { makeId, now, parseId } from '../harness/ids'
import { workspaceSettings } from '../harness/workspace/workspace-settings'
import { planPhaseOf } from '../harness/rules/plan-phase'
import type { MemberHost } from './member-host'
import { busSink, quiet, writeStep } from './step-writer'
import type { StepImageRow } from '../harness/rows'
import { imagesProblem, type ImageMediaType } from '../../../shared/images'

/** An image as a message brings it: its type is what the sender says, checked here. */
type SentImage = { mediaType: string; data: string }

/** What queueing needs: the harness, the bus, and the member's host (created on first use). */
export interface Inbox {
  harness: Harness
  bus: EventBus
  host(memberId: string): MemberHost
}

/** A turn queued for the member is picked up when it is free (an error state stays). */
export function wake(bus: EventBus, host: MemberHost): void {
  host.kick()
  bus.emit('session.state', { workspaceId: host.wsId, session: host.info() })
}

/** The images a message carries, checked (type, bytes, size: a stable code when they cannot go), as the store keeps them. */
function imageRows(images: SentImage[]): StepImageRow[] {
  const problem = imagesProblem(images)
  if (problem) throw new ApiError(problem.code, problem.message)
  return images.map((i) => ({ media_type: i.mediaType as ImageMediaType, data: Buffer.from(i.data, 'base64') }))
}

/** Queues a message from the human (`fromMemberRowId` null) or a member; an error state is lifted. */
export function enqueue(
  inbox: Inbox,
  memberId: string,
  text: string,
  fromMemberRowId: number | null,
  taskId: string | null | undefined,
  approval: ApprovalPolicy | null = null,
  images: SentImage[] = [],
): { host: MemberHost; stepId: number } {
  const host = inbox.host(memberId)
  const ctx = inbox.harness.ctx(host.wsId)
  requireActiveMember(ctx, host.memberRowId)
  const task = taskId ? ctx.store.tasks.get(parseId(taskId, 'task', 'taskId').n) : undefined
  if (taskId && (!task || parseId(taskId, 'task', 'taskId').workspaceId !== host.wsId))
    throw new ApiError('not_found', `taskId: task ${taskId} does not exist`)
  const stepId = ctx.store.transaction(() => {
    const id = writeStep(ctx.store, quiet, {
      member_id: host.memberRowId,
      kind: fromMemberRowId === null ? 'user' : 'message',
      status: 'queued',
      text,
      from_member_id: fromMemberRowId,
      task_id: task?.id ?? null,
      approval,
      started_at: now(),
    })
    ctx.store.stepImages.add(id, imageRows(images))
    return id
  })
  busSink(inbox.bus, host.wsId)(ctx.store.steps.get(stepId)!)
  host.resume()
  inbox.bus.emit('session.state', { workspaceId: host.wsId, session: host.info() })
  return { host, stepId }
}

/**
 * A task moved to in progress: its assignee gets a turn on it, a message from Concord naming the task with its
 * spec and acceptance criteria, unless the workspace says not to, the assignee moved it itself (it is working
 * on it already) or cannot work (no model, archived). `approval` is the policy of the member whose action started
 * it (null: the human's), carried as a message carries its sender's: the turn runs under the stricter of the two.
 */
export function queueTaskStart(
  inbox: Inbox,
  wsId: string,
  taskRowId: number,
  actorId: string | undefined,
  approval: ApprovalPolicy | null = null,
): void {
  const ctx = inbox.harness.ctx(wsId)
  if (!workspaceSettings(ctx).startAgentOnTaskStart) return
  const task = ctx.store.tasks.get(taskRowId)
  if (!task || task.status !== 'in_progress' || task.assignee_id === null) return
  const member = ctx.store.members.get(task.assignee_id)
  if (!member || member.archived_at || !(member.agent || (member.provider_kind && member.provider_model))) return
  const memberId = makeId(wsId, 'member', member.id)
  if (actorId === memberId) return
  const parts = [`Start ${makeKey('task', task.id)}: ${task.title}`]
  if (task.spec.trim()) parts.push(task.spec.trim())
  if (task.acceptance_criteria.trim()) parts.push(`Acceptance criteria:\n${task.acceptance_criteria.trim()}`)
  if (planPhaseOf(ctx, task.id) === 'planning')
    parts.push(
      'Plan first: write no code yet (your tree is read-only). Read what you need, then submit your plan with submit_plan; you code once the user approves it.',
    )
  writeStep(ctx.store, busSink(inbox.bus, wsId), {
    member_id: member.id,
    kind: 'message',
    status: 'queued',
    text: parts.join('\n\n'),
    from_member_id: null,
    task_id: task.id,
    approval,
    started_at: now(),
  })
  wake(inbox.bus, inbox.host(memberId))
}

/** Queues a turn that carries the member's pending notices (in the brief every prompt starts with). */
export function promptWithNotices(harness: Harness, bus: EventBus, host: MemberHost): void {
  const { store } = harness.ctx(host.wsId)
  if (store.steps.queuedCount(host.memberRowId) > 0) return // the next queued message carries them anyway
  const text =
    'A decision your work depends on changed while you were working: read the notices in the brief above, adjust your work, then acknowledge the task.'
  writeStep(store, busSink(bus, host.wsId), {
    member_id: host.memberRowId,
    kind: 'notice',
    status: 'queued',
    text,
    started_at: now(),
  })
}
