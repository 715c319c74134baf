/**
 * The diff of a task or of one turn: the file list with counts, then each file's diff in @git-diff-view/react
 * (chosen over react-diff-view and @pierre/diffs because it highlights with lowlight, the highlighter the chat
 * already uses, and needs no second tokenizer), parsed from git's own unified patch.
 */
import { DiffModeEnum, DiffView, type SplitSide } from '@git-diff-view/react'
import '@git-diff-view/react/styles/diff-view.css'
import { useEffect, useMemo, useState } from 'react'
import { asClientError } from '../../api/errors'
import type { DiffComment, DiffFile, TaskDiff, TurnCommits } from '../../../../shared/schemas'
import { ErrorText, Modal } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { CommentForm, CommentThread, CommentsBar, extendDataOf, sideOf, useDiffComments } from './DiffComments'

const statusLetter: Record<DiffFile['status'], string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  copied: 'C',
  type_changed: 'T',
}

/** git's patch cut into one chunk per file, keyed by the new path (the old one for a deletion). */
export function splitPatch(patch: string): Map<string, string> {
  const out = new Map<string, string>()
  const parts = patch.split(/^(?=diff --git )/m).filter((p) => p.startsWith('diff --git '))
  for (const part of parts) {
    const plus = /^\+\+\+ (?:b\/)?(.+)$/m.exec(part)?.[1]
    const minus = /^--- (?:a\/)?(.+)$/m.exec(part)?.[1]
    const header = /^diff --git a\/(.+?) b\/(.+)$/m.exec(part)
    const path = plus && plus !== '/dev/null' ? plus : minus && minus !== '/dev/null' ? minus : header?.[2]
    if (path) out.set(path, part)
  }
  return out
}

/** A turn's diff is between two snapshots of its tree: named by the commits the tree was at, never by tree hashes. */
function TurnCommitsLine({ turn }: { turn: TurnCommits }) {
  const short = (c: string) => <code title={c}>{c.slice(0, 8)}</code>
  const plus = (more: boolean) => (more ? ' with changes not committed' : '')
  let words
  if (!turn.fromCommit && !turn.toCommit) words = <>the tree before and after this turn</>
  else if (turn.fromCommit === turn.toCommit)
    words = (
      <>
        on {short(turn.toCommit!)}
        {turn.uncommittedAfter ? ', not committed' : ''}
      </>
    )
  else
    words = (
      <>
        {turn.fromCommit ? short(turn.fromCommit) : 'no commit'}
        {plus(turn.uncommittedBefore)} → {turn.toCommit ? short(turn.toCommit) : 'no commit'}
        {plus(turn.uncommittedAfter)}
      </>
    )
  return (
    <span className="muted small" data-testid="turn-range">
      {words}
    </span>
  )
}

/** A merged task's diff is what was merged: say where it landed, before the range. */
function MergedWords({ merged }: { merged: NonNullable<TaskDiff['merged']> }) {
  return (
    <>
      merged into {merged.branch ?? 'the base branch'} as <code title={merged.commit}>{merged.commit.slice(0, 8)}</code>
      {merged.onto && (
        <>
          {' '}
          (on <code title={merged.onto}>{merged.onto.slice(0, 8)}</code>)
        </>
      )}
      :{' '}
    </>
  )
}

function useDark(): boolean {
  const theme = useApp((s) => s.theme)
  if (theme !== 'system') return theme === 'dark'
  return typeof window !== 'undefined' && window.matchMedia('(prefers-color-scheme: dark)').matches
}

