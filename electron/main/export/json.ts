/**
 * The full-fidelity JSON export (`concord-export.json`): writing it, and reading one back with every
 * problem named — malformed JSON, a schema from a newer Concord, a wrong shape, a reference to
 * something the file does not contain, a revision whose text does not match its recorded hash.
 */
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { ApiError } from '../../../shared/errors'
import { contentHash } from '../harness/decisions/fingerprint'
import { SCHEMA_REF } from './json-schema'
import { drain, parseJsonSliced, Slicer } from './sliced'
import { ExportV1, GENERATOR, SCHEMA_VERSION, type DecisionDoc, type ExportDoc } from './schema'

export const JSON_FILE = 'concord-export.json'

/** The export with its `$schema` first, so an editor finds the schema beside it. */
export function renderJson(doc: ExportDoc): string {
  const { $schema: _, ...rest } = doc
  return JSON.stringify({ $schema: SCHEMA_REF, ...rest }, null, 2) + '\n'
}

/**
 * renderJson's text, byte for byte, in pieces: `context` is the document without its decisions (readContext), and the
 * decisions come a page at a time from `pages`, each laid into the text as JSON.stringify would indent it. For an
 * export too large to hold as one string (the export download: 100,000 decisions).
 */
export async function* renderJsonPieces(
  context: ExportDoc,
  pages: () => AsyncIterable<DecisionDoc[]>,
): AsyncGenerator<string> {
  const mark = `concord-decisions-${randomUUID()}`
  const whole = renderJson({ ...context, decisions: [mark as unknown as DecisionDoc] })
  const at = whole.indexOf(JSON.stringify(mark))
  let first = true
  for await (const page of pages()) {
    for (const d of page) {
      yield (first ? whole.slice(0, at) : ',\n    ') + JSON.stringify(d, null, 2).replaceAll('\n', '\n    ')
      first = false
    }
  }
  // No decisions: the empty list as renderJson writes it.
  yield first ? renderJson({ ...context, decisions: [] }) : whole.slice(at + JSON.stringify(mark).length)
}

/** True for a file this or another Concord wrote (so a re-export may replace it). */
export function isConcordJson(text: string): boolean {
  try {
    const v = JSON.parse(text) as { generator?: unknown; schemaVersion?: unknown }
    return v !== null && typeof v === 'object' && v.generator === GENERATOR && typeof v.schemaVersion === 'number'
  } catch {
    return false
  }
}

function pathText(path: PropertyKey[]): string {
  let out = ''
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`
  return out || '(top level)'
}

/** How many problems an import collects before it stops checking (the message names the first five). */
const MAX_ISSUES = 5

/**
 * The most elements of each list an import takes, checked before any element is: 1,000,000 empty members (a 3 MB
 * file) used to be checked one by one for 141 s and 4.2 GB. Far above a real workspace (a team of a few dozen, a
 * hundred thousand decisions).
 */
export const MAX_ELEMENTS = {
  members: 10_000,
  approvalRules: 10_000,
  decisions: 1_000_000,
  proposals: 1_000_000,
  tasks: 1_000_000,
  reports: 1_000_000,
  notices: 1_000_000,
} as const

/** The first problems by place; `stopped`: the check ended at them, the rest of the file was not checked. */
function describeIssues(issues: readonly z.core.$ZodIssue[], stopped: boolean): string {
  if (stopped) return issues.map(describeIssue).join('; ') + '; checking stopped at these first problems'
  const shown = issues.slice(0, MAX_ISSUES).map(describeIssue)
  const more = issues.length - shown.length
  return shown.join('; ') + (more > 0 ? `; and ${more} more problem${more > 1 ? 's' : ''}` : '')
}

function describeIssue(i: z.core.$ZodIssue): string {
  if (i.code === 'unrecognized_keys')
    return `${pathText(i.path)}: unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}`
  return `${pathText(i.path)}: ${i.message}`
}

/** ` (line 3, column 14)` for a JSON.parse error that gives a position, else nothing. Never a quote of the text. */
function jsonErrorPlace(text: string, err: unknown): string {
  const m = /at position (\d+)/.exec((err as Error)?.message ?? '')
  if (!m) return /end of JSON input/.test((err as Error)?.message ?? '') ? ' (it ends too early)' : ''
  const before = text.slice(0, Number(m[1]))
  const line = before.split('\n').length
  return ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`
}

