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
 * The result's `outDir` is the folder the files were written into; `files` lists every file of the
 * export (absolute paths), whether its content changed or not. Files whose content is unchanged are
 * not rewritten, and files Concord did not write are never overwritten. Nothing is written through a
 * symbolic link: not a folder of the repository on the way to the files, nor an existing export file.
 */
import { join, resolve } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { ExportResult } from '../../../shared/schemas'
import type { Harness } from '../harness/harness'
import { now } from '../harness/ids'
import { flavours, type Flavour } from './adr-model'
import { adrFolder, repoFlavour } from './conventions'
import { ensureWritableDir, readTextIfExists, refuseLinksInRepo, writeBatch, type PlannedFile } from './files'
import { isConcordJson, JSON_FILE, renderJson } from './json'
import { exportJsonSchema, isConcordSchema, SCHEMA_FILE } from './json-schema'
import { planMadr } from './madr'
import { isConcordLog, LOG_FILE, renderLog } from './markdown'
import { readSnapshot } from './snapshot'

export type ExportFormat = ExportResult['format']

export interface ExportParams {
  workspaceId: string
  format: ExportFormat
  outDir?: string
  /** The layout of MADR files (format madr only). */
  flavour?: Flavour
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

export function exportDecisionLog(harness: Harness, p: ExportParams): ExportResult {
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
  const workspace = harness.workspace(p.workspaceId)
  // No flavour given: the one the repository's conventions ask for (the CLI and the API alike).
  const flavour = p.flavour ?? (p.format === 'madr' ? repoFlavour(workspace.repoPath) : 'madr')
  const base = p.outDir === undefined ? workspace.repoPath : resolve(workspace.repoPath, p.outDir)
  const dir = p.format === 'madr' && p.outDir === undefined ? adrFolder(workspace.repoPath, flavour) : base
  // A link committed in the repository (docs → outside) is never written through; checked before any folder is made.
  refuseLinksInRepo(workspace.repoPath, dir)
  ensureWritableDir(dir)
  const doc = readSnapshot(harness.ctx(p.workspaceId).store, workspace, now())

  let files: PlannedFile[]
  let support: PlannedFile[] = []
  let obsolete: string[] = []
  switch (p.format) {
    case 'madr':
      ;({ files, obsolete, support } = planMadr(doc, dir, flavour))
      break
    case 'markdown':
      files = [ownedFile(join(dir, LOG_FILE), renderLog(doc), isConcordLog)]
      break
    case 'json':
      files = [
        ownedFile(join(dir, JSON_FILE), renderJson(doc), isConcordJson),
        ownedFile(join(dir, SCHEMA_FILE), exportJsonSchema(), isConcordSchema),
      ]
      break
  }
  // Again just before writing: a folder swapped for a link while the export was planned is refused too.
  refuseLinksInRepo(workspace.repoPath, dir)
  writeBatch([...files, ...support], obsolete)
  return { format: p.format, outDir: dir, files: files.map((f) => f.path) }
}
