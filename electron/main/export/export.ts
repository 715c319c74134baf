/**
 * `export.decisionLog`: the decision log of a workspace as files a developer commits.
 *
 * Where the files go (outDir defaults to the workspace's repository folder; a relative outDir is
 * taken relative to that folder):
 * - madr:     without outDir the repository's ADR folder — the one `.adr-dir` or `.log4brains.yml`
 *             names, else `docs/decisions` (`doc/adr` for the adr-tools flavour, `docs/adr` for
 *             log4brains) — as `NNNN-slug.md`; with outDir `<outDir>/NNNN-slug.md`. `flavour`
 *             chooses the layout: `madr` (MADR 4), `adr-tools` or `log4brains`; without it, the one the
 *             repository's conventions ask for (`.log4brains.yml` → log4brains, `.adr-dir` → adr-tools, else MADR 4).
 * - markdown: `<outDir>/DECISIONS.md`.
 * - json:     `<outDir>/concord-export.json` and its JSON Schema, `concord-export.schema.json`.
 *
 * `folder` (the app's folder field) is a folder of the repository, relative to it, validated strictly
 * (folder_outside_repo); `outDir` (the CLI's --out) may be any folder. `dryRun` plans the export on the same
 * code path and writes nothing; `export.download` packs the same files into a zip instead of writing them.
 *
 * The result's `outDir` is the folder the files were written into; `files` lists every file of the
 * export (absolute paths), whether its content changed or not, and `changed` those whose content is new. Files whose content is unchanged are
 * not rewritten, and files Concord did not write are never overwritten. Nothing is written through a
 * symbolic link: not a folder of the repository on the way to the files, nor an existing export file.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { ExportDownload, ExportResult, Workspace } from '../../../shared/schemas'
import type { Harness } from '../harness/harness'
import { now } from '../harness/ids'
import { gitUserName } from '../repo/git-repo'
import { TransferRepo } from '../store/transfer-repo'
import type { WorkspaceStore } from '../store/workspace-store'
import { adrContextOf, flavours, type Flavour } from './adr-model'
import { adrFolder, repoFlavour, repoFolder } from './conventions'
import {
  checkCreatableDir,
  ensureWritableDir,
  readTextIfExists,
  refuseLinksInRepo,
  writeBatch,
  type PlannedFile,
} from './files'
import { isConcordJson, JSON_FILE, renderJson, renderJsonPieces } from './json'
import { exportJsonSchema, isConcordSchema, SCHEMA_FILE } from './json-schema'
import { AdrNumbers, pageRefs } from './adr-numbers'
import { madrPlacerSliced, planMadr, renderAdr } from './madr'
import { isConcordLog, LOG_FILE, renderLog, renderLogPieces } from './markdown'
import { sweepDownloads, writeZip } from './downloads'
import {
  countDecisions,
  readContext,
  readDecisionHeads,
  readDecisionPage,
  readDecisionTitle,
  readSnapshot,
} from './snapshot'
import { Slicer } from './sliced'
import type { DecisionDoc } from './schema'
import type { ZipWriter } from './zip'

export type ExportFormat = ExportResult['format']

export interface ExportParams {
  workspaceId: string
  format: ExportFormat
  outDir?: string
  /** A folder of the repository, relative to it; not with outDir. */
  folder?: string
  /** The layout of MADR files (format madr only). */
  flavour?: Flavour
  /** Plan and list, write nothing. */
  dryRun?: boolean
  /** Overwrite MADR files edited since Concord wrote them (else refused with file_edited). */
  overwriteEdited?: boolean
}

export const formats: readonly ExportFormat[] = ['madr', 'markdown', 'json']

/** One Concord-owned file: refused when a file of that name exists and is not Concord's. */
function ownedFile(path: string, content: string, isOurs: (text: string) => boolean): PlannedFile {
  const current = readTextIfExists(path)
  if (current !== null && !isOurs(current)) {
    throw new ApiError(
      'invalid_params',
      `outDir: ${path} exists and was not written by Concord; move it away or export to another folder`,
    )
  }
  return { path, content }
}

interface ExportPlan {
  repo: string
  dir: string
  files: PlannedFile[]
  /** Written with the files but not listed (adr-tools' sequence lock). */
  support: PlannedFile[]
  obsolete: string[]
}

interface ExportTarget {
  repo: string
  dir: string
  flavour: Flavour
}

