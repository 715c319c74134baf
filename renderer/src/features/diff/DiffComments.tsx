/**
 * Comments on a task's diff (issue 33): the form a line's "+" opens (a range by "through line N"), the comments under
 * the line they end on, and the bar that sends the drafts to the assignee as one message.
 */
import { SplitSide } from '@git-diff-view/react'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { DiffComment } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { whileMounted } from '../../lib/while-mounted'
import { SubmitForm } from '../../components/SubmitForm'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

export type CommentSide = DiffComment['side']
export const sideOf = (s: SplitSide): CommentSide => (s === SplitSide.old ? 'old' : 'new')

/** The task's comments, loaded when the view opens and replaced by what each action answers (null: a turn's diff). */
export function useDiffComments(taskId: string | null) {
  const api = useApp((s) => s.api)
  const [comments, setComments] = useState<DiffComment[]>([])
  const reload = useCallback(async () => {
    if (taskId) setComments(await api.call('diffComments.list', { taskId }))
  }, [api, taskId])
  useEffect(() => {
    if (taskId) return whileMounted(api.call('diffComments.list', { taskId }), setComments)
  }, [api, taskId])
  const add = useAction(
    async (p: { path: string; startLine: number; endLine: number; side: CommentSide; body: string }) => {
      await api.call('diffComments.add', { taskId: taskId!, ...p })
      await reload()
      return true
    },
  )
  const remove = useAction(async (commentId: string) => {
    await api.call('diffComments.delete', { commentId })
    await reload()
  })
  // A range by shift-click: the "+" of a first line anchors, a shift-click on a later "+" of the same file and side
  // opens the form from the anchor through that line. The library's click callback carries no event: the shift key is
  // read from the pointerdown that precedes it.
  const shift = useRef(false)
  useEffect(() => {
    const down = (e: PointerEvent) => (shift.current = e.shiftKey)
    window.addEventListener('pointerdown', down, true)
    return () => window.removeEventListener('pointerdown', down, true)
  }, [])
  // Refs, not state: a render of the dialog between the press and the form would rebuild the diff and close the form.
  const anchor = useRef<{ path: string; side: CommentSide; line: number } | null>(null)
  const from = useRef<number | null>(null)
  const plusClicked = useCallback((path: string, side: CommentSide, line: number) => {
    const a = anchor.current
    if (shift.current && a && a.path === path && a.side === side && a.line < line) {
      from.current = a.line
      return
    }
    from.current = null
    anchor.current = { path, side, line }
  }, [])
  const send = useAction(async () => setComments((await api.call('diffComments.send', { taskId: taskId! })).comments))
  return { comments, add, remove, send, plusClicked, from }
}

export type DiffCommentsState = ReturnType<typeof useDiffComments>

/** extendData for one file: each comment under the last line of its range, on its side. */
export function extendDataOf(comments: DiffComment[], path: string) {
  const out: { oldFile: Record<string, { data: DiffComment[] }>; newFile: Record<string, { data: DiffComment[] }> } = {
    oldFile: {},
    newFile: {},
  }
  for (const c of comments) {
    if (c.path !== path) continue
    const side = c.side === 'old' ? out.oldFile : out.newFile
    ;(side[String(c.endLine)] ??= { data: [] }).data.push(c)
  }
  return out
}

const where = (c: DiffComment) =>
  c.startLine === c.endLine ? `Line ${c.startLine}` : `Lines ${c.startLine}–${c.endLine}`
const stateWords = { draft: 'draft', sent: 'sent', resolved: 'resolved' } as const

export function CommentThread({ comments, state }: { comments: DiffComment[]; state: DiffCommentsState }) {
  return (
    <div className="diff-comments">
      {comments.map((c) => (
        <div key={c.id} className={`diff-comment state-${c.state}`} data-testid="diff-comment" data-state={c.state}>
          <div className="diff-comment-head small">
            <b>{where(c)}</b>
            <span className={`badge diff-comment-state state-${c.state}`}>{stateWords[c.state]}</span>
            {c.state === 'resolved' && c.resolvedCommit && (
              <span className="muted">
                changed by <code title={c.resolvedCommit}>{c.resolvedCommit.slice(0, 8)}</code>
              </span>
            )}
            <span className="spacer" />
            {c.state === 'draft' && (
              <button
                className="btn small ghost"
                onClick={() => void state.remove.run(c.id)}
                disabled={state.remove.pending}
                data-testid="diff-comment-delete"
              >
                Delete
              </button>
            )}
          </div>
          <div className="diff-comment-body">{c.body}</div>
        </div>
      ))}
      <ErrorText error={state.remove.error?.message} />
    </div>
  )
}

export function CommentForm({
  path,
  line,
  lastLine = line,
  side,
  state,
  onClose,
}: {
  path: string
  /** The first line; the form opens under the last one (lastLine: a shift-clicked range). */
  line: number
  lastLine?: number
  side: CommentSide
  state: DiffCommentsState
  onClose(): void
}) {
  const [body, setBody] = useState('')
  const [through, setThrough] = useState(String(lastLine))
  const endLine = Number(through)
  const valid = body.trim() !== '' && Number.isInteger(endLine) && endLine >= line
  return (
    <SubmitForm
      className="diff-comment-form"
      testId="diff-comment-form"
      onSubmit={() => {
        if (!valid) return
        void state.add.run({ path, startLine: line, endLine, side, body }).then((added) => added && onClose())
      }}
    >
      <div className="diff-comment-range small">
        <span>
          Line {line}
          {side === 'old' ? ' (base)' : ''} through
        </span>
        <input
          type="number"
          min={line}
          value={through}
          onChange={(e) => setThrough(e.target.value)}
          aria-label="Through line"
          data-testid="diff-comment-through"
        />
      </div>
      <textarea
        value={body}
        onChange={(e) => setBody(e.target.value)}
        placeholder="What should change here?"
        aria-label="Comment"
        rows={3}
        autoFocus
      />
      <div className="diff-comment-actions">
        <button className="btn small primary" disabled={!valid || state.add.pending} data-testid="diff-comment-add">
          Add comment
        </button>
        <button type="button" className="btn small" onClick={onClose}>
          Cancel
        </button>
      </div>
      <ErrorText error={state.add.error?.message} />
    </SubmitForm>
  )
}

/** "2 draft comments · Send 2 comments", with the open and resolved counts once some were sent. */
export function CommentsBar({ state }: { state: DiffCommentsState }) {
  const counts = useMemo(() => {
    const n = { draft: 0, sent: 0, resolved: 0 }
    for (const c of state.comments) n[c.state]++
    return n
  }, [state.comments])
  if (!state.comments.length)
    return (
      <div className="diff-comments-bar muted small" data-testid="diff-comments-bar">
        Hover a line and press + to comment on it; “through” or a shift-click on a later + makes it a range.
      </div>
    )
  return (
    <div className="diff-comments-bar small" data-testid="diff-comments-bar">
      <span>
        {[
          counts.draft > 0 && `${counts.draft} draft${counts.draft === 1 ? '' : 's'}`,
          counts.sent > 0 && `${counts.sent} open`,
          counts.resolved > 0 && `${counts.resolved} resolved`,
        ]
          .filter(Boolean)
          .join(' · ')}
      </span>
      <span className="spacer" />
      {counts.draft > 0 && (
        <button
          className="btn small primary"
          onClick={() => void state.send.run()}
          disabled={state.send.pending}
          data-testid="diff-comments-send"
        >
          Send {counts.draft} comment{counts.draft === 1 ? '' : 's'}
        </button>
      )}
      <ErrorText error={state.send.error?.message} />
    </div>
  )
}
