/**
 * Restores a JSON export into a brand-new workspace: every row keeps its original number. The file is
 * read, checked and inserted in short slices (several transactions into the new workspace file, the
 * event loop served between them), so a large import never holds up other calls. No one sees the new
 * file meanwhile: the registry learns about the workspace only after the last slice; on any failure the
 * new file is removed and the registry is untouched.
 */
import { constants, existsSync, realpathSync, rmSync, statSync, type Stats } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { Workspace } from '../../../shared/schemas'
import { storageFault } from '../platform/faults'
import { workspaceFileName, workspaceLabel, type Harness } from '../harness/harness'
import { newWorkspaceId, now } from '../harness/ids'
import type { WorkspaceRow } from '../store/registry'
import { TransferRepo } from '../store/transfer-repo'
import type { WorkspaceStore } from '../store/workspace-store'
import { ioError } from './files'
import { JSON_FILE, parseExport } from './json'
import type { ExportDoc } from './schema'
import { insertAll } from './import-rows'
import { Slicer } from './sliced'

export interface ImportParams {
  /** The export file, or a folder holding concord-export.json. */
  path: string
  repoPath: string
  name?: string
}

export interface ImportDeps {
  harness: Harness
  /** Opens (creating and migrating) a workspace file the way the harness does. */
  openStore: (file: string) => WorkspaceStore
}

/** The API has no working directory a caller can see: a relative path would be resolved against the server's. */
function absolute(path: string, field: string): string {
  if (!isAbsolute(path))
    throw new ApiError('invalid_params', `${field}: ${path} is not an absolute path; give the full path`)
  return path
}

/**
 * The largest export file an import reads: under V8's longest string (about 512 MiB), which a malformed file's
 * message needs, and far above a real workspace (100,000 decisions are about 150 MB).
 */
