import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react'
import type { AutoTurn, SentNotice } from '../../../../shared/schemas'
import { Avatar, EmptyState, Modal } from '../../components/ui'
import type { ClientApi } from '../../api/bridge-client'
import { shortTime } from '../../lib/format'
import { useApp } from '../../stores/app-store'
import './figure-items.css'

/** The lists behind two figures: notices sent, and the turns Concord started instead of a person relaying the change. */
export type FigureList = 'notices' | 'autoTurns'

const PAGE = 50

interface Page<T> {
  items: T[]
  nextCursor: string | null
  total: number
}

/** Pages of one list, newest first; "Show more" asks for the next page only. */
function usePages<T>(load: (cursor: string | undefined) => Promise<Page<T>>) {
  const [state, setState] = useState<{
    items: T[]
    nextCursor: string | null
    total: number
    loading: boolean
    error: string | null
  }>({
    items: [],
    nextCursor: null,
    total: 0,
    loading: true,
    error: null,
  })
  const asked = useRef(0)
  // State changes only when the answer comes (the first page starts as loading), so the effect sets nothing itself.
  const fetchPage = useCallback(
    (cursor: string | undefined) => {
      const n = ++asked.current
      load(cursor).then(
        (page) =>
          n === asked.current &&
          setState((s) => ({
            items: cursor ? [...s.items, ...page.items] : page.items,
            nextCursor: page.nextCursor,
            total: page.total,
            loading: false,
            error: null,
          })),
        (err: unknown) =>
          n === asked.current &&
          setState((s) => ({ ...s, loading: false, error: err instanceof Error ? err.message : String(err) })),
      )
    },
    [load],
  )
  useEffect(() => fetchPage(undefined), [fetchPage])
  const more = (cursor: string) => {
    setState((s) => ({ ...s, loading: true, error: null }))
    fetchPage(cursor)
  }
  return { ...state, more }
}

/** One list behind a figure: its words, how a page of it is read, and how an item shows. */
interface ItemList<T> {
  title: string
  intro: string
  empty: ReactNode
  load(api: ClientApi, query: { workspaceId: string; limit: number; cursor?: string }): Promise<Page<T>>
  row(item: T, index: number, onClose: () => void): ReactNode
}

const sentNotices: ItemList<SentNotice> = {
  title: 'Notices sent',
  intro:
    'Each notice went to a member whose tasks or reports depend on a decision that changed; it reaches them at their next step.',
  empty: (
    <EmptyState title="No notices yet">
      When a decision changes in substance, every member whose tasks or reports depend on it gets a notice in its next
      step. Editorial fixes send none.
    </EmptyState>
  ),
  load: (api, query) => api.call('notices.sent', query),
  row: (n, _i, onClose) => <NoticeRow key={n.id} notice={n} onClose={onClose} />,
}

const autoTurns: ItemList<AutoTurn> = {
  title: 'Relays you did not have to make',
  intro: 'Turns Concord started itself, so you did not have to tell the member what changed.',
  empty: (
    <EmptyState title="No turn started by Concord yet">
      With automatic turns on (workspace settings), a member whose task is flagged by a change, or whose report a
      delivery made stale, gets a turn without you relaying it.
    </EmptyState>
  ),
  load: (api, query) => api.call('autoTurns.list', query),
  row: (a, i, onClose) => <AutoTurnRow key={`${a.stepId}-${i}`} turn={a} onClose={onClose} />,
}

/** The modal a Figures tile opens: who, about what, when, and a click that opens the step in the member's chat. */
export function FigureItemsDialog({
  list,
  workspaceId,
  onClose,
}: {
  list: FigureList
  workspaceId: string
  onClose(): void
}) {
  return list === 'notices' ? (
    <ItemsFrame key={list} kind={list} list={sentNotices} workspaceId={workspaceId} onClose={onClose} />
  ) : (
    <ItemsFrame key={list} kind={list} list={autoTurns} workspaceId={workspaceId} onClose={onClose} />
  )
}

