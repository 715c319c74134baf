import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react'
import type { RecordHit, SearchHit } from '../../../../shared/schemas'
import { Avatar, Badge, Modal } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useApp, useAppStore } from '../../stores/app-store'
import { matchActions, paletteActions, type PaletteAction } from './palette-actions'
import { Snippet } from './snippet'
import './search.css'

const kindWords: Partial<Record<SearchHit['kind'], string>> = {
  user: 'you',
  message: 'message',
  model: 'reply',
  notice: 'notice',
  plan: 'plan',
  error: 'error',
}

/** Where a record matched, in words; nothing for its key or title (the row shows those). */
function fieldWords(hit: RecordHit): string {
  switch (hit.field) {
    case 'history':
      return `earlier wording, v${hit.version ?? '?'}`
    case 'acceptance':
      return 'acceptance criteria'
    case 'key':
    case 'title':
      return ''
    default:
      return hit.field
  }
}

const statusTone: Record<string, 'neutral' | 'good' | 'warn' | 'bad' | 'info' | 'accent'> = {
  accepted: 'good',
  pass: 'good',
  proposed: 'info',
  in_progress: 'info',
  delivered: 'accent',
  partial: 'warn',
  blocked: 'warn',
  fail: 'bad',
  rejected: 'bad',
}

const groupNames = { record: 'Decisions, tasks and reports', action: 'Commands', message: 'Messages' } as const

type Item =
  | { type: 'record'; id: string; hit: RecordHit }
  | { type: 'action'; id: string; action: PaletteAction }
  | { type: 'message'; id: string; hit: SearchHit }

interface Answer {
  query: string
  records: RecordHit[]
  messages: SearchHit[]
}

/**
 * The command palette (Ctrl/⌘ K, the sidebar's Search): decisions, tasks and reports by key and words, what was said
 * in the sessions, and the common actions; ↑↓ and Enter jump to one or run it.
 */
export function CommandPalette() {
  const open = useApp((s) => s.paletteOpen)
  const workspaceId = useApp((s) => s.workspaceId)
  const setOpen = useApp((s) => s.setPaletteOpen)
  if (!open || !workspaceId) return null
  return <Palette workspaceId={workspaceId} onClose={() => setOpen(false)} />
}

/** Asks the records and the sessions as the query settles; only the latest question's answer is kept. */
function useSearchAnswer(workspaceId: string, query: string, setActive: (i: number) => void) {
  const api = useApp((s) => s.api)
  const [answer, setAnswer] = useState<Answer | null>(null)
  const [error, setError] = useState<string | null>(null)
  const asked = useRef(0)
  useEffect(() => {
    const q = query.trim()
    const n = ++asked.current
    if (!q) return
    // Typing settles before asking; only the latest question's answer is shown.
    const timer = setTimeout(() => {
      Promise.all([
        api.call('search.records', { workspaceId, query: q, limit: 8 }),
        api.call('sessions.search', { workspaceId, query: q, limit: 20 }),
      ]).then(
        ([records, messages]) => {
          if (n !== asked.current) return
          setAnswer({ query: q, records, messages })
          setActive(0)
          setError(null)
        },
        (err: unknown) => n === asked.current && setError(err instanceof Error ? err.message : String(err)),
      )
    }, 120)
    return () => clearTimeout(timer)
  }, [api, workspaceId, query, setActive])
  return { answer, error }
}

/** The rows in order: a key typed puts its record first, otherwise the matching commands lead. */
function paletteItems(actions: PaletteAction[], q: string, current: Answer | null): Item[] {
  const acts = matchActions(actions, q).map((a): Item => ({ type: 'action', id: `a:${a.id}`, action: a }))
  if (!q) return acts
  const records = (current?.records ?? []).map((h): Item => ({ type: 'record', id: `r:${h.id}`, hit: h }))
  const messages = (current?.messages ?? []).map((h): Item => ({ type: 'message', id: `m:${h.stepId}`, hit: h }))
  // A key typed names a record: it leads. Otherwise a command whose words were typed does.
  const keyed = records[0]?.type === 'record' && records[0].hit.field === 'key'
  return keyed ? [...records, ...acts.slice(0, 4), ...messages] : [...acts.slice(0, 4), ...records, ...messages]
}