export const IMPORT_MAX_BYTES = 500 * 1024 * 1024

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`

/** What a path that is not a regular file is, for a message. */
function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  if (st.isSocket()) return 'a socket'
  if (st.isDirectory()) return 'a folder'
  return 'not a regular file'
}

const notRegular = (file: string, kind: string) =>
  new ApiError(
    'invalid_params',
    `path: ${file} is ${kind}, not a regular file; give an export file or the folder holding ${JSON_FILE}`,
  )

/**
 * Opens the file for reading without waiting: O_NONBLOCK, so a named pipe with no writer cannot hold the call
 * (what it is is then checked on the open descriptor, never by path first).
 */
async function openForImport(file: string): Promise<FileHandle> {
  try {
    return await open(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new ApiError('invalid_params', `path: ${file} does not exist`)
    // A socket (or a FIFO opened the other way) cannot be opened as a file at all.
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw notRegular(file, 'not a regular file')
    throw ioError(`path: cannot read ${file}`, err)
  }
}

const tooLarge = (file: string, size: string) =>
  new ApiError(
    'payload_too_large',
    `path: ${file} is ${size}; an import reads at most ${megabytes(IMPORT_MAX_BYTES)} (${IMPORT_MAX_BYTES} bytes) — nothing was changed`,
  )

/**
 * The export's bytes: a regular file (or a folder's concord-export.json) of at most IMPORT_MAX_BYTES, checked on
 * the opened descriptor. A named pipe, a device (/dev/zero) or a socket is refused before a byte is read; a file
 * that grows past the limit while it is read is refused at the limit.
 */
async function readExportFile(path: string): Promise<{ file: string; bytes: Buffer }> {
  let file = absolute(path, 'path')
  let handle = await openForImport(file)
  try {
    let st = await handle.stat()
    if (st.isDirectory()) {
      await handle.close()
      file = join(file, JSON_FILE)
      handle = await openForImport(file)
      st = await handle.stat()
    }
    if (!st.isFile()) throw notRegular(file, kindOf(st))
    if (st.size > IMPORT_MAX_BYTES) throw tooLarge(file, megabytes(st.size))
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(8 * 1024 * 1024, IMPORT_MAX_BYTES + 1 - total))
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null)
      if (bytesRead === 0) break
      chunks.push(chunk.subarray(0, bytesRead))
      total += bytesRead
      if (total > IMPORT_MAX_BYTES) throw tooLarge(file, `over the limit (it grew while it was read)`)
    }
    return { file, bytes: Buffer.concat(chunks, total) }
  } catch (err) {
    if (err instanceof ApiError) throw err
    throw ioError(`path: cannot read ${file}`, err)
  } finally {
    await handle.close().catch(() => undefined)
  }
}

function repoFolder(repoPath: string): string {
  try {
    const real = realpathSync(repoPath)
    if (statSync(real).isDirectory()) return real
  } catch {
    // reported below
  }
  throw new ApiError('invalid_params', `repoPath: ${repoPath} is not an existing folder`)
}

function removeWorkspaceFile(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) rmSync(f, { force: true })
}

function restoreError(err: unknown, workspace: { id: string; name: string }): ApiError {
  if (err instanceof ApiError) return err
  const e = err as { code?: string; message?: string }
  if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT')) {
    return new ApiError('invalid_params', `the export could not be restored: ${e.message} (is the file consistent?)`)
  }
  const subject = `The export could not be restored into ${workspaceLabel(workspace)}; nothing was changed`
  return storageFault(err, subject, workspaceFileName(workspace.id)) ?? ioError('the export could not be restored', err)
}

/**
 * Runs the steps in short IMMEDIATE transactions (each as many steps as fit in a slice), yielding to the event
 * loop between them. Returns how many transactions it took.
 */
async function restoreSliced(transfer: TransferRepo, steps: Iterator<void>, slicer: Slicer): Promise<number> {
  let transactions = 0
  for (let done = false; !done;) {
    transfer.restoreSlice(() => {
      do done = steps.next().done === true
      while (!done && !slicer.due())
    })
    transactions++
    if (!done) await slicer.pause()
  }
  return transactions
}

/** The folder must not have a workspace already: an import makes a new one. */
function refuseOccupied(harness: Harness, repoPath: string): void {
  harness.refuseDataDirRepo(repoPath)
  const existing = harness.registry.byPath(repoPath)
  if (existing) {
    throw new ApiError(
      'invalid_params',
      `repoPath: ${repoPath} already has a Concord workspace ("${existing.name}", ${existing.id}); import into a folder that has none — nothing was changed`,
    )
  }
}

/** A workspace id neither the registry nor a file in the data folder has. */
function unusedWorkspaceId(harness: Harness): string {
  let id = newWorkspaceId()
  while (harness.registry.byId(id) || existsSync(harness.registry.workspaceFile(id))) id = newWorkspaceId()
  return id
}

/** Every foreign key of the restored file points at a row, or the export is refused. */
async function refuseDangling(transfer: TransferRepo, file: string, slicer: Slicer): Promise<void> {
  for (const table of transfer.tablesWithForeignKeys()) {
    const dangling = transfer.danglingReferencesIn(table)
    const [first] = dangling
    if (first) {
      throw new ApiError(
        'invalid_params',
        `${file} is not a consistent Concord export: ${first.table} refers to a missing ${first.parent} row`,
      )
    }
    await slicer.tick()
  }
}

interface Restore {
  id: string
  repoPath: string
  at: string
  file: string
  doc: ExportDoc
}

/** The document into the new workspace file, in slices, checked, and the import logged there. */
async function restoreInto(s: WorkspaceStore, r: Restore, slicer: Slicer): Promise<void> {
  const { id, repoPath, at, doc } = r
  const transfer = new TransferRepo(s.db)
  // The new file is not in the registry yet: no one else reads or writes it while its slices go in.
  transfer.beginSlicedRestore()
  await restoreSliced(
    transfer,
    (function* () {
      transfer.setMeta('workspaceId', id)
      transfer.setMeta('repoPath', repoPath)
      transfer.setMeta('importedAt', at)
      transfer.setMeta('importedExportOf', doc.exportedAt)
      yield* insertAll(s, transfer, doc)
    })(),
    slicer,
  )
  await refuseDangling(transfer, r.file, slicer)
  transfer.endSlicedRestore()
  transfer.restoreSlice(() =>
    s.log.appendEvent(
      'workspace.imported',
      { workspaceId: id, repoPath, schemaVersion: doc.schemaVersion, exportedAt: doc.exportedAt },
      at,
    ),
  )
}

/** The new workspace into the registry: the moment others can see it. */
function register(harness: Harness, row: WorkspaceRow): void {
  try {
    harness.registry.insert(row)
  } catch (err) {
    // The folder got a workspace meanwhile (workspaces.open while this import ran, or another process).
    if (harness.registry.byPath(row.repo_path))
      throw new ApiError(
        'invalid_params',
        `repoPath: ${row.repo_path} got a Concord workspace while importing; nothing was changed`,
      )
    throw err
  }
}

export async function importWorkspace(
  { harness, openStore }: ImportDeps,
  p: ImportParams,
  slicer = new Slicer(),
): Promise<Workspace> {
  absolute(p.repoPath, 'repoPath')
  const { file, bytes } = await readExportFile(p.path)
  const doc = await parseExport(bytes, file, slicer)
  const repoPath = repoFolder(p.repoPath)
  refuseOccupied(harness, repoPath)
  const id = unusedWorkspaceId(harness)
  const dbFile = harness.registry.workspaceFile(id)
  const at = now()
  let store: WorkspaceStore | undefined
  try {
    store = openStore(dbFile)
    await restoreInto(store, { id, repoPath, at, file, doc }, slicer)
    store.close()
    store = undefined
    const name = p.name ?? doc.workspace.name
    register(harness, { id, name, repo_path: repoPath, created_at: doc.workspace.createdAt, opened_at: at })
  } catch (err) {
    try {
      store?.close()
    } finally {
      removeWorkspaceFile(dbFile)
    }
    throw restoreError(err, { id, name: p.name ?? doc.workspace.name })
  }
  const workspace = harness.workspace(id)
  harness.bus.emit('workspace.opened', { workspace })
  return workspace
}
