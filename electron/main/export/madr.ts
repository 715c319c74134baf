/**
 * ADR files, one per decision: `NNNN-slug.md`, laid out by a flavour (MADR 4, adr-tools,
 * log4brains). Concord recognises its own files — by the front matter (`generator: Concord` and the
 * decision `id`) or by the "generated" notice on the last line — so a re-export, in any flavour,
 * rewrites exactly those: found by id, renamed when the title's slug changed, number kept. It never
 * touches any other file. A decision seen for the first time gets the next number after every
 * numbered ADR already in the folder (Concord's or not) and after adr-tools' sequence lock, so
 * numbers follow creation order and never change.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import { isKey } from '../../../shared/keys'
import { adrContextOf, type AdrContext, type AdrRef, type Flavour } from './adr-model'
import { noticeDecisionId } from './adr-sections'
import { sequenceLock, SEQUENCE_LOCK } from './conventions'
import type { PlannedFile } from './files'
import { readTextIfExists } from './files'
import { renderAdrToolsFlavour } from './flavour-adr-tools'
import { renderLog4brainsFlavour } from './flavour-log4brains'
import { renderMadrFlavour } from './flavour-madr'
import { frontMatter } from './front-matter'
import { GENERATOR, type DecisionDoc, type ExportDoc } from './schema'
import { asWritten, seal, statedStatus, writtenFromVersion } from './seal'
import { drain, type Slicer } from './sliced'
import { slugify } from './slug'

const numbered = /^(\d{4,})-.+\.md$/
/** log4brains names new ADRs `yyyymmdd-title.md`: such a prefix is a date, not an ADR number. */
const dated = /^(19|20)\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])-/

const render: Record<Flavour, (ctx: AdrContext, d: DecisionDoc) => string> = {
  madr: renderMadrFlavour,
  'adr-tools': renderAdrToolsFlavour,
  log4brains: renderLog4brainsFlavour,
}

/** The decision id of a file Concord wrote, or null for any other file. */
export function concordDecisionId(text: string): string | null {
  const fm = frontMatter(text)
  if (fm) {
    if (fm.get('generator') !== GENERATOR) return null
    const id = fm.get('id') ?? ''
    return isKey(id, 'decision') ? id : null
  }
  return noticeDecisionId(text)
}

interface Existing {
  name: string
  number: number
}

interface Scan {
  mine: Map<string, Existing>
  foreign: Set<string>
  maxNumber: number
}

/** The numbered files of the folder, read one per step (the export download runs it in slices). */
function* scanSteps(dir: string, out: Scan): Generator<void> {
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    return
  }
  for (const name of names) {
    const m = numbered.exec(name)
    if (!m) continue
    // A link is refused unread (invalid_params): it may point at any file of the user's.
    const id = concordDecisionId(readTextIfExists(join(dir, name)) ?? '')
    const number = Number(m[1])
    if (!dated.test(name) || id) out.maxNumber = Math.max(out.maxNumber, number)
    // Two files claiming one decision (a copy): the lower number is the decision's, the other is left alone.
    if (id && !out.mine.has(id)) out.mine.set(id, { name, number })
    else out.foreign.add(name)
    yield
  }
}

const emptyScan = (): Scan => ({ mine: new Map(), foreign: new Set(), maxNumber: 0 })

function scan(dir: string): Scan {
  const out = emptyScan()
  for (const _ of scanSteps(dir, out));
  return out
}

/** scan() a file at a time, giving the event loop back between slices. */
async function scanSliced(dir: string, slicer: Slicer): Promise<Scan> {
  const out = emptyScan()
  await drain(scanSteps(dir, out), slicer)
  return out
}

export interface MadrPlan {
  files: PlannedFile[]
  /** Concord's files of decisions whose slug changed; removed once the new file is in place. */
  obsolete: string[]
  /** Written with the files but not part of the log (adr-tools' sequence lock). */
  support: PlannedFile[]
}

/** `0007-search-timeout.md` */
export const adrFileName = (number: number, title: string) => `${String(number).padStart(4, '0')}-${slugify(title)}.md`

/**
 * Numbers and names each decision's file, one decision at a time in creation order (only its id and title needed),
 * refusing a name another file has: a decision Concord wrote before keeps its number, a new one gets the next. Holds
 * nothing per decision placed (the export download places 100,000 before it renders one).
 */
export class MadrPlacer {
  private readonly lock: number | null
  private next: number
  private readonly ownerOf: Map<string, string>
  /** Concord's files of decisions whose slug changed. */
  readonly obsolete: string[] = []

  constructor(
    private readonly dir: string,
    private readonly found: Scan,
  ) {
    this.lock = sequenceLock(dir)
    this.next = Math.max(found.maxNumber, this.lock ?? 0)
    this.ownerOf = new Map([...found.mine].map(([id, e]) => [e.name, id]))
  }

