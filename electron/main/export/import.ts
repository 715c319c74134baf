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

/** Row number of a local id (`D-3` → 3); ids were checked by the schema. */
const n = (id: string) => Number(id.slice(id.indexOf('-') + 1))
const nOrNull = (id: string | null) => (id === null ? null : n(id))

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

/** Inserts the whole document, one entity per step (restoreSliced runs the steps in short transactions). */
function* insertAll(store: WorkspaceStore, transfer: TransferRepo, doc: ExportDoc): Generator<void, void, void> {
  for (const m of doc.members) {
    transfer.insertMember({
      id: n(m.id),
      name: m.name,
      role: m.role,
      authority: m.authority,
      instructions: m.instructions,
      provider_kind: m.provider?.kind ?? null,
      provider_model: m.provider?.model ?? null,
      provider_base_url: m.provider?.baseURL ?? null,
      archived_at: m.archivedAt ?? null,
      approval: m.approval,
      max_steps: m.maxSteps,
      planning_interval: m.planningInterval,
      network: m.network ? 1 : 0,
      // An agent's command and settings are machine-specific: not in the export, set again after import.
      agent: null,
      agent_command: null,
      agent_args: '[]',
      agent_env: '{}',
      agent_key_variable: null,
      agent_isolated_home: 0,
      acp_session: null,
      created_at: m.createdAt,
      updated_at: m.updatedAt,
    })
    yield
  }
  for (const r of doc.approvalRules ?? []) {
    store.approvalRules.insertWithId({
      id: n(r.id),
      member_id: nOrNull(r.memberId),
      effect: r.effect,
      tool: r.tool,
      command_prefix: r.commandPrefix,
      path_glob: r.pathGlob,
      created_at: r.createdAt,
    })
  }
  yield
  for (const d of doc.decisions) {
    const id = n(d.id)
    transfer.insertDecision({
      id,
      title: d.title,
      statement: d.statement,
      rationale: d.rationale,
      status: d.status,
      version: d.version,
      fingerprint: d.fingerprint,
      source_message_id: d.sourceMessageId,
      supersedes: nOrNull(d.supersedes),
      superseded_by: nOrNull(d.supersededBy),
      created_by: nOrNull(d.createdBy),
      created_at: d.createdAt,
      updated_at: d.updatedAt,
    })
    for (const r of d.revisions) {
      store.decisions.insertRevision({
        decision_id: id,
        version: r.version,
        title: r.title,
        statement: r.statement,
        rationale: r.rationale,
        status: r.status,
        content_hash: r.contentHash,
        fingerprint: r.fingerprint,
        reason: r.reason,
        actor_id: nOrNull(r.actorId),
        editorial: r.editorial ? 1 : 0,
        source_message_id: r.sourceMessageId,
        created_at: r.createdAt,
      })
    }
    yield
  }
  for (const p of doc.proposals) {
    transfer.insertProposal({
      id: n(p.id),
      decision_id: n(p.decisionId),
      author_id: nOrNull(p.authorId),
      base_version: p.baseVersion,
      title: p.title,
      statement: p.statement,
      rationale: p.rationale,
      status: p.status,
      reason: p.reason,
      state: p.state,
      decided_by: nOrNull(p.decidedBy),
      decided_at: p.decidedAt,
      decision_reason: p.decisionReason,
      source_message_id: p.sourceMessageId,
      created_at: p.createdAt,
    })
    yield
  }
  for (const t of doc.tasks) {
    transfer.insertTask({
      id: n(t.id),
      title: t.title,
      spec: t.spec,
      acceptance_criteria: t.acceptanceCriteria,
      status: t.status,
      archived_at: t.archivedAt ?? null,
      assignee_id: nOrNull(t.assigneeId),
      flag: t.flag,
      artifact_commit: t.artifact?.commit ?? null,
      artifact_digest: t.artifact?.digest ?? null,
      required_reports: JSON.stringify(t.requiredReports),
      version: t.version,
      created_at: t.createdAt,
      updated_at: t.updatedAt,
    })
    yield
  }
  // Links and blockers after every task exists (a task may be blocked by a later one).
  for (const t of doc.tasks) {
    store.tasks.replaceLinks(
      n(t.id),
      t.links.map((l) => ({ decisionId: n(l.decisionId), version: l.pinnedVersion, fingerprint: l.pinnedFingerprint })),
    )
    store.tasks.replaceBlockers(n(t.id), t.blockedBy.map(n))
    if (t.planFirst) store.plans.setPlanFirst(n(t.id), true)
    for (const p of t.plans ?? [])
      store.plans.restore({
        task_id: n(t.id),
        n: p.n,
        body: p.body,
        author_id: nOrNull(p.authorId),
        state: p.state,
        submitted_at: p.submittedAt,
        comment: p.comment,
        decided_at: p.decidedAt,
        decided_by: nOrNull(p.decidedBy),
        rejected_to: p.rejectedTo,
      })
    if (t.attemptOf || t.pickedAttempt)
      transfer.setAttempt(n(t.id), t.attemptOf ? n(t.attemptOf) : null, t.pickedAttempt ? n(t.pickedAttempt) : null)
    yield
  }
  for (const r of doc.reports) {
    const id = n(r.id)
    transfer.insertReport({
      id,
      task_id: n(r.taskId),
      author_id: nOrNull(r.authorId),
      kind: r.kind,
      verdict: r.verdict,
      summary: r.summary,
      artifact_commit: r.artifact.commit,
      artifact_digest: r.artifact.digest,
      claim_count: r.claims.length,
      created_at: r.createdAt,
    })
    for (const b of r.basis) store.reports.insertBasis(id, n(b.decisionId), b.version, b.fingerprint)
    r.claims.forEach((c, ordinal) => {
      transfer.insertClaim(n(c.id), id, ordinal, c.text)
      for (const x of c.decisions) store.reports.insertClaimLink(n(c.id), id, n(x.decisionId), x.pinnedFingerprint)
    })
    yield
  }
  for (const x of doc.notices) {
    transfer.insertNotice({
      id: n(x.id),
      member_id: n(x.memberId),
      kind: x.kind,
      decision_id: n(x.decisionId),
      decision_version: x.decisionVersion,
      task_ids: JSON.stringify(x.taskIds.map(n)),
      report_ids: JSON.stringify(x.reportIds.map(n)),
      text: x.text,
      created_at: x.createdAt,
      delivered_at: x.deliveredAt,
    })
    yield
  }
  for (const [name, value] of Object.entries(doc.counters)) transfer.setCounter(name, value)
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

export async function importWorkspace(
  { harness, openStore }: ImportDeps,
  p: ImportParams,
  slicer = new Slicer(),
): Promise<Workspace> {
  absolute(p.repoPath, 'repoPath')
  const { file, bytes } = await readExportFile(p.path)
  const doc = await parseExport(bytes, file, slicer)
  const repoPath = repoFolder(p.repoPath)
  harness.refuseDataDirRepo(repoPath)
  const existing = harness.registry.byPath(repoPath)
  if (existing) {
    throw new ApiError(
      'invalid_params',
      `repoPath: ${repoPath} already has a Concord workspace ("${existing.name}", ${existing.id}); import into a folder that has none — nothing was changed`,
    )
  }
  let id = newWorkspaceId()
  while (harness.registry.byId(id) || existsSync(harness.registry.workspaceFile(id))) id = newWorkspaceId()
  const dbFile = harness.registry.workspaceFile(id)
  const at = now()
  let store: WorkspaceStore | undefined
  try {
    store = openStore(dbFile)
    const s = store
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
    transfer.endSlicedRestore()
    transfer.restoreSlice(() =>
      s.log.appendEvent(
        'workspace.imported',
        { workspaceId: id, repoPath, schemaVersion: doc.schemaVersion, exportedAt: doc.exportedAt },
        at,
      ),
    )
    store.close()
    store = undefined
    const row: WorkspaceRow = {
      id,
      name: p.name ?? doc.workspace.name,
      repo_path: repoPath,
      created_at: doc.workspace.createdAt,
      opened_at: at,
    }
    try {
      harness.registry.insert(row)
    } catch (err) {
      // The folder got a workspace meanwhile (workspaces.open while this import ran, or another process).
      if (harness.registry.byPath(repoPath))
        throw new ApiError(
          'invalid_params',
          `repoPath: ${repoPath} got a Concord workspace while importing; nothing was changed`,
        )
      throw err
    }
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
