/**
 * The brief: rebuilt from the store before every model call, so a member's context never loses the
 * current decisions — they come from the harness, not from chat history (DESIGN §3).
 */
import type { Ctx } from '../harness/context'
import { makeId, makeKey, now } from '../harness/ids'
import { CURRENT_STATEMENT } from '../harness/decisions/notice-text'
import { planBriefLines } from '../harness/tasks/plans'
import {
  parseCheckpoint,
  parseUndone,
  type BaseCheckRow,
  type BaseOverlap,
  type TaskRow,
  type DecisionRow,
  type MemberRow,
  type NoticeRow,
} from '../harness/rows'
import type { TurnSteps } from './step-writer'

export interface Brief {
  text: string
  /** decision id → version as shown in this brief (the basis of a report submitted now). */
  decisionVersions: Map<string, number>
  notices: NoticeRow[]
  /** The pending notices as this brief shows them (see noticeInBrief), in the same order. */
  noticeTexts: string[]
}

const flagWords = {
  requirements_updated: 'REQUIREMENTS UPDATED — re-read the decisions below before you start',
  needs_adjustment: 'NEEDS ADJUSTMENT — a decision changed while you were working; adjust, then acknowledge_task',
  needs_reverification: 'NEEDS RE-VERIFICATION — delivered work must be checked again against the current decisions',
} as const

const OTHER_DECISIONS_WITH_TEXT = 30

/**
 * What a move of the base branch means for a task in progress (issue 30), while it holds: the files the base changed
 * that the member changed too, by the merged task (or the other commits) that changed them, and a conflicting merge.
 */
function baseMoveLines(c: BaseCheckRow): string[] {
  const overlaps = JSON.parse(c.overlaps) as BaseOverlap[]
  const out: string[] = []
  if (!overlaps.length && !c.conflicts) return out
  const what = overlaps
    .map((o) =>
      o.taskId === null
        ? `commits on ${c.base_branch} changed ${o.files.join(', ')}`
        : `${makeKey('task', o.taskId)} merged and changed ${o.files.join(', ')}`,
    )
    .join('; ')
  if (what) out.push(`  ${c.base_branch} moved: ${what}, which you changed.`)
  if (c.conflicts)
    out.push(
      `  merging ${c.base_branch} (${c.base_head.slice(0, 10)}) into your branch conflicts in ${(JSON.parse(c.conflicts) as string[]).join(', ')}.`,
    )
  return out
}

/**
 * The brief for a member's next model call or prompt, with the notices pending now: they go out with it, so they are
 * marked delivered and shown in the session as one notice step.
 */
export function deliverBrief(ctx: Ctx, member: MemberRow, { insert }: Pick<TurnSteps, 'insert'>): Brief {
  const pending = ctx.store.log.notices(member.id, true)
  const brief = buildBrief(ctx, member, pending)
  if (pending.length) {
    ctx.store.log.markDelivered(member.id, pending.at(-1)!.id, now())
    insert({ kind: 'notice', status: 'done', text: pending.map((p) => p.text).join('\n\n'), ended_at: now() })
  }
  return brief
}