/** The parameters checked and the folder the files go to (made when writing, else only checked creatable). */
function exportTarget(harness: Harness, p: ExportParams, writing: boolean): ExportTarget {
  if (!formats.includes(p.format)) {
    throw new ApiError('invalid_params', `format: '${p.format}' is not an export format; use ${formats.join(', ')}`)
  }
  if (p.flavour !== undefined && !flavours.includes(p.flavour)) {
    throw new ApiError('invalid_params', `flavour: '${p.flavour}' is not a MADR flavour; use ${flavours.join(', ')}`)
  }
  if (p.flavour !== undefined && p.format !== 'madr') {
    throw new ApiError(
      'invalid_params',
      `flavour: only the madr format has flavours; leave flavour out for ${p.format}`,
    )
  }
  if (p.folder !== undefined && p.outDir !== undefined)
    throw new ApiError('invalid_params', 'folder and outDir name the same thing: give one of them')
  const workspace = harness.workspace(p.workspaceId)
  const repo = workspace.repoPath
  // No flavour given: the one the repository's conventions ask for (the CLI and the API alike).
  const flavour = p.flavour ?? (p.format === 'madr' ? repoFlavour(repo) : 'madr')
  const dir =
    p.folder !== undefined
      ? repoFolder(repo, p.folder)
      : p.outDir !== undefined
        ? resolve(repo, p.outDir)
        : p.format === 'madr'
          ? adrFolder(repo, flavour)
          : repo
  // A link committed in the repository (docs → outside) is never written through; checked before any folder is made.
  refuseLinksInRepo(repo, dir)
  if (writing) ensureWritableDir(dir)
  else checkCreatableDir(dir)
  return { repo, dir, flavour }
}

/** Everything the export would write, read and checked, nothing written: one path for the export and its dry run. */
function planExport(harness: Harness, p: ExportParams, human: string | undefined, writing: boolean): ExportPlan {
  const { repo, dir, flavour } = exportTarget(harness, p, writing)
  const workspace = harness.workspace(p.workspaceId)
  const doc = readSnapshot(harness.ctx(p.workspaceId).store, workspace, now())
  switch (p.format) {
    case 'madr':
      return { repo, dir, ...planMadr(doc, dir, flavour, { human, overwriteEdited: p.overwriteEdited }) }
    case 'markdown':
      return {
        repo,
        dir,
        files: [ownedFile(join(dir, LOG_FILE), renderLog(doc, human), isConcordLog)],
        support: [],
        obsolete: [],
      }
    case 'json':
      return {
        repo,
        dir,
        files: [
          ownedFile(join(dir, JSON_FILE), renderJson(doc), isConcordJson),
          ownedFile(join(dir, SCHEMA_FILE), exportJsonSchema(), isConcordSchema),
        ],
        support: [],
        obsolete: [],
      }
  }
}

