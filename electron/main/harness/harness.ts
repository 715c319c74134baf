import { realpathSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { refuseDataDirRepo } from '../platform/data-dir'
import type { Workspace } from '../../../shared/schemas'
import type { EventBus } from '../platform/events/event-bus'
import { storageFault } from '../platform/faults'
import { Registry, type WorkspaceRow } from '../store/registry'
import { WorkspaceStore } from '../store/workspace-store'
import { WorkspaceArchiveRepo } from '../store/archive-repo'
import type { SecretStore } from '../platform/secrets/secret-store'
import type { Ctx } from './context'
import { isWorkspaceId, newWorkspaceId, now, parseId, type EntityKind } from './ids'

export interface HarnessOptions {
  dataDir: string
  bus: EventBus
  secrets: SecretStore
  nativeBinding?: string
}

/** How messages name a workspace: by name and id, never by the path of its file. */
export const workspaceLabel = (r: Pick<WorkspaceRow, 'id' | 'name'>): string => `workspace "${r.name}" (${r.id})`
/** A workspace's file as a person finds it, relative to the data folder. */
export const workspaceFileName = (id: string): string => `workspaces/${id}.sqlite in the data folder`

export const toWorkspace = (r: WorkspaceRow): Workspace => ({
  id: r.id,
  name: r.name,
  repoPath: r.repo_path,
  createdAt: r.created_at,
  archivedAt: r.archived_at ?? null,
})

/** The registry of workspaces and their open harness files; hands out a Ctx per workspace. */
export class Harness {
  readonly registry: Registry
  readonly bus: EventBus
  readonly secrets: SecretStore
  private readonly stores = new Map<string, WorkspaceStore>()
  private readonly closers = new Set<() => void>()

  constructor(private readonly options: HarnessOptions) {
    this.registry = new Registry(options.dataDir)
    this.bus = options.bus
    this.secrets = options.secrets
  }

  openWorkspace(repoPath: string, name?: string): Workspace {
    let real: string
    try {
      real = realpathSync(repoPath)
      if (!statSync(real).isDirectory()) throw new Error('not a directory')
    } catch {
      throw new ApiError('invalid_params', `repoPath: ${repoPath} is not an existing folder`)
    }
    refuseDataDirRepo(this.options.dataDir, real)
    const at = now()
    const existing = this.registry.byPath(real)
    if (existing) {
      this.registry.touch(existing.id, at, name)
      // Opening an archived workspace's folder again is asking for it back.
      if (existing.archived_at) new WorkspaceArchiveRepo(this.registry.db).set(existing.id, null)
      this.ctx(existing.id)
      return toWorkspace(this.registry.byId(existing.id)!)
    }
    const row: WorkspaceRow = {
      id: newWorkspaceId(),
      name: name ?? basename(real),
      repo_path: real,
      created_at: at,
      opened_at: at,
    }
    const store = this.openWorkspaceStore(row)
    store.transaction(() => {
      store.db
        .prepare('INSERT INTO meta (key, value) VALUES (?, ?), (?, ?)')
        .run('workspaceId', row.id, 'repoPath', real)
      store.log.appendEvent('workspace.created', { workspaceId: row.id, repoPath: real }, at)
    })
    this.registry.insert(row)
    this.stores.set(row.id, store)
    const workspace = toWorkspace(row)
    this.bus.emit('workspace.opened', { workspace })
    return workspace
  }

  /** Refuses a repository folder (a real path) that is, lies inside or holds the data folder. */
  refuseDataDirRepo(real: string): void {
    refuseDataDirRepo(this.options.dataDir, real)
  }

  /** Opens a workspace file with the same SQLite binding the harness uses (Electron's ABI in the app). */
  openStore(file: string, label?: string): WorkspaceStore {
    return WorkspaceStore.open(file, { nativeBinding: this.options.nativeBinding, label })
  }

  /**
   * A second connection to a workspace's file, for a long read in slices that holds a snapshot of its own while the
   * workspace's connection goes on writing (the export download). The caller closes it.
   */
  openReader(workspaceId: string): WorkspaceStore {
    this.workspace(workspaceId)
    return this.openWorkspaceStore(this.registry.byId(workspaceId)!)
  }

  /** The data folder (the export download writes its zips under it). */
  get dataDir(): string {
    return this.options.dataDir
  }

  /** Opens a workspace's file; a failure names the workspace, not the file's path. */
  private openWorkspaceStore(row: Pick<WorkspaceRow, 'id' | 'name'>): WorkspaceStore {
    const label = workspaceLabel(row)
    try {
      return this.openStore(this.registry.workspaceFile(row.id), label)
    } catch (err) {
      throw storageFault(err, label, workspaceFileName(row.id)) ?? err
    }
  }

  listWorkspaces(): Workspace[] {
    return this.registry.list().map(toWorkspace)
  }

  workspace(id: string): Workspace {
    const row = isWorkspaceId(id) ? this.registry.byId(id) : undefined
    if (!row) throw new ApiError('not_found', `workspaceId: workspace ${id} does not exist`)
    return toWorkspace(row)
  }

  /** The context of a workspace by its id. */
  ctx(workspaceId: string, field = 'workspaceId'): Ctx {
    let store = this.stores.get(workspaceId)
    if (!store) {
      const row = isWorkspaceId(workspaceId) ? this.registry.byId(workspaceId) : undefined
      if (!row) throw new ApiError('not_found', `${field}: workspace ${workspaceId} does not exist`)
      store = this.openWorkspaceStore(row)
      this.stores.set(row.id, store)
    }
    return { wsId: workspaceId, store, emit: (e, p) => this.bus.emit(e, p) }
  }

  /** The context of the workspace an entity id belongs to. */
  ctxOf(kind: EntityKind, id: string, field: string): Ctx {
    return this.ctx(parseId(id, kind, field).workspaceId, field)
  }

  /** Runs `fn` when the harness closes (before its files do): watchers a workspace started stop with it. */
  onClose(fn: () => void): void {
    this.closers.add(fn)
  }

  close(): void {
    for (const fn of this.closers) fn()
    this.closers.clear()
    for (const s of this.stores.values()) s.close()
    this.stores.clear()
    this.registry.close()
  }
}