const arrayFields = ['members', 'decisions', 'proposals', 'tasks', 'reports', 'notices'] as const

/**
 * ExportV1.safeParse, one array element at a time: the rest of the document first (its arrays left empty), then
 * every element against its array's schema. Same data and the same issues (paths included) as one safeParse.
 */
async function checkShape(
  raw: Record<string, unknown>,
  slicer: Slicer,
): Promise<{ doc: ExportDoc } | { issues: z.core.$ZodIssue[]; stopped: boolean }> {
  const skeleton: Record<string, unknown> = { ...raw }
  for (const k of arrayFields) if (Array.isArray(raw[k])) skeleton[k] = []
  const top = ExportV1.safeParse(skeleton)
  const issues: z.core.$ZodIssue[] = top.success ? [] : [...top.error.issues]
  const out = (top.success ? top.data : {}) as Record<string, unknown[]>
  for (const k of arrayFields) {
    const list = raw[k]
    if (!Array.isArray(list)) continue
    const element: z.ZodType = ExportV1.shape[k].element
    const parsed: unknown[] = []
    for (const [i, item] of list.entries()) {
      const r = element.safeParse(item)
      // The checked copy is kept; the parsed one is garbage from here (half the heap a large import holds).
      list[i] = undefined
      if (r.success) parsed.push(r.data)
      else for (const issue of r.error.issues) issues.push({ ...issue, path: [k, i, ...issue.path] })
      // Enough to tell the person what is wrong: the rest is not checked (nor kept).
      if (issues.length >= MAX_ISSUES) return { issues: issues.slice(0, MAX_ISSUES), stopped: true }
      await slicer.tick()
    }
    out[k] = parsed
  }
  return issues.length ? { issues, stopped: false } : { doc: out as unknown as ExportDoc }
}

/** Refuses a list longer than MAX_ELEMENTS allows before any of its elements is checked. */
function checkCounts(raw: Record<string, unknown>, source: string): void {
  for (const [k, max] of Object.entries(MAX_ELEMENTS)) {
    const list = raw[k]
    if (Array.isArray(list) && list.length > max) {
      throw new ApiError(
        'payload_too_large',
        `${source} has ${list.length.toLocaleString('en-US')} ${k}; an import takes at most ${max.toLocaleString('en-US')} — nothing was changed`,
      )
    }
  }
}

/**
 * Parses and checks an export (the file's bytes), in slices: the event loop keeps serving other calls while a
 * large one is read. `source` names the file in messages; no message quotes its content.
 */
export async function parseExport(bytes: Buffer, source: string, slicer = new Slicer()): Promise<ExportDoc> {
  let raw: unknown
  try {
    raw = await parseJsonSliced(bytes, slicer)
  } catch (err) {
    // V8's message quotes the input ("root:x:0:0"... is not valid JSON): keep only where it broke.
    throw new ApiError(
      'invalid_params',
      `${source} is not a Concord export: it is not valid JSON${jsonErrorPlace(bytes.toString('utf8'), err)}`,
    )
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ApiError('invalid_params', `${source} is not a Concord export: expected a JSON object`)
  }
  const version = (raw as { schemaVersion?: unknown }).schemaVersion
  if (version === undefined)
    throw new ApiError('invalid_params', `${source} is not a Concord export: it has no schemaVersion`)
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new ApiError(
      'invalid_params',
      `${source} is not a Concord export: schemaVersion must be a whole number from 1`,
    )
  }
  if (version > SCHEMA_VERSION) {
    throw new ApiError(
      'schema_too_new',
      `${source} was written by a newer Concord (export schema version ${version}; this Concord reads version ${SCHEMA_VERSION}); update Concord to import it`,
    )
  }
  checkCounts(raw as Record<string, unknown>, source)
  const shape = await checkShape(raw as Record<string, unknown>, slicer)
  if ('issues' in shape)
    throw new ApiError(
      'invalid_params',
      `${source} is not a valid Concord export: ${describeIssues(shape.issues, shape.stopped)}`,
    )
  const problems: string[] = []
  await drain(referenceChecks(shape.doc, problems), slicer)
  if (problems.length) {
    const more = problems.length > 5 ? `; and ${problems.length - 5} more problem${problems.length > 6 ? 's' : ''}` : ''
    throw new ApiError(
      'invalid_params',
      `${source} is not a consistent Concord export: ${problems.slice(0, 5).join('; ')}${more}`,
    )
  }
  return shape.doc
}

