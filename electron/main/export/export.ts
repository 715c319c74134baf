/**
 * `export.decisionLog`: the decision log of a workspace as files a developer commits.
 *
 * Where the files go (outDir defaults to the workspace's repository folder; a relative outDir is
 * taken relative to that folder):
 * - madr:     without outDir `<repo>/docs/decisions/NNNN-slug.md`; with outDir `<outDir>/NNNN-slug.md`.
 * - markdown: `<outDir>/DECISIONS.md`.
 * - json:     `<outDir>/concord-export.json`.
 *
 * The result's `outDir` is the folder the files were written into; `files` lists every file of the
 * export (absolute paths), whether its content changed or not. Files whose content is unchanged are
 * not rewritten, and files Concord did not write are never overwritten.
 */
import { join, resolve } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { ExportResult } from '../../../shared/schemas'
import type { Harness } from '../harness/harness'
import { now } from '../harness/ids'
import { ensureWritableDir, readTextIfExists, writeBatch, type PlannedFile } from './files'
import { isConcordJson, JSON_FILE, renderJson } from './json'
import { planMadr } from './madr'
import { isConcordLog, LOG_FILE, renderLog } from './markdown'
import { readSnapshot } from './snapshot'

export type ExportFormat = ExportResult['format']

export interface ExportParams {
  workspaceId: string
  format: ExportFormat
  outDir?: string
}

export const formats: readonly ExportFormat[] = ['madr', 'markdown', 'json']

/** One Concord-owned file: refused when a file of that name exists and is not Concord's. */
function ownedFile(path: string, content: string, isOurs: (text: string) => boolean): PlannedFile {
  const current = readTextIfExists(path)
  if (current !== null && !isOurs(current)) {
    throw new ApiError('invalid_params', `outDir: ${path} exists and was not written by Concord; move it away or export to another folder`)
  }
  return { path, content }
}

export function exportDecisionLog(harness: Harness, p: ExportParams): ExportResult {
  if (!formats.includes(p.format)) {
    throw new ApiError('invalid_params', `format: '${String(p.format)}' is not an export format; use ${formats.join(', ')}`)
  }
  const workspace = harness.workspace(p.workspaceId)
  const base = p.outDir === undefined ? workspace.repoPath : resolve(workspace.repoPath, p.outDir)
  const dir = p.format === 'madr' && p.outDir === undefined ? join(base, 'docs', 'decisions') : base
  ensureWritableDir(dir)
  const doc = readSnapshot(harness.ctx(p.workspaceId).store, workspace, now())

  let files: PlannedFile[]
  let obsolete: string[] = []
  switch (p.format) {
    case 'madr':
      ;({ files, obsolete } = planMadr(doc, dir))
      break
    case 'markdown':
      files = [ownedFile(join(dir, LOG_FILE), renderLog(doc), isConcordLog)]
      break
    case 'json':
      files = [ownedFile(join(dir, JSON_FILE), renderJson(doc), isConcordJson)]
      break
  }
  writeBatch(files, obsolete)
  return { format: p.format, outDir: dir, files: files.map((f) => f.path) }
}
