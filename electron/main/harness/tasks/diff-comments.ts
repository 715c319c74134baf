/**
 * Comments on a task's diff (issue 33): drafts on a line or a range of lines of one file at the head the Changes view
 * showed, sent to the assignee as one message with file:line context, resolved when a later delivery changes the lines.
 */
import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { DiffComment, Task } from '../../../../shared/schemas'
import { runOwnGit } from '../../platform/own-git'
import type { DiffCommentRow } from '../../store/diff-comments-repo'
import { rowOf, taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey, now } from '../ids'
import { toTask } from '../mappers'
import { taskDiff } from './task-diff'

/** At most this many lines are quoted per comment in the stored record and the message; the range itself is whole. */
const QUOTE_LINES = 40

export function toDiffComment(ws: string, r: DiffCommentRow): DiffComment {
  return {
    id: makeId(ws, 'comment', r.id),
    taskId: makeId(ws, 'task', r.task_id),
    path: r.path,
    startLine: r.start_line,
    endLine: r.end_line,
    side: r.side,
    commit: r.commit_sha,
    quoted: r.quoted,
    body: r.body,
    state: r.state,
    createdAt: r.created_at,
    sentAt: r.sent_at,
    resolvedAt: r.resolved_at,
    resolvedCommit: r.resolved_commit,
  }
}

function commentsOf(ctx: Ctx, taskRowId: number): DiffComment[] {
  return ctx.store.diffComments.ofTask(taskRowId).map((r) => toDiffComment(ctx.wsId, r))
}

/** The list changed: to the Changes view (the list) and the board (the card's open count). */
function emitChanged(ctx: Ctx, taskRowId: number): DiffComment[] {
  const comments = commentsOf(ctx, taskRowId)
  const taskId = makeId(ctx.wsId, 'task', taskRowId)
  ctx.emit('diffComments.changed', { workspaceId: ctx.wsId, taskId, comments })
  const row = ctx.store.tasks.get(taskRowId)
  if (row)
    ctx.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, row), readinessOnly: true })
  return comments
}

export async function addDiffComment(h: Harness, ctx: Ctx, p: ParsedParams<'diffComments.add'>): Promise<DiffComment> {
  const task = taskRow(ctx, p.taskId)
  const diff = await taskDiff(h, ctx, { taskId: p.taskId })
  const side = p.side ?? 'new'
  const endLine = p.endLine ?? p.startLine
  const file = diff.files.find((f) => f.path === p.path || f.oldPath === p.path)
  if (!file)
    throw new ApiError('path_not_in_diff', `path: ${makeKey('task', task.id)}'s diff does not change '${p.path}'`)
  if (endLine < p.startLine)
    throw new ApiError('line_out_of_range', `endLine: ${endLine} comes before startLine ${p.startLine}`)
  // The lines are counted in the file as it is on that side: the head's new path, or the base's old one.
  const at = side === 'new' ? diff.head : diff.base
  const path = side === 'new' ? file.path : (file.oldPath ?? file.path)
  const gone = side === 'new' ? file.status === 'deleted' : file.status === 'added'
  const text = gone ? null : await blobText(h.workspace(ctx.wsId).repoPath, at, path)
  const lines = text === null ? [] : splitLines(text)
  if (endLine > lines.length)
    throw new ApiError(
      'line_out_of_range',
      `${p.startLine === endLine ? 'startLine' : 'endLine'}: ${path} has ${lines.length} line${lines.length === 1 ? '' : 's'} on the ${side} side of the diff; line ${endLine} is past its end`,
    )
  const quoted = lines.slice(p.startLine - 1, Math.min(endLine, p.startLine - 1 + QUOTE_LINES)).join('\n')
  const id = ctx.store.transaction(() =>
    ctx.store.diffComments.insert({
      task_id: task.id,
      path: file.path,
      start_line: p.startLine,
      end_line: endLine,
      side,
      // An old-side comment is on the base's lines; the head is still the commit it was made on (what resolves it).
      commit_sha: diff.head,
      quoted,
      body: p.body,
      created_at: now(),
    }),
  )
  emitChanged(ctx, task.id)
  return toDiffComment(ctx.wsId, ctx.store.diffComments.get(id)!)
}

export async function listDiffComments(h: Harness, ctx: Ctx, taskId: string): Promise<DiffComment[]> {
  const task = taskRow(ctx, taskId)
  await resolveDiffComments(h, ctx, task.id)
  return commentsOf(ctx, task.id)
}

export function deleteDiffComment(ctx: Ctx, commentId: string): { deleted: true } {
  const row = ctx.store.diffComments.get(rowOf(ctx, 'comment', commentId, 'commentId'))
  if (!row) throw new ApiError('not_found', `commentId: comment ${commentId} does not exist`)
  if (!ctx.store.transaction(() => ctx.store.diffComments.deleteDraft(row.id)))
    throw new ApiError('invalid_transition', `commentId: the comment was ${row.state}; only a draft can be deleted`)
  emitChanged(ctx, row.task_id)
  return { deleted: true }
}

/** What diffComments.send hands to sessions.send: the assignee, the one message, and the drafts it carries. */
export interface CommentsMessage {
  memberId: string
  taskId: string
  text: string
  commentIds: number[]
}

