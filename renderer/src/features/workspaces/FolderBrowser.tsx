import { useCallback, useEffect, useRef, useState } from 'react'
import type { FolderListing } from '../../../../shared/schemas'
import { asClientError } from '../../api/errors'
import { Badge, ErrorText, Modal } from '../../components/ui'
import { useApp } from '../../stores/app-store'

/**
 * Concord's own folder chooser for the browser (the desktop app uses the system dialog): walks the
 * folders of the machine running Concord, marks git repositories, and hands back the chosen path.
 */
export function FolderBrowser({
  start,
  onChoose,
  onClose,
}: {
  start?: string
  onChoose(path: string): void
  onClose(): void
}) {
  const { listing, typed, typeTo, error, loading, go } = useFolderListing(start)

  return (
    <Modal
      title="Choose a repository folder"
      onClose={onClose}
      wide
      footer={
        <>
          <span className="muted small folder-foot-note">
            {listing && (listing.isRepo ? 'This folder is a git repository.' : 'Not a git repository (see above).')}
          </span>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            className="btn primary"
            disabled={!listing || loading}
            onClick={() => listing && onChoose(listing.path)}
            data-testid="choose-folder"
          >
            Choose this folder
          </button>
        </>
      }
    >
      <FolderPathBar listing={listing} typed={typed} typeTo={typeTo} loading={loading} go={go} />
      <ErrorText error={error} />
      {listing && !listing.isRepo && <NotGitNote />}
      <FolderList listing={listing} loading={loading} go={go} onChoose={onChoose} />
    </Modal>
  )
}

/**
 * The folder listed, and the path in the box. Only the newest listing asked for is shown: a slow first listing (home)
 * answering after the folder you went to must not replace it. And a path you typed while a listing loaded is not
 * overwritten by that listing's path.
 */
function useFolderListing(start: string | undefined) {
  const api = useApp((s) => s.api)
  const [listing, setListing] = useState<FolderListing | null>(null)
  const [typed, setTyped] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [loading, setLoading] = useState(false)

  const asked = useRef(0)
  const typedSince = useRef(false)
  const show = useCallback((n: number, next: FolderListing) => {
    if (n !== asked.current) return false
    setListing(next)
    if (!typedSince.current) setTyped(next.path)
    setError(null)
    return true
  }, [])
  const go = useCallback(
    async (path?: string) => {
      const n = ++asked.current
      typedSince.current = false
      setLoading(true)
      try {
        show(n, await api.call('folders.browse', path ? { path } : {}))
      } catch (err) {
        if (n === asked.current) setError(asClientError(err).message)
      } finally {
        if (n === asked.current) setLoading(false)
      }
    },
    [api, show],
  )

  // Start where the typed path points when it is a folder, else at home.
  useEffect(() => {
    const from = start?.trim()
    if (!from?.startsWith('/')) {
      // Listing the first folder when the browser opens is what this effect is for.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      void go()
      return
    }
    const n = ++asked.current
    api.call('folders.browse', { path: from }).then(
      (l) => void show(n, l),
      () => {
        if (n === asked.current) void go()
      },
    )
  }, [api, start, go, show])
  /** A path typed by hand: no listing that answers later overwrites it. */
  const typeTo = (path: string) => {
    typedSince.current = true
    setTyped(path)
  }
  return { listing, typed, typeTo, error, loading, go }
}
type Listing = ReturnType<typeof useFolderListing>

/** Up, Home, and the path box (Enter goes there). */
function FolderPathBar({ listing, typed, typeTo, loading, go }: Omit<Listing, 'error'>) {
  return (
    <form
      className="folder-path"
      onSubmit={(e) => {
        e.preventDefault()
        // The chooser may be opened from inside another form: this Enter is not that form's submit.
        e.stopPropagation()
        if (typed.trim()) void go(typed.trim())
      }}
    >
      <button
        type="button"
        className="btn"
        disabled={!listing?.parent || loading}
        onClick={() => listing?.parent && void go(listing.parent)}
        title="Parent folder"
        data-testid="folder-up"
      >
        ↑ Up
      </button>
      <button
        type="button"
        className="btn"
        disabled={loading}
        onClick={() => void go(listing?.home)}
        title="Your home folder"
      >
        Home
      </button>
      <input
        value={typed}
        onChange={(e) => typeTo(e.target.value)}
        aria-label="Folder path"
        spellCheck={false}
        data-testid="folder-path"
      />
      <button className="btn" disabled={!typed.trim() || loading}>
        Go
      </button>
    </form>
  )
}

/** The folders in the one listed (a repository chosen with a double click). */
function FolderList({
  listing,
  loading,
  go,
  onChoose,
}: Pick<Listing, 'listing' | 'loading' | 'go'> & { onChoose(path: string): void }) {
  return (
    <div className="folder-list" role="list" aria-busy={loading} data-testid="folder-list">
      {listing && listing.folders.length === 0 && <div className="muted small folder-empty">No folders in here.</div>}
      {listing?.folders.map((f) => (
        <button
          key={f.path}
          role="listitem"
          className="folder-item"
          onClick={() => void go(f.path)}
          onDoubleClick={() => f.isRepo && onChoose(f.path)}
          title={f.path}
          data-testid="folder-item"
        >
          <span className="folder-icon" aria-hidden>
            {f.isRepo ? '◆' : '▸'}
          </span>
          <span className="folder-name">{f.name}</span>
          {f.isRepo && <Badge tone="accent">git</Badge>}
        </button>
      ))}
      {listing?.truncated && (
        <div className="muted small folder-empty">
          Only the first {listing.folders.length.toLocaleString()} folders are listed: type a path above to go further.
        </div>
      )}
    </div>
  )
}

/** What opening a folder that is not a git repository means, and how to make it one. */
export function NotGitNote() {
  return (
    <div className="not-git warn-inline small" data-testid="not-git">
      <strong>This folder is not a git repository.</strong> Members can still work in it, but they all write the folder
      itself: tasks get no branch or worktree of their own, there are no diffs or merges, and a commit given as evidence
      is recorded as typed, never checked against the repository. To have all of that, make it a repository first, in a
      terminal in this folder: <code>git init &amp;&amp; git add -A &amp;&amp; git commit -m "initial"</code>
    </div>
  )
}