  place(d: { id: string; title: string }): AdrRef {
    const old = this.found.mine.get(d.id)
    const number = old?.number ?? ++this.next
    const file = adrFileName(number, d.title)
    const owner = this.ownerOf.get(file)
    if (this.found.foreign.has(file) || (owner !== undefined && owner !== d.id)) {
      throw new ApiError(
        'invalid_params',
        `outDir: ${join(this.dir, file)} exists and was not written by Concord for ${d.id}; move it away or export to another folder`,
      )
    }
    if (old && old.name !== file) this.obsolete.push(join(this.dir, old.name))
    return { id: d.id, number, file, title: d.title }
  }

  /** The file Concord wrote for the decision before, if any (under its old name when the title changed). */
  existing(id: string): string | undefined {
    const old = this.found.mine.get(id)
    return old && join(this.dir, old.name)
  }

  /** Once every decision is placed: adr-tools numbers its next ADR from the lock, so it moves past Concord's numbers. */
  support(): PlannedFile[] {
    return this.lock !== null && this.next > this.lock
      ? [{ path: join(this.dir, SEQUENCE_LOCK), content: String(this.next) }]
      : []
  }
}

/** A placer for the folder, its files scanned in slices (the export download). */
export async function madrPlacerSliced(dir: string, slicer: Slicer): Promise<MadrPlacer> {
  return new MadrPlacer(dir, await scanSliced(dir, slicer))
}

/** One decision's ADR file, laid out by the flavour. */
export function renderAdr(flavour: Flavour, ctx: AdrContext, d: DecisionDoc): string {
  return seal(render[flavour](ctx, d))
}

/** A file of Concord's changed since it was written, and how, in words. */
export interface EditedFile {
  path: string
  change: string
}

function editedFile(path: string, text: string, content: string): EditedFile {
  const now = statedStatus(text)
  const ours = statedStatus(content)
  return {
    path,
    change:
      now !== ours
        ? `its status is now ${JSON.stringify(now ?? '(none)')}, where this export would write ${JSON.stringify(ours ?? '(none)')}`
        : 'its text was edited (its status is as Concord wrote it)',
  }
}

/**
 * Whether a file of Concord's was changed since it was written: told by its digest. A file written before Concord
 * kept one is told by its status alone — one that says other than this export would (its first word: the wording
 * may differ between versions of Concord) while the decision is still at the version the file was written from, so
 * the change cannot be Concord's (adr-tools' `new -s` superseding it, say). Its other edits cannot be told.
 */
function editedSinceWritten(text: string, content: string, version: number): boolean {
  const sealed = asWritten(text)
  if (sealed !== null) return !sealed
  const word = (t: string) => statedStatus(t)?.split(/\s/)[0]?.toLowerCase() ?? null
  return writtenFromVersion(text) === version && word(text) !== word(content)
}

/**
 * An export never silently drops what the user changed in its files since it wrote them: the files are named with
 * the change (file_edited), and nothing is written until the change is made in Concord, undone in the file, or the
 * export is asked to overwrite them.
 */
function refuseEdited(edited: EditedFile[]): void {
  if (!edited.length) return
  const shown = edited.slice(0, 3).map((e) => `${e.path} (${e.change})`)
  const more = edited.length > shown.length ? `, and ${edited.length - shown.length} more` : ''
  throw new ApiError(
    'file_edited',
    `${edited.length === 1 ? 'A file was' : `${edited.length} files were`} changed since Concord wrote ${edited.length === 1 ? 'it' : 'them'}: ${shown.join('; ')}${more}. Make the change in Concord (or undo it in the file) and export again, or export overwriting edited files.`,
    { files: edited },
  )
}

export interface MadrOptions {
  /** `human`: the name the files give the human user (the repository's git user.name). */
  human?: string
  /** Overwrite Concord's files even where they were edited since they were written. */
  overwriteEdited?: boolean
}

export function planMadr(doc: ExportDoc, dir: string, flavour: Flavour = 'madr', opts: MadrOptions = {}): MadrPlan {
  const placer = new MadrPlacer(dir, scan(dir))
  const placed = new Map(doc.decisions.map((d) => [d.id, placer.place(d)]))
  const ctx = adrContextOf(doc, placed, opts.human)
  const files: PlannedFile[] = doc.decisions.map((d) => ({
    path: join(dir, placed.get(d.id)!.file),
    content: renderAdr(flavour, ctx, d),
  }))
  if (!opts.overwriteEdited)
    refuseEdited(
      doc.decisions.flatMap((d, i) => {
        const path = placer.existing(d.id)
        const text = path === undefined ? null : readTextIfExists(path)
        return text !== null && editedSinceWritten(text, files[i]!.content, d.version)
          ? [editedFile(path!, text, files[i]!.content)]
          : []
      }),
    )
  return { files, obsolete: placer.obsolete, support: placer.support() }
}
