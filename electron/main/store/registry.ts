import { join } from 'node:path'
import { ensureDataDir } from '../platform/data-dir'
import { storageFault } from '../platform/faults'
import { openDatabase, type Db } from './connection'

const registryMigrations = [
  {
    name: '001-workspaces',
    up: `CREATE TABLE workspaces (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      repo_path TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      opened_at TEXT NOT NULL
    ) STRICT;`,
  },
  // An archived workspace is out of the list and keeps its file (store/archive-repo.ts sets it).
  { name: '002-archive', up: 'ALTER TABLE workspaces ADD COLUMN archived_at TEXT;' },
]

export interface WorkspaceRow {
  id: string
  name: string
  repo_path: string
  created_at: string
  opened_at: string
  archived_at?: string | null
}

/** The data folder's index of workspaces; each workspace's harness lives in its own file. */
export class Registry {
  readonly db: Db
  private readonly stmts

  constructor(readonly dataDir: string) {
    ensureDataDir(dataDir)
    const file = join(dataDir, 'concord.sqlite')
    try {
      this.db = openDatabase(file, { migrations: registryMigrations, label: `The workspace registry ${file}` })
    } catch (err) {
      // Only at start, to the person starting Concord: the full path is what they need to act on.
      throw storageFault(err, `The workspace registry ${file}`, file) ?? err
    }
    this.stmts = {
      byPath: this.db.prepare<[string], WorkspaceRow>('SELECT * FROM workspaces WHERE repo_path = ?'),
      byId: this.db.prepare<[string], WorkspaceRow>('SELECT * FROM workspaces WHERE id = ?'),
      list: this.db.prepare<[], WorkspaceRow>(
        'SELECT * FROM workspaces WHERE archived_at IS NULL ORDER BY opened_at DESC',
      ),
      insert: this.db.prepare(
        'INSERT INTO workspaces (id, name, repo_path, created_at, opened_at) VALUES (?, ?, ?, ?, ?)',
      ),
      touch: this.db.prepare('UPDATE workspaces SET opened_at = ?, name = coalesce(?, name) WHERE id = ?'),
    }
  }

  workspaceFile(id: string): string {
    return join(this.dataDir, 'workspaces', `${id}.sqlite`)
  }

  byPath(repoPath: string): WorkspaceRow | undefined {
    return this.stmts.byPath.get(repoPath)
  }

  byId(id: string): WorkspaceRow | undefined {
    return this.stmts.byId.get(id)
  }

  list(): WorkspaceRow[] {
    return this.stmts.list.all()
  }

  insert(row: WorkspaceRow): void {
    this.stmts.insert.run(row.id, row.name, row.repo_path, row.created_at, row.opened_at)
  }

  touch(id: string, at: string, name?: string): void {
    this.stmts.touch.run(at, name ?? null, id)
  }

  close(): void {
    this.db.close()
  }
}