/** The ids of a list, each repeated one a problem; yields every 1,000 items. */
function* unique(
  problems: string[],
  list: { id: string }[],
  name: string,
  seen = new Set<string>(),
): Generator<void, Set<string>, void> {
  for (const [i, x] of list.entries()) {
    if (seen.has(x.id)) problems.push(`${name}[${i}].id: ${x.id} appears twice`)
    seen.add(x.id)
    if (i % 1000 === 999) yield
  }
  return seen
}

/** What the export holds, by id: each reference is checked against it, each miss a problem. */
interface Known {
  problems: string[]
  reports: Set<string>
  member: (id: string | null, at: string) => void
  decision: (id: string | null, at: string, version?: number) => void
  task: (id: string, at: string) => void
}

/** The ids of every entity (each repeated one a problem) and the checks of a reference to one. */
function* knownIds(doc: ExportDoc, problems: string[]): Generator<void, Known, void> {
  const members = yield* unique(problems, doc.members, 'members')
  const decisions = new Map<string, (typeof doc.decisions)[number]>()
  for (const [i, d] of doc.decisions.entries()) {
    decisions.set(d.id, d)
    if (i % 1000 === 999) yield
  }
  yield* unique(problems, doc.decisions, 'decisions')
  yield* unique(problems, doc.proposals, 'proposals')
  const tasks = yield* unique(problems, doc.tasks, 'tasks')
  const reports = yield* unique(problems, doc.reports, 'reports')
  yield* unique(problems, doc.notices, 'notices')
  yield* unique(
    problems,
    doc.reports.flatMap((r) => r.claims),
    'claims',
  )
  return {
    problems,
    reports,
    member: (id, at) => {
      if (id !== null && !members.has(id)) problems.push(`${at}: member ${id} is not in the export`)
    },
    decision: (id, at, version) => {
      if (id === null) return
      const d = decisions.get(id)
      if (!d) problems.push(`${at}: decision ${id} is not in the export`)
      else if (version !== undefined && version > d.version)
        problems.push(`${at}: ${id} has no v${version} (it is at v${d.version})`)
    },
    task: (id, at) => {
      if (!tasks.has(id)) problems.push(`${at}: task ${id} is not in the export`)
    },
  }
}

/**
 * Everything the shape cannot say (ids unique, references resolvable, history complete and intact), one entity at a
 * time: yields after each, so a caller can pause between them (import).
 */
export function* referenceChecks(doc: ExportDoc, problems: string[]): Generator<void, void, void> {
  const known = yield* knownIds(doc, problems)
  for (const [i, d] of doc.decisions.entries()) {
    checkDecision(known, d, `decisions[${i}]`)
    yield
  }
  for (const [i, p] of doc.proposals.entries()) {
    const at = `proposals[${i}]`
    known.decision(p.decisionId, `${at}.decisionId`, p.baseVersion)
    known.member(p.authorId, `${at}.authorId`)
    known.member(p.decidedBy, `${at}.decidedBy`)
    yield
  }
  for (const [i, t] of doc.tasks.entries()) {
    checkTask(known, t, `tasks[${i}]`)
    yield
  }
  for (const [i, r] of doc.reports.entries()) {
    checkReport(known, r, `reports[${i}]`)
    yield
  }
  yield* unique(problems, doc.approvalRules ?? [], 'approvalRules')
  for (const [i, r] of (doc.approvalRules ?? []).entries()) known.member(r.memberId, `approvalRules[${i}].memberId`)
  for (const [i, n] of doc.notices.entries()) {
    const at = `notices[${i}]`
    known.member(n.memberId, `${at}.memberId`)
    known.decision(n.decisionId, `${at}.decisionId`, n.decisionVersion)
    n.taskIds.forEach((t, j) => known.task(t, `${at}.taskIds[${j}]`))
    n.reportIds.forEach((r, j) => {
      if (!known.reports.has(r)) problems.push(`${at}.reportIds[${j}]: report ${r} is not in the export`)
    })
    yield
  }
}