export function commentsMessage(ctx: Ctx, taskId: string): CommentsMessage {
  const task = taskRow(ctx, taskId)
  const tk = makeKey('task', task.id)
  const drafts = ctx.store.diffComments.ofTask(task.id, 'draft')
  if (!drafts.length) throw new ApiError('invalid_transition', `${tk} has no draft comments to send`)
  if (task.assignee_id === null)
    throw new ApiError('invalid_transition', `${tk} has no assignee to send its comments to: assign it first`)
  const commits = [...new Set(drafts.map((d) => d.commit_sha.slice(0, 8)))].join(', ')
  const parts = drafts.map((d, i) => {
    const where = `${d.path}:${d.start_line === d.end_line ? d.start_line : `${d.start_line}-${d.end_line}`}`
    const side = d.side === 'old' ? ' (the base’s lines, removed or changed by the task)' : ''
    const quote = d.quoted
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n')
    return `${i + 1}. ${where}${side}\n${quote}\n${d.body}`
  })
  const text = [
    `Review comments on ${tk} (${drafts.length} comment${drafts.length === 1 ? '' : 's'}, on commit ${commits}):`,
    ...parts,
    'Address them in your tree, commit, and deliver again.',
  ].join('\n\n')
  return { memberId: makeId(ctx.wsId, 'member', task.assignee_id), taskId, text, commentIds: drafts.map((d) => d.id) }
}

/** The drafts went out in one message: they are sent now. */
export function markCommentsSent(ctx: Ctx, taskId: string, commentIds: number[]): DiffComment[] {
  const task = taskRow(ctx, taskId)
  ctx.store.transaction(() => ctx.store.diffComments.markSent(commentIds, now()))
  return emitChanged(ctx, task.id)
}

/**
 * Sent comments whose lines the task's delivered commit changed, compared with the commit each was made on
 * (`git diff -U0` hunks overlapping the range), are resolved. Returns how many were.
 */
export async function resolveDiffComments(h: Harness, ctx: Ctx, taskRowId: number): Promise<number> {
  const task = ctx.store.tasks.get(taskRowId)
  const delivered = task && (task.status === 'delivered' || task.status === 'accepted') ? task.artifact_commit : null
  if (!delivered) return 0
  const sent = ctx.store.diffComments.ofTask(taskRowId, 'sent').filter((c) => c.commit_sha !== delivered)
  if (!sent.length) return 0
  const repo = h.workspace(ctx.wsId).repoPath
  const changed: DiffCommentRow[] = []
  for (const c of sent) {
    const r = await runOwnGit(
      repo,
      ['diff', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', c.commit_sha, delivered, '--', c.path],
      { allowFailure: true },
    )
    if (r.code !== 0) continue
    const hunks = oldHunks(r.stdout)
    // The head's lines are the old side of this diff; a base-side comment counts any change to its file.
    const hit = c.side === 'new' ? hunks.some((k) => overlaps(k, c.start_line, c.end_line)) : hunks.length > 0
    if (hit) changed.push(c)
  }
  if (!changed.length) return 0
  const at = now()
  ctx.store.transaction(() => {
    for (const c of changed) ctx.store.diffComments.markResolved(c.id, at, delivered)
  })
  emitChanged(ctx, taskRowId)
  return changed.length
}

/** Resolves comments when a task is delivered (the event, so every way of delivering counts). */
const installed = new WeakSet<Harness>()

export function installDiffComments(h: Harness): void {
  if (installed.has(h)) return
  installed.add(h)
  const off = h.bus.on((e) => {
    if (e.event !== 'task.changed' || e.payload.readinessOnly) return
    const t: Task = e.payload.task
    if (t.status !== 'delivered' || !t.artifact?.commit || !t.openComments) return
    setImmediate(() => {
      try {
        const ctx = h.ctxOf('task', t.id, 'taskId')
        void resolveDiffComments(h, ctx, rowOf(ctx, 'task', t.id, 'taskId')).catch(() => undefined)
      } catch {
        // The workspace closed meanwhile: diffComments.list resolves them when next read.
      }
    })
  })
  h.onClose(off)
}

/** The old-side ranges of `git diff -U0` hunks: start and count (0: lines were inserted after `start`). */
export function oldHunks(patch: string): { start: number; count: number }[] {
  const out: { start: number; count: number }[] = []
  for (const m of patch.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm))
    out.push({ start: Number(m[1]), count: m[2] === undefined ? 1 : Number(m[2]) })
  return out
}

/** A hunk changes lines start..end: it removes or rewrites one of them, or inserts between two of them. */
export function overlaps(h: { start: number; count: number }, start: number, end: number): boolean {
  if (h.count === 0) return h.start >= start && h.start < end
  return h.start <= end && h.start + h.count - 1 >= start
}

async function blobText(repo: string, commit: string, path: string): Promise<string | null> {
  const r = await runOwnGit(repo, ['cat-file', 'blob', `${commit}:${path}`], {
    allowFailure: true,
    maxBuffer: 64 * 1024 * 1024,
  })
  return r.code === 0 ? r.stdout : null
}

function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}