function ItemsFrame<T>({
  kind,
  list,
  workspaceId,
  onClose,
}: {
  kind: FigureList
  list: ItemList<T>
  workspaceId: string
  onClose(): void
}) {
  const api = useApp((s) => s.api)
  const load = useCallback(
    (cursor: string | undefined) => list.load(api, { workspaceId, limit: PAGE, ...(cursor ? { cursor } : {}) }),
    [api, workspaceId, list],
  )
  const pages = usePages<T>(load)
  const { items, total, nextCursor, loading, error, more } = pages
  const done = !loading || items.length > 0
  return (
    <Modal title={list.title} onClose={onClose} wide>
      <div className="figure-items" data-testid="figure-items" data-list={kind}>
        {done && items.length > 0 && (
          <div className="muted small figure-items-intro">
            {list.intro}{' '}
            {items.length < total
              ? `Showing ${items.length} of ${total}, newest first.`
              : `${total} in all, newest first.`}
          </div>
        )}
        {error && (
          <div className="error-text" role="alert">
            {error}
          </div>
        )}
        {!loading && !error && items.length === 0 && list.empty}
        {items.length > 0 && (
          <ul className="figure-items-list">{items.map((item, i) => list.row(item, i, onClose))}</ul>
        )}
        {loading && items.length === 0 && <div className="muted small">Loading…</div>}
        {nextCursor && (
          <button
            className="btn small figure-items-more"
            onClick={() => more(nextCursor)}
            disabled={loading}
            data-testid="figure-items-more"
          >
            {loading ? 'Loading…' : `Show more (${total - items.length} left)`}
          </button>
        )}
      </div>
    </Modal>
  )
}

/** A row that opens the member's chat at the step (or at its end when there is no step yet). */
function ItemRow({
  memberId,
  stepId,
  title,
  onClose,
  children,
}: {
  memberId: string
  stepId: string | null
  title: string
  onClose(): void
  children: ReactNode
}) {
  const focusStep = useApp((s) => s.focusStep)
  const member = useApp((s) => s.members[memberId])
  return (
    <li>
      <button
        className="figure-item"
        data-testid="figure-item"
        data-step-id={stepId ?? ''}
        title={title}
        onClick={() => {
          focusStep(memberId, stepId)
          onClose()
        }}
      >
        <Avatar id={memberId} name={member?.name ?? '?'} size={22} />
        <span className="figure-item-body">
          <span className="strong">{member?.name ?? 'a member'}</span>
          {children}
        </span>
      </button>
    </li>
  )
}

function taskList(keys: string[], count: number): string {
  if (count === 0) return ''
  return count > keys.length ? `${keys.join(', ')} and ${count - keys.length} more` : keys.join(', ')
}

function NoticeRow({ notice: n, onClose }: { notice: SentNotice; onClose(): void }) {
  const tasks = taskList(n.taskKeys, n.taskCount)
  const reports =
    n.reportCount > 0 ? `${n.reportCount} ${n.reportCount === 1 ? 'report' : 'reports'} with stale evidence` : ''
  const about = [tasks && `tasks ${tasks}`, reports].filter(Boolean).join(' · ')
  return (
    <ItemRow
      memberId={n.memberId}
      stepId={n.stepId}
      onClose={onClose}
      title={
        n.stepId
          ? 'Open the step that delivered it, in the member’s chat'
          : 'Not delivered yet: opens the member’s chat, where it arrives with the next step'
      }
    >
      <span className="figure-item-what">
        <span className="figure-item-key">
          {n.decisionKey} v{n.decisionVersion}
        </span>{' '}
        changed{about && <span className="muted"> · {about}</span>}
      </span>
      <span className="figure-item-meta">
        {n.deliveredAt ? (
          <span className="badge badge-good">delivered {shortTime(n.deliveredAt)}</span>
        ) : (
          <span className="badge badge-warn">pending</span>
        )}
        <span className="muted small">sent {shortTime(n.createdAt)}</span>
      </span>
    </ItemRow>
  )
}

const causeWords: Record<AutoTurn['cause'], string> = {
  task_flagged: 'flagged task',
  evidence_stale: 'stale evidence',
  other: 'started by Concord',
}

function AutoTurnRow({ turn: a, onClose }: { turn: AutoTurn; onClose(): void }) {
  return (
    <ItemRow
      memberId={a.memberId}
      stepId={a.stepId}
      onClose={onClose}
      title="Open the message Concord put into the member’s chat"
    >
      <span className="figure-item-what">{a.trigger}</span>
      <span className="figure-item-meta">
        <span className="badge badge-info">{causeWords[a.cause]}</span>
        <span className="muted small">{shortTime(a.createdAt)}</span>
      </span>
    </ItemRow>
  )
}