/** A decision's references, and its history: complete, in order, intact, ending where the decision is. */
function checkDecision(known: Known, d: ExportDoc['decisions'][number], at: string): void {
  const { problems } = known
  known.member(d.createdBy, `${at}.createdBy`)
  known.decision(d.supersedes, `${at}.supersedes`)
  known.decision(d.supersededBy, `${at}.supersededBy`)
  if (d.supersedes === d.id || d.supersededBy === d.id) problems.push(`${at}: ${d.id} cannot supersede itself`)
  d.revisions.forEach((r, j) => {
    if (r.version !== j + 1)
      problems.push(
        `${at}.revisions[${j}].version: expected v${j + 1}, found v${r.version} (history must be complete and in order)`,
      )
    known.member(r.actorId, `${at}.revisions[${j}].actorId`)
    if (r.contentHash !== contentHash(r.statement, r.status)) {
      problems.push(
        `${at}.revisions[${j}]: the statement or status does not match its contentHash (was the history edited?)`,
      )
    }
  })
  const last = d.revisions.at(-1)
  if (!last) problems.push(`${at}.revisions: ${d.id} has no revisions`)
  else if (d.version !== d.revisions.length)
    problems.push(`${at}.version: ${d.id} is at v${d.version} but has ${d.revisions.length} revisions`)
  else if (
    last.title !== d.title ||
    last.statement !== d.statement ||
    last.rationale !== d.rationale ||
    last.status !== d.status ||
    last.fingerprint !== d.fingerprint
  ) {
    problems.push(
      `${at}: the current title, statement, rationale, status and fingerprint of ${d.id} must equal its last revision`,
    )
  }
}

/** A task's assignee, its links (each decision once) and its blockers (other tasks, each once). */
function checkTask(known: Known, t: ExportDoc['tasks'][number], at: string): void {
  const { problems } = known
  known.member(t.assigneeId, `${at}.assigneeId`)
  const linked = new Set<string>()
  t.links.forEach((l, j) => {
    known.decision(l.decisionId, `${at}.links[${j}].decisionId`, l.pinnedVersion)
    if (linked.has(l.decisionId)) problems.push(`${at}.links[${j}]: ${t.id} links ${l.decisionId} twice`)
    linked.add(l.decisionId)
  })
  const blockers = new Set<string>()
  t.blockedBy.forEach((b, j) => {
    known.task(b, `${at}.blockedBy[${j}]`)
    if (b === t.id) problems.push(`${at}.blockedBy[${j}]: ${t.id} cannot block itself`)
    if (blockers.has(b)) problems.push(`${at}.blockedBy[${j}]: ${b} is listed twice`)
    blockers.add(b)
  })
}

/** A report's task and author, its basis and its claims' decisions (each decision once). */
function checkReport(known: Known, r: ExportDoc['reports'][number], at: string): void {
  const { problems } = known
  known.task(r.taskId, `${at}.taskId`)
  known.member(r.authorId, `${at}.authorId`)
  const based = new Set<string>()
  r.basis.forEach((b, j) => {
    known.decision(b.decisionId, `${at}.basis[${j}].decisionId`, b.version)
    if (based.has(b.decisionId)) problems.push(`${at}.basis[${j}]: ${b.decisionId} is listed twice`)
    based.add(b.decisionId)
  })
  r.claims.forEach((c, j) => {
    const exercised = new Set<string>()
    c.decisions.forEach((x, k) => {
      known.decision(x.decisionId, `${at}.claims[${j}].decisions[${k}].decisionId`)
      if (exercised.has(x.decisionId))
        problems.push(`${at}.claims[${j}].decisions[${k}]: ${x.decisionId} is listed twice`)
      exercised.add(x.decisionId)
    })
  })
}
