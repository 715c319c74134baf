import { useEffect, useState } from 'react'
import type { ArchivedItems, Workspace } from '../../../../shared/schemas'
import { Modal } from '../../components/ui'
import { shortTime } from '../../lib/format'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { ArchiveButton } from './ArchiveButton'
import './archive.css'

/** The sidebar's "Archived" link and its dialog: archived members, tasks and workspaces, each with Restore. */
export function ArchivedLink({ testId = 'archived-open' }: { testId?: string }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button
        className="link-btn small archived-open"
        onClick={() => setOpen(true)}
        title="Archived members, tasks and workspaces: restore them from here"
        data-testid={testId}
      >
        Archived…
      </button>
      {open && <ArchivedDialog onClose={() => setOpen(false)} />}
    </>
  )
}

type ArchivedKind = 'member' | 'task' | 'workspace'

/** What is archived (this workspace's members and tasks, and every archived workspace), and Restore for each. */
function useArchived() {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)
  const loadWorkspaces = useApp((s) => s.loadWorkspaces)
  const [items, setItems] = useState<ArchivedItems | null>(null)
  const [workspaces, setWorkspaces] = useState<Workspace[]>([])
  const load = useAction(async () => {
    const [archived, ws] = await Promise.all([
      workspaceId ? api.call('archive.list', { workspaceId }) : Promise.resolve({ members: [], tasks: [] }),
      api.call('workspaces.archived', {}),
    ])
    setItems(archived)
    setWorkspaces(ws)
    return true
  })
  const loadNow = load.run
  useEffect(() => {
    void loadNow()
  }, [loadNow])
  const restore = useAction(async (kind: ArchivedKind, id: string) => {
    if (kind === 'member') await api.call('members.restore', { memberId: id })
    else if (kind === 'task') await api.call('tasks.restore', { taskId: id })
    else {
      await api.call('workspaces.restore', { workspaceId: id })
      await loadWorkspaces()
    }
    await load.run()
    return true
  })
  return { items, workspaces, load, restore }
}

/** One archived item as a row shows it: what it is, and when it was archived. */
interface ArchivedItem {
  id: string
  title: string
  sub: string
  at: string | null | undefined
}

/** One archived item: what it is, when it was archived, and Restore. */
function ArchivedRow({
  kind,
  item: { id, title, sub, at },
  restore,
}: {
  kind: ArchivedKind
  item: ArchivedItem
  restore: { pending: boolean; run(kind: ArchivedKind, id: string): unknown }
}) {
  return (
    <li className="archived-row" data-testid={`archived-${kind}`} data-id={id}>
      <span className="archived-title">{title}</span>
      <span className="muted small">{sub}</span>
      <span className="muted small archived-when">archived {at ? shortTime(at) : ''}</span>
      <button
        className="btn small"
        disabled={restore.pending}
        onClick={() => void restore.run(kind, id)}
        data-testid={`restore-${kind}`}
      >
        Restore
      </button>
    </li>
  )
}

/** The dialog's sections, in order: each kind's heading and its items as rows show them. */
function archivedSections(items: ArchivedItems | null, workspaces: Workspace[]) {
  const sections: { kind: ArchivedKind; heading: string; items: ArchivedItem[] }[] = [
    {
      kind: 'member',
      heading: 'Members',
      items: (items?.members ?? []).map((m) => ({ id: m.id, title: m.name, sub: m.role, at: m.archivedAt })),
    },
    {
      kind: 'task',
      heading: 'Tasks',
      items: (items?.tasks ?? []).map((t) => ({
        id: t.id,
        title: `${t.key} ${t.title}`,
        sub: t.status.replace('_', ' '),
        at: t.archivedAt,
      })),
    },
    {
      kind: 'workspace',
      heading: 'Workspaces',
      items: workspaces.map((w) => ({ id: w.id, title: w.name, sub: w.repoPath, at: w.archivedAt })),
    },
  ]
  return sections.filter((section) => section.items.length > 0)
}

function ArchivedDialog({ onClose }: { onClose(): void }) {
  const workspace = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId))
  const { items, workspaces, load, restore } = useArchived()
  const empty = items && !items.members.length && !items.tasks.length && !workspaces.length
  return (
    <Modal title="Archived" onClose={onClose}>
      <div className="archived-view" data-testid="archived-view">
        <p className="muted small">
          Archived items are hidden from lists; they stay in the store and the export. Restore brings one back as it
          was.
        </p>
        {(load.error ?? restore.error) && (
          <div className="error-text" role="alert">
            {(load.error ?? restore.error)?.message}
          </div>
        )}
        {!items && !load.error && <div className="muted">Loading…</div>}
        {empty && <div className="muted">Nothing is archived.</div>}
        {archivedSections(items, workspaces).map(({ kind, heading, items }) => (
          <section key={kind}>
            <h4>{heading}</h4>
            <ul>
              {items.map((item) => (
                <ArchivedRow key={item.id} kind={kind} item={item} restore={restore} />
              ))}
            </ul>
          </section>
        ))}
        {workspace && (
          <div className="archived-foot">
            <ArchiveButton
              target={{ kind: 'workspace', id: workspace.id }}
              label={`Archive workspace “${workspace.name}”`}
              onDone={onClose}
            />
          </div>
        )}
      </div>
    </Modal>
  )
}

/** On the welcome screen: archived workspaces, each with Restore (nothing shows when none is archived). */
export function ArchivedWorkspaces() {
  const api = useApp((s) => s.api)
  const loadWorkspaces = useApp((s) => s.loadWorkspaces)
  const [list, setList] = useState<Workspace[]>([])
  const load = useAction(async () => {
    setList(await api.call('workspaces.archived', {}))
    return true
  })
  const loadNow = load.run
  useEffect(() => {
    void loadNow()
  }, [loadNow])
  const restore = useAction(async (id: string) => {
    await api.call('workspaces.restore', { workspaceId: id })
    await Promise.all([loadWorkspaces(), load.run()])
    return true
  })
  if (!list.length) return null
  return (
    <div className="recent archived-workspaces" data-testid="archived-workspaces">
      <h3>Archived workspaces</h3>
      <ul>
        {list.map((w) => (
          <li key={w.id} className="archived-row" data-testid="archived-workspace" data-id={w.id}>
            <span className="archived-title">{w.name}</span>
            <span className="muted small">{w.repoPath}</span>
            <span className="muted small archived-when">archived {shortTime(w.archivedAt)}</span>
            <button
              className="btn small"
              disabled={restore.pending}
              onClick={() => void restore.run(w.id)}
              data-testid="restore-workspace"
            >
              Restore
            </button>
          </li>
        ))}
      </ul>
      {restore.error && <div className="error-text">{restore.error.message}</div>}
    </div>
  )
}
