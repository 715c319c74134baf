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
import {
  CommentForm,
  CommentThread,
  CommentsBar,
  extendDataOf,
  sideOf,
  useDiffComments,
  type DiffCommentsState,
} from './DiffComments'

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

/** Loads the diff once per opening: the dialog shows the diff as it was when opened. */
function useLoadedDiff(load: () => Promise<TaskDiff>) {
  const [diff, setDiff] = useState<TaskDiff | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let alive = true
    load().then(
      (d) => alive && setDiff(d),
      (err: unknown) => alive && setError(asClientError(err).message),
    )
    return () => {
      alive = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  return { diff, error }
}

/** The counts, the range the diff spans and the side-by-side switch. */
function ChangesSummary({ diff, split, setSplit }: { diff: TaskDiff; split: boolean; setSplit(split: boolean): void }) {
  const adds = diff.files.reduce((n, f) => n + (f.additions ?? 0), 0)
  const dels = diff.files.reduce((n, f) => n + (f.deletions ?? 0), 0)
  return (
    <div className="changes-summary">
      <span>
        {diff.files.length} file{diff.files.length === 1 ? '' : 's'} changed, <span className="add">+{adds}</span>{' '}
        <span className="del">−{dels}</span>
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
  )
}

/** The file list: status letter linking to the file's diff, the path, the line counts. */
function ChangedFileList({ files }: { files: DiffFile[] }) {
  return (
    <ul className="changes-files">
      {files.map((f) => (
        <li key={f.path}>
          <a href={`#diff-${encodeURIComponent(f.path)}`} className={`status status-${f.status}`} title={f.status}>
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
  )
}

/** The props that let a task's diff take comments on its lines. */
function commentProps(comments: DiffCommentsState, path: string) {
  return {
    diffViewAddWidget: true,
    onAddWidgetClick: (line: number, side: SplitSide) => comments.plusClicked(path, sideOf(side), line),
    extendData: extendDataOf(comments.comments, path),
    renderExtendLine: ({ data }: { data: DiffComment[] }) => <CommentThread comments={data} state={comments} />,
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
        path={path}
        line={comments.from.current ?? lineNumber}
        lastLine={lineNumber}
        side={sideOf(side)}
        state={comments}
        onClose={close}
      />
    ),
  }
}

/** One file's diff, or why it is not shown. */
function FileDiff({
  file: f,
  hunk,
  split,
  comments,
}: {
  file: DiffFile
  hunk: string | undefined
  split: boolean
  /** Set for a task's diff, which takes comments. */
  comments: DiffCommentsState | null
}) {
  const dark = useDark()
  return (
    <section className="changes-file" id={`diff-${encodeURIComponent(f.path)}`}>
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
          {...(comments && commentProps(comments, f.path))}
        />
      ) : (
        <div className="muted small">{f.additions === null ? 'Binary file' : 'Not shown (cut from a large patch)'}</div>
      )}
    </section>
  )
}

/** What the diff says about itself: the turn's commits, the comments, what is missing from it. */
function ChangesNotes({ diff, comments }: { diff: TaskDiff; comments: DiffCommentsState | null }) {
  return (
    <>
      {diff.turn && diff.turn.commits.length > 0 && (
        <ul className="turn-commits small" data-testid="turn-commits">
          {diff.turn.commits.map((c) => (
            <li key={c.sha}>
              <code title={c.sha}>{c.sha.slice(0, 8)}</code> {c.subject}
            </li>
          ))}
        </ul>
      )}
      {comments && <CommentsBar state={comments} />}
      {diff.uncommitted.length > 0 && (
        <div className="warn-inline small" data-testid="uncommitted">
          Not committed yet, so not in this diff: {diff.uncommitted.join(', ')}
        </div>
      )}
      {diff.truncated && (
        <div className="warn-inline small">The patch is too large to show whole; the file list is complete.</div>
      )}
    </>
  )
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
  const { diff, error } = useLoadedDiff(load)
  const [split, setSplit] = useState(false)
  const chunks = useMemo(() => (diff ? splitPatch(diff.patch) : new Map<string, string>()), [diff])
  const commenting = taskId ? comments : null
  return (
    <Modal title={title} onClose={onClose} wide>
      <div className="changes" data-testid="changes">
        <ErrorText error={error ?? undefined} />
        {!diff && !error && <div className="muted">Loading the diff…</div>}
        {diff && (
          <>
            <ChangesSummary diff={diff} split={split} setSplit={setSplit} />
            <ChangesNotes diff={diff} comments={commenting} />
            <ChangedFileList files={diff.files} />
            {diff.files.map((f) => (
              <FileDiff key={f.path} file={f} hunk={chunks.get(f.path)} split={split} comments={commenting} />
            ))}
          </>
        )}
      </div>
    </Modal>
  )
}