export function ChangesDialog({
  title,
  load,
  onClose,
  taskId,
}: {
  title: string
  load: () => Promise<TaskDiff>
  onClose(): void
  /** A task's diff takes comments on its lines (a turn's diff does not). */
  taskId?: string
}) {
  const comments = useDiffComments(taskId ?? null)
  const [diff, setDiff] = useState<TaskDiff | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [split, setSplit] = useState(false)
  useEffect(() => {
    let alive = true
    load().then(
      (d) => alive && setDiff(d),
      (err: unknown) => alive && setError(asClientError(err).message),
    )
    return () => {
      alive = false
    }
    // Loaded once per opening: the dialog shows the diff as it was when opened.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  const chunks = useMemo(() => (diff ? splitPatch(diff.patch) : new Map<string, string>()), [diff])
  const dark = useDark()
  const adds = diff?.files.reduce((n, f) => n + (f.additions ?? 0), 0) ?? 0
  const dels = diff?.files.reduce((n, f) => n + (f.deletions ?? 0), 0) ?? 0
  return (
    <Modal title={title} onClose={onClose} wide>
      <div className="changes" data-testid="changes">
        <ErrorText error={error ?? undefined} />
        {!diff && !error && <div className="muted">Loading the diff…</div>}
        {diff && (
          <>
            <div className="changes-summary">
              <span>
                {diff.files.length} file{diff.files.length === 1 ? '' : 's'} changed,{' '}
                <span className="add">+{adds}</span> <span className="del">−{dels}</span>
              </span>
              {diff.turn ? (
                <TurnCommitsLine turn={diff.turn} />
              ) : (
                <span className="muted small" data-testid="diff-range">
                  {diff.merged && <MergedWords merged={diff.merged} />}
                  <code title={diff.base}>{diff.base.slice(0, 8)}</code> →{' '}
                  <code title={diff.head}>{diff.head.slice(0, 8)}</code>
                </span>
              )}
              <span className="spacer" />
              <label className="check small">
                <input type="checkbox" checked={split} onChange={(e) => setSplit(e.target.checked)} /> Side by side
              </label>
            </div>
            {diff.turn && diff.turn.commits.length > 0 && (
              <ul className="turn-commits small" data-testid="turn-commits">
                {diff.turn.commits.map((c) => (
                  <li key={c.sha}>
                    <code title={c.sha}>{c.sha.slice(0, 8)}</code> {c.subject}
                  </li>
                ))}
              </ul>
            )}
            {taskId && <CommentsBar state={comments} />}
            {diff.uncommitted.length > 0 && (
              <div className="warn-inline small" data-testid="uncommitted">
                Not committed yet, so not in this diff: {diff.uncommitted.join(', ')}
              </div>
            )}
            {diff.truncated && (
              <div className="warn-inline small">The patch is too large to show whole; the file list is complete.</div>
            )}
            <ul className="changes-files">
              {diff.files.map((f) => (
                <li key={f.path}>
                  <a
                    href={`#diff-${encodeURIComponent(f.path)}`}
                    className={`status status-${f.status}`}
                    title={f.status}
                  >
                    {statusLetter[f.status]}
                  </a>{' '}
                  <span className="path">{f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}</span>{' '}
                  {f.additions === null ? (
                    <span className="muted small">binary</span>
                  ) : (
                    <span className="small">
                      <span className="add">+{f.additions}</span> <span className="del">−{f.deletions}</span>
                    </span>
                  )}
                </li>
              ))}
            </ul>
            {diff.files.map((f) => {
              const hunk = chunks.get(f.path)
              return (
                <section key={f.path} className="changes-file" id={`diff-${encodeURIComponent(f.path)}`}>
                  <div className="changes-file-head">{f.path}</div>
                  {hunk && f.additions !== null ? (
                    <DiffView
                      data={{
                        oldFile: { fileName: f.oldPath ?? f.path },
                        newFile: { fileName: f.path },
                        hunks: [hunk],
                      }}
                      diffViewMode={split ? DiffModeEnum.Split : DiffModeEnum.Unified}
                      diffViewTheme={dark ? 'dark' : 'light'}
                      diffViewHighlight
                      diffViewWrap
                      {...(taskId && {
                        diffViewAddWidget: true,
                        onAddWidgetClick: (line: number, side: SplitSide) =>
                          comments.plusClicked(f.path, sideOf(side), line),
                        extendData: extendDataOf(comments.comments, f.path),
                        renderExtendLine: ({ data }: { data: DiffComment[] }) => (
                          <CommentThread comments={data} state={comments} />
                        ),
                        renderWidgetLine: ({
                          lineNumber,
                          side,
                          onClose: close,
                        }: {
                          lineNumber: number
                          side: SplitSide
                          onClose(): void
                        }) => (
                          <CommentForm
                            key={`${lineNumber}-${comments.from.current ?? ''}`}
                            path={f.path}
                            line={comments.from.current ?? lineNumber}
                            lastLine={lineNumber}
                            side={sideOf(side)}
                            state={comments}
                            onClose={close}
                          />
                        ),
                      })}
                    />
                  ) : (
                    <div className="muted small">
                      {f.additions === null ? 'Binary file' : 'Not shown (cut from a large patch)'}
                    </div>
                  )}
                </section>
              )
            })}
          </>
        )}
      </div>
    </Modal>
  )
}
