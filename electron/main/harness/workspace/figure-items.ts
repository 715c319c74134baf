/**
 * The items behind two Figures tiles (issue 13): the notices sent and the turns Concord started itself, page by
 * page, newest first, each with the step of the member's session to jump to. Their totals are the figures.
 */
import type { ParsedParams } from '../../../../shared/contract'
import type { AutoTurn, AutoTurnCause, AutoTurnPage, SentNotice, SentNoticePage } from '../../../../shared/schemas'
import { AutoTurnsRepo } from '../../store/auto-turns-repo'
import type { WorkspaceStore } from '../../store/workspace-store'
import type { Ctx } from '../context'
import { idSource, makeId, makeKey } from '../ids'
import { cursorOf, DEFAULT_PAGE } from '../pages'

export function sentNotices(ctx: Ctx, p: ParsedParams<'notices.sent'>): SentNoticePage {
  const limit = p.limit ?? DEFAULT_PAGE
  const { rows, total } = ctx.store.log.sentPage(
    cursorOf(p.cursor, 'notices.sent') ?? Number.MAX_SAFE_INTEGER,
    limit + 1,
  )
  const items = rows.slice(0, limit).map((r): SentNotice => {
    const tasks = JSON.parse(r.first_task_ids) as number[]
    return {
      id: makeId(ctx.wsId, 'notice', r.id),
      workspaceId: ctx.wsId,
      memberId: makeId(ctx.wsId, 'member', r.member_id),
      kind: r.kind,
      decisionId: makeId(ctx.wsId, 'decision', r.decision_id),
      decisionKey: makeKey('decision', r.decision_id),
      decisionVersion: r.decision_version,
      taskIds: tasks.map((n) => makeId(ctx.wsId, 'task', n)),
      taskKeys: tasks.map((n) => makeKey('task', n)),
      taskCount: r.task_count,
      reportCount: r.report_count,
      text: r.text,
      createdAt: r.created_at,
      deliveredAt: r.delivered_at,
      stepId: r.step_id === null ? null : makeId(ctx.wsId, 'step', r.step_id),
    }
  })
  return { items, nextCursor: rows.length > limit ? String(rows.at(limit - 1)!.id) : null, total }
}

const repos = new WeakMap<WorkspaceStore, AutoTurnsRepo>()
function autoTurnsRepo(store: WorkspaceStore): AutoTurnsRepo {
  let r = repos.get(store)
  if (!r) repos.set(store, (r = new AutoTurnsRepo(store.db)))
  return r
}

export function listAutoTurns(ctx: Ctx, p: ParsedParams<'autoTurns.list'>): AutoTurnPage {
  const limit = p.limit ?? DEFAULT_PAGE
  const { rows, total } = autoTurnsRepo(ctx.store).started(
    cursorOf(p.cursor, 'autoTurns.list') ?? Number.MAX_SAFE_INTEGER,
    limit + 1,
  )
  const items = rows.slice(0, limit).map((r): AutoTurn => ({
    memberId: makeId(ctx.wsId, 'member', r.member_id),
    taskId: r.task_id === null ? null : makeId(ctx.wsId, 'task', r.task_id),
    taskKey: r.task_id === null ? null : makeKey('task', r.task_id),
    ...triggerWords(r.trigger),
    createdAt: r.created_at,
    stepId: makeId(ctx.wsId, 'step', r.step_id),
  }))
  return { items, nextCursor: rows.length > limit ? String(rows.at(limit - 1)!.id) : null, total }
}

const deliveredOn = (artifact: string) =>
  /^[0-9a-f]{40}$/.test(artifact) ? `delivered on ${artifact.slice(0, 7)}` : 'as delivered'

/**
 * A trigger as runtime/auto-turns.ts keys it, in words: `flag:<task>:<decision id>:v<version>` or
 * `stale:<task>:<report>:<commit or digest>:<decision>v<version>,…`. A key of another shape is shown as it is.
 */
const flagTrigger = new RegExp(`^flag:(\\d+):${idSource('decision')}:v(\\d+)$`)

export function triggerWords(trigger: string): { cause: AutoTurnCause; trigger: string } {
  const flag = flagTrigger.exec(trigger)
  if (flag) {
    const [, task, decision, version] = flag
    return {
      cause: 'task_flagged',
      trigger: `${makeKey('task', Number(task))} was flagged when ${makeKey('decision', Number(decision))} changed to v${version}`,
    }
  }
  const stale = /^stale:(\d+):(\d+):(.+):([^:]*)$/.exec(trigger)
  if (stale) {
    const [, task, report, artifact, versions] = stale
    const against = (versions ?? '')
      .split(',')
      .map((v) => /^(\d+)v(\d+)$/.exec(v))
      .flatMap((m) => (m ? [`${makeKey('decision', Number(m[1]))} v${m[2]}`] : []))
    const basis = against.length ? ` (now ${against.join(', ')})` : ''
    return {
      cause: 'evidence_stale',
      trigger: `${makeKey('report', Number(report))} went stale for ${makeKey('task', Number(task))} ${deliveredOn(artifact ?? '')}${basis}`,
    }
  }
  return { cause: 'other', trigger }
}