export function buildBrief(ctx: Ctx, member: MemberRow, pendingNotices: NoticeRow[]): Brief {
  const ws = ctx.wsId
  const { store } = ctx
  const lines: string[] = []
  const versions = new Map<string, number>()
  const decisions = new Map(store.decisions.list().map((d) => [d.id, d]))
  const withText = new Map<number, DecisionRow>()
  const show = (d: DecisionRow) => {
    versions.set(makeId(ws, 'decision', d.id), d.version)
    withText.set(d.id, d)
    return `- ${makeKey('decision', d.id)} v${d.version} [${d.status}] "${d.title}": ${d.statement}`
  }

  lines.push('# Brief (rebuilt from the Concord harness before every call: this is the current truth)')
  lines.push(
    `You are ${member.name} (${member.role}), member id ${makeId(ws, 'member', member.id)}, authority: ${member.authority}.`,
  )
  const team = store.members.list().filter((m) => m.id !== member.id)
  if (team.length) {
    lines.push(
      'Team: ' + team.map((m) => `${m.name} (${m.role}, ${m.authority}, id ${makeId(ws, 'member', m.id)})`).join('; '),
    )
  }

  const tasks = store.tasks
    .list(member.id)
    .filter((t) => t.status !== 'cancelled' && (t.status !== 'accepted' || t.flag))
  const depends = new Set<number>()
  // One statement for every task's links: a member with hundreds of tasks starts its turn without one query per task.
  const linksOf = store.tasks.linksByTask(tasks.map((t) => t.id))
  const bases = store.base.among(tasks.filter((t) => t.status === 'in_progress').map((t) => t.id))
  lines.push('', '## Your tasks')
  if (!tasks.length) lines.push('(none assigned)')
  for (const t of tasks) {
    const links = linksOf.get(t.id) ?? []
    links.forEach((l) => depends.add(l.decision_id))
    lines.push(...taskLines(ctx, t, links, bases.get(t.id)))
  }

  const dependent = [...depends].map((id) => decisions.get(id)!).filter(Boolean)
  if (dependent.length) {
    lines.push('', '## Decisions your tasks depend on (current text)')
    for (const d of dependent) lines.push(show(d))
  }
  const others = [...decisions.values()].filter(
    (d) => !depends.has(d.id) && (d.status === 'accepted' || d.status === 'proposed'),
  )
  if (others.length) {
    lines.push('', '## Other decisions in force')
    others.forEach((d, i) => {
      if (i < OTHER_DECISIONS_WITH_TEXT) lines.push(show(d))
      else {
        versions.set(makeId(ws, 'decision', d.id), d.version)
        lines.push(
          `- ${makeKey('decision', d.id)} v${d.version} [${d.status}] "${d.title}" (get the text with list_decisions)`,
        )
      }
    })
  }

  const sentWith = (n: NoticeRow) =>
    decisions.get(n.decision_id)?.version === n.decision_version
      ? decisions.get(n.decision_id)
      : store.decisions.revision(n.decision_id, n.decision_version)
  const noticeTexts = pendingNotices.map((n) => noticeInBrief(n, withText, sentWith))
  if (noticeTexts.length) {
    lines.push('', '## Notices since your last step (read these first; the decisions above are their current text)')
    for (const text of noticeTexts)
      lines.push(
        text
          .split('\n')
          .map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`))
          .join('\n'),
      )
  }
  lines.push(...undoneLines(ctx, member))
  return { text: lines.join('\n'), decisionVersions: versions, notices: pendingNotices, noticeTexts }
}

/** A task of the member's as its brief shows it: its line, its base moved, spec, acceptance, plan, links. */
function taskLines(
  ctx: Ctx,
  t: TaskRow,
  links: ReturnType<Ctx['store']['tasks']['links']>,
  moved: BaseCheckRow | undefined,
): string[] {
  const ws = ctx.wsId
  const lines: string[] = []
  lines.push(
    `- ${makeKey('task', t.id)} (id ${makeId(ws, 'task', t.id)}) [${t.status}] "${t.title}"${t.flag ? ` — ${flagWords[t.flag]}` : ''}`,
  )
  if (moved) lines.push(...baseMoveLines(moved))
  if (t.spec) lines.push(`  spec: ${t.spec}`)
  if (t.acceptance_criteria) lines.push(`  acceptance: ${t.acceptance_criteria}`)
  if (t.status === 'in_progress' && t.plan_first === 1) lines.push(...planBriefLines(ctx, t).map((l) => `  ${l}`))
  if (links.length) {
    lines.push(
      '  depends on: ' +
        links
          .map(
            (l) =>
              `${makeKey('decision', l.decision_id)} v${l.current_version}${l.pinned_fingerprint === l.current_fingerprint ? '' : ` (you last aligned with v${l.pinned_version})`}`,
          )
          .join(', '),
    )
  }
  return lines
}

/**
 * Turns of the member the human undid since its last turn (sessions.undoTurn), told during the turn that follows:
 * the tree is back where it was, and the work of those turns is not in it any more.
 */
function undoneLines(ctx: Ctx, member: MemberRow): string[] {
  const rows = ctx.store.turnUndo.toldInLatest(member.id)
  if (!rows.length) return []
  const out = ['', '## Turns the human undid (read this first: your tree is not what you left it)']
  for (const r of rows) {
    const c = parseCheckpoint(r)
    const u = parseUndone(r)
    if (!c || !u) continue
    const asked = r.text.length > 80 ? `${r.text.slice(0, 80)}…` : r.text
    out.push(
      `- Your turn that answered "${asked}" on ${makeKey('task', c.task)} was undone: its tree is back at ${c.commit.slice(0, 10)} as it was before that turn (uncommitted changes from then included). The commits and edits of that turn are not in the tree any more (kept aside under ${u.keptRef}, for the human); reports you made on them no longer count. Look at the tree again before you go on, and do not redo that work unless asked.`,
    )
  }
  return out
}

/**
 * A notice as the brief shows it when the brief shows its decision's current text above: without the decision's title
 * in the headline and without its "Current statement" line (the member would read both twice; for a notice of an older
 * version, a statement that is no longer current). Cut exactly as propagation wrote them, at the notice's own version.
 */
function noticeInBrief(
  n: NoticeRow,
  withText: Map<number, DecisionRow>,
  sentWith: (n: NoticeRow) => { title: string; statement: string } | undefined,
): string {
  const d = sentWith(n)
  if (!withText.has(n.decision_id) || !d) return n.text
  const key = makeKey('decision', n.decision_id)
  return n.text
    .replace(`${key} "${d.title}" changed`, `${key} changed`)
    .replace(`\n${CURRENT_STATEMENT}${d.statement}`, '')
}
