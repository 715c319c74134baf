import { useEffect, useRef, useState } from 'react'
import type { SearchHit } from '../../../../shared/schemas'
import { Avatar, Modal } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useApp } from '../../stores/app-store'
import { Snippet } from './snippet'
import './search.css'

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.userAgent)
const kindWords: Partial<Record<SearchHit['kind'], string>> = {
  user: 'you',
  message: 'message',
  model: 'reply',
  notice: 'notice',
  plan: 'plan',
  error: 'error',
}

/** The sidebar's search button and Ctrl/⌘+Shift+F: find what was said in any member's session and jump to it. */
export function SearchButton() {
  const [open, setOpen] = useState(false)
  const workspaceId = useApp((s) => s.workspaceId)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey && e.key.toLowerCase() === 'f') {
        e.preventDefault()
        setOpen(true)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  if (!workspaceId) return null
  return (
    <>
      <button
        className="search-open"
        onClick={() => setOpen(true)}
        data-testid="search-open"
        title="Search every session (Ctrl/⌘ Shift F)"
      >
        <span aria-hidden>⌕</span>
        <span className="search-open-label">Search</span>
        <kbd>{isMac ? '⇧⌘F' : 'Ctrl⇧F'}</kbd>
      </button>
      {open && <SearchDialog workspaceId={workspaceId} onClose={() => setOpen(false)} />}
    </>
  )
}

function SearchDialog({ workspaceId, onClose }: { workspaceId: string; onClose(): void }) {
  const api = useApp((s) => s.api)
  const members = useApp((s) => s.members)
  const focusStep = useApp((s) => s.focusStep)
  const [query, setQuery] = useState('')
  const [answer, setHits] = useState<SearchHit[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [active, setActive] = useState(0)
  const asked = useRef(0)

  useEffect(() => {
    const q = query.trim()
    const n = ++asked.current
    if (!q) return
    // Typing settles before asking; only the latest question's answer is shown.
    const timer = setTimeout(() => {
      api.call('sessions.search', { workspaceId, query: q, limit: 50 }).then(
        (r) => {
          if (n !== asked.current) return
          setHits(r)
          setActive(0)
          setError(null)
        },
        (err: unknown) => n === asked.current && setError(err instanceof Error ? err.message : String(err)),
      )
    }, 150)
    return () => clearTimeout(timer)
  }, [api, workspaceId, query])

  // An empty box shows the hint, not the last answer.
  const hits = query.trim() ? answer : null
  const jump = (hit: SearchHit) => {
    focusStep(hit.memberId, hit.stepId)
    onClose()
  }

  return (
    <Modal title="Search messages" onClose={onClose} wide>
      <div className="search-dialog" data-testid="search-dialog">
        <input
          className="search-input"
          value={query}
          placeholder="Words from any member's session…"
          aria-label="Search messages"
          data-testid="search-input"
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (!hits?.length) return
            if (e.key === 'ArrowDown') {
              e.preventDefault()
              setActive((a) => Math.min(a + 1, hits.length - 1))
            } else if (e.key === 'ArrowUp') {
              e.preventDefault()
              setActive((a) => Math.max(a - 1, 0))
            } else if (e.key === 'Enter' && hits[active]) {
              e.preventDefault()
              jump(hits[active])
            }
          }}
        />
        {error && (
          <div className="error-text" role="alert">
            {error}
          </div>
        )}
        {hits && !hits.length && <div className="muted search-none">No message matches “{query.trim()}”.</div>}
        {!!hits?.length && (
          <ul className="search-hits" role="listbox" aria-label="Matches">
            {hits.map((h, i) => {
              const m = members[h.memberId]
              return (
                <li key={h.stepId} role="option" aria-selected={i === active}>
                  <button
                    className={`search-hit${i === active ? ' active' : ''}`}
                    onClick={() => jump(h)}
                    onMouseEnter={() => setActive(i)}
                    data-testid="search-hit"
                    data-step-id={h.stepId}
                  >
                    <span className="search-hit-head">
                      <Avatar id={h.memberId} name={m?.name ?? '?'} size={18} />
                      <span className="strong">{m?.name ?? 'a member'}</span>
                      <span className="muted small">· {kindWords[h.kind] ?? h.kind}</span>
                      <span className="spacer" />
                      <span className="muted small">{shortTime(h.createdAt)}</span>
                    </span>
                    <Snippet text={h.snippet} />
                  </button>
                </li>
              )
            })}
          </ul>
        )}
        {!hits && !error && (
          <div className="muted small search-hint">
            Finds words in what you, the members and their models said; the last word also matches as a prefix. ↑↓ to
            choose, Enter to open.
          </div>
        )}
      </div>
    </Modal>
  )
}