function Palette({ workspaceId, onClose }: { workspaceId: string; onClose(): void }) {
  const store = useAppStore()
  // The actions read the state they name when the palette opens (its labels: "Hide the right panel").
  const actions = useMemo(() => paletteActions(store.getState()), [store])
  const [query, setQuery] = useState('')
  const [active, setActive] = useState(0)
  const { answer, error } = useSearchAnswer(workspaceId, query, setActive)
  const list = useRef<HTMLUListElement>(null)

  const q = query.trim()
  const current = q && answer?.query === q ? answer : null
  const items = useMemo(() => paletteItems(actions, q, current), [actions, q, current])

  useEffect(() => {
    list.current?.querySelector('[aria-selected=true]')?.scrollIntoView({ block: 'nearest' })
  }, [active, answer])

  const run = (item: Item) => {
    const s = store.getState()
    onClose()
    if (item.type === 'action') item.action.run(s)
    else if (item.type === 'message') s.focusStep(item.hit.memberId, item.hit.stepId)
    else if (item.hit.kind === 'decision') s.openDecision(item.hit.id)
    else if (item.hit.kind === 'task') s.openTask(item.hit.id)
    else s.openReport(item.hit.id)
  }

  // What is typed changes the list before its answer comes: the choice stays on a row that exists.
  const at = Math.min(active, items.length - 1)
  const waiting = !!q && !current && !error
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault()
      setActive(Math.min(at + 1, items.length - 1))
    } else if (e.key === 'ArrowUp') {
      e.preventDefault()
      setActive(Math.max(at - 1, 0))
    } else if (e.key === 'Enter' && items[at] && !e.nativeEvent.isComposing) {
      e.preventDefault()
      run(items[at])
    }
  }
  return (
    <Modal title="Search and commands" onClose={onClose} wide>
      <div className="search-dialog palette" data-testid="search-dialog">
        <input
          className="search-input"
          value={query}
          placeholder="D-1, a task's words, a report, a message, or a command…"
          aria-label="Search decisions, tasks, reports and messages, or run a command"
          data-testid="search-input"
          role="combobox"
          aria-expanded={items.length > 0}
          aria-controls="palette-items"
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKeyDown}
        />
        {error && (
          <div className="error-text" role="alert">
            {error}
          </div>
        )}
        {current && !items.length && (
          <div className="muted search-none" data-testid="search-none">
            Nothing matches “{q}”: no decision, task, report, message or command.
          </div>
        )}
        {!!items.length && <PaletteList items={items} at={at} listRef={list} setActive={setActive} run={run} />}
        {waiting && !items.length && <div className="muted small search-hint">Searching…</div>}
        <div className="muted small search-hint">
          Finds decisions (what they say and said), tasks, reports and their claims by key or words, and what was said
          in every session; the last word also matches as a prefix. ↑↓ to choose, Enter to open or run, Esc to close.
        </div>
      </div>
    </Modal>
  )
}

/** The rows under group heads, the chosen one marked. */
function PaletteList({
  items,
  at,
  listRef,
  setActive,
  run,
}: {
  items: Item[]
  at: number
  listRef: RefObject<HTMLUListElement | null>
  setActive(i: number): void
  run(item: Item): void
}) {
  return (
    <ul className="search-hits" role="listbox" id="palette-items" aria-label="Matches" ref={listRef}>
      {items.map((item, i) => {
        const head = item.type !== items[i - 1]?.type ? groupNames[item.type] : null
        return (
          <li key={item.id} role="option" aria-selected={i === at}>
            {head && <div className="palette-group">{head}</div>}
            <button
              className={`search-hit${i === at ? ' active' : ''}`}
              onClick={() => run(item)}
              onMouseMove={() => i !== at && setActive(i)}
              tabIndex={-1}
              {...rowProps(item)}
            >
              {item.type === 'record' ? (
                <RecordRow hit={item.hit} />
              ) : item.type === 'action' ? (
                <ActionRow action={item.action} />
              ) : (
                <MessageRow hit={item.hit} />
              )}
            </button>
          </li>
        )
      })}
    </ul>
  )
}

function ActionRow({ action }: { action: PaletteAction }) {
  return (
    <span className="search-hit-head">
      <span className="palette-icon" aria-hidden>
        ›
      </span>
      <span>{action.label}</span>
      <span className="spacer" />
      {action.hint && <span className="muted small">{action.hint}</span>}
    </span>
  )
}

function MessageRow({ hit }: { hit: SearchHit }) {
  const members = useApp((s) => s.members)
  return (
    <>
      <span className="search-hit-head">
        <Avatar id={hit.memberId} name={members[hit.memberId]?.name ?? '?'} size={18} />
        <span className="strong">{members[hit.memberId]?.name ?? 'a member'}</span>
        <span className="muted small">· {kindWords[hit.kind] ?? hit.kind}</span>
        <span className="spacer" />
        <span className="muted small">{shortTime(hit.createdAt)}</span>
      </span>
      <Snippet text={hit.snippet} />
    </>
  )
}
/** Test ids and data a test (or a person's tools) can find a row by. */
function rowProps(item: Item): Record<string, string> {
  if (item.type === 'record')
    return {
      'data-testid': 'search-record',
      'data-key': item.hit.key,
      'data-kind': item.hit.kind,
      'data-field': item.hit.field,
    }
  if (item.type === 'action') return { 'data-testid': 'palette-action', 'data-action': item.action.id }
  return { 'data-testid': 'search-hit', 'data-step-id': item.hit.stepId }
}

function RecordRow({ hit }: { hit: RecordHit }) {
  const where = fieldWords(hit)
  const titleMatched = hit.field === 'title'
  return (
    <>
      <span className="search-hit-head">
        <span className={`palette-key palette-${hit.kind}`}>{hit.key}</span>
        <span className="strong palette-title">{titleMatched ? <Snippet text={hit.snippet} /> : hit.title}</span>
        <span className="spacer" />
        {where && <span className="muted small palette-where">{where}</span>}
        <Badge tone={statusTone[hit.status] ?? 'neutral'}>{hit.status.replace('_', ' ')}</Badge>
      </span>
      {/* A key's hit shows the title alone; a report's title is its kind, so its summary follows. */}
      {!titleMatched && hit.snippet && hit.snippet !== hit.title && <Snippet text={hit.snippet} />}
    </>
  )
}