/** `path` relative to the repository with `/` separators, or null when it lies outside. */
function inRepo(repo: string, path: string): string | null {
  for (const root of [resolve(repo), safeRealpath(repo)]) {
    const rel = relative(root, path)
    if (!rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/')
  }
  return null
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

async function humanName(harness: Harness, workspaceId: string): Promise<string | undefined> {
  return (await gitUserName(harness.workspace(workspaceId).repoPath).catch(() => null)) ?? undefined
}

export async function exportDecisionLog(harness: Harness, p: ExportParams): Promise<ExportResult> {
  const human = await humanName(harness, p.workspaceId)
  const plan = planExport(harness, p, human, !p.dryRun)
  const changed = plan.files.filter((f) => readTextIfExists(f.path) !== f.content).map((f) => f.path)
  if (!p.dryRun) {
    // Again just before writing: a folder swapped for a link while the export was planned is refused too.
    refuseLinksInRepo(plan.repo, plan.dir)
    writeBatch([...plan.files, ...plan.support], plan.obsolete)
  }
  return {
    format: p.format,
    outDir: plan.dir,
    folder: inRepo(plan.repo, plan.dir),
    files: plan.files.map((f) => f.path),
    changed,
    removed: plan.obsolete,
    dryRun: p.dryRun === true,
  }
}

/** Decisions read (and files zipped) between two looks at the slicer. */
const PAGE = 100

/** The decisions a page at a time, from `store` (a reader holding one snapshot); a look at the slicer between pages. */
function decisionPages(store: WorkspaceStore, slicer: Slicer): () => AsyncGenerator<DecisionDoc[]> {
  return async function* () {
    for (let after = 0; ;) {
      const page = readDecisionPage(store, after, PAGE)
      if (page.last === null) return
      yield page.decisions
      after = page.last
      await slicer.tick()
    }
  }
}

/**
 * The ADR files of every decision, read a page at a time from `store` (a reader holding one snapshot): first the ids
 * and titles, each numbered (kept as AdrNumbers: nothing else of the whole log is held), then each page rendered.
 */
async function* madrFiles(
  store: WorkspaceStore,
  workspace: Workspace,
  target: ExportTarget,
  human: string | undefined,
  slicer: Slicer,
): AsyncGenerator<PlannedFile> {
  const context = readContext(store, workspace, now())
  const placer = await madrPlacerSliced(target.dir, slicer)
  const numbers = new AdrNumbers()
  for (let after = 0; ;) {
    const page = readDecisionHeads(store, after, PAGE * 10)
    if (page.last === null) break
    for (const head of page.heads) {
      numbers.add(head.id, placer.place(head).number)
      await slicer.tick()
    }
    after = page.last
  }
  const ctx = adrContextOf(context, new Map(), human)
  const titleOf = (id: string) => readDecisionTitle(store, id)
  for await (const page of decisionPages(store, slicer)()) {
    const refs = pageRefs(page, numbers, titleOf)
    for (const d of page) {
      yield { path: join(target.dir, refs.get(d.id)!.file), content: renderAdr(target.flavour, { ...ctx, refs }, d) }
      await slicer.tick()
    }
  }
  yield* placer.support()
}

/** The JSON export into the zip: concord-export.json rendered in pieces, the decisions a page at a time, twice. */
async function zipJson(
  zip: ZipWriter,
  store: WorkspaceStore,
  workspace: Workspace,
  target: ExportTarget,
  slicer: Slicer,
): Promise<void> {
  // The same refusals as the export: a file of that name that Concord did not write.
  const json = ownedFile(join(target.dir, JSON_FILE), '', isConcordJson)
  const schema = ownedFile(join(target.dir, SCHEMA_FILE), exportJsonSchema(), isConcordSchema)
  const context = readContext(store, workspace, now())
  await zip.addPieces(inRepo(target.repo, json.path)!, () => renderJsonPieces(context, decisionPages(store, slicer)))
  await zip.add(inRepo(target.repo, schema.path)!, schema.content)
}

/** DECISIONS.md into the zip, in pieces: the index and then the sections, each a page of decisions at a time. */
async function zipMarkdown(
  zip: ZipWriter,
  store: WorkspaceStore,
  workspace: Workspace,
  target: ExportTarget,
  human: string | undefined,
  slicer: Slicer,
): Promise<void> {
  const log = ownedFile(join(target.dir, LOG_FILE), '', isConcordLog)
  const context = readContext(store, workspace, now())
  const count = await countDecisions(store, () => slicer.tick())
  await zip.addPieces(inRepo(target.repo, log.path)!, () =>
    renderLogPieces(context, count, decisionPages(store, slicer), human),
  )
}

/**
 * The export's files in a zip, named by their paths in the repository; nothing is written into the repository.
 * The zip is built as the rows are read (a page at a time, from a connection of its own holding one snapshot) and
 * written to a file under the data folder as it goes, giving the event loop back between slices: an export of 100,000
 * decisions does not stop the server (issue 32). The answer names the URL the bridge serves it at.
 */
export async function exportDownload(
  harness: Harness,
  p: Omit<ExportParams, 'outDir' | 'dryRun'>,
  slicer = new Slicer(),
): Promise<ExportDownload> {
  const human = await humanName(harness, p.workspaceId)
  const target = exportTarget(harness, { ...p, outDir: undefined }, false)
  const workspace = harness.workspace(p.workspaceId)
  const slug =
    workspace.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'workspace'
  const name = `${slug}-decisions-${p.format}.zip`
  sweepDownloads(harness.dataDir)
  // Each a slice of its own: the checks above, opening a second connection, the reads.
  await slicer.pause()
  const reader = harness.openReader(p.workspaceId)
  const transfer = new TransferRepo(reader.db)
  try {
    transfer.beginRead()
    await slicer.pause()
    const zip = await writeZip(harness.dataDir, name, slicer, async (z) => {
      if (p.format === 'json') return zipJson(z, reader, workspace, target, slicer)
      if (p.format === 'markdown') return zipMarkdown(z, reader, workspace, target, human, slicer)
      for await (const f of madrFiles(reader, workspace, target, human, slicer))
        await z.add(inRepo(target.repo, f.path)!, f.content)
    })
    return { name, url: zip.url, size: zip.size, count: zip.count }
  } finally {
    transfer.endRead()
    reader.close()
  }
}
