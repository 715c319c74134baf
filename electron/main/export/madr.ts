/**
 * MADR 4 files, one per decision: `NNNN-slug.md` with YAML front matter. Concord recognises its own
 * files by the front matter (`generator: Concord` and the decision `id`), so a re-export rewrites
 * exactly those — found by id, renamed when the title's slug changed, number kept — and never
 * touches any other file. A decision seen for the first time gets the next number after every
 * numbered file already in the folder (Concord's or not), so numbers follow creation order and
 * never change.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ApiError } from '../../../shared/errors'
import type { PlannedFile } from './files'
import { readTextIfExists } from './files'
import { GENERATOR, type DecisionDoc, type ExportDoc, type ReportDoc } from './schema'
import { slugify } from './slug'
import { cell, changedFields, changeKind, day, decisionMakers, minute, newestFirst, oneLine, peopleOf, type People } from './text'

const numbered = /^(\d{4,})-.+\.md$/

/** A YAML double-quoted scalar (JSON string syntax is valid YAML; line/paragraph separators escaped too). */
export function yamlString(text: string): string {
  return JSON.stringify(text).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

/** The flat `key: value` lines of a file's front matter, or null when it has none. */
export function frontMatter(text: string): Map<string, string> | null {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text)
  if (!m) return null
  const fields = new Map<string, string>()
  for (const line of m[1].split(/\r?\n/)) {
    const kv = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line)
    if (kv) fields.set(kv[1], kv[2].trim())
  }
  return fields
}

/** The decision id of a file Concord wrote, or null for any other file. */
export function concordDecisionId(text: string): string | null {
  const fm = frontMatter(text)
  if (!fm || fm.get('generator') !== GENERATOR) return null
  const id = fm.get('id') ?? ''
  return /^D-\d+$/.test(id) ? id : null
}

interface Existing {
  name: string
  number: number
}

function scan(dir: string): { mine: Map<string, Existing>; foreign: Set<string>; maxNumber: number } {
  const mine = new Map<string, Existing>()
  const foreign = new Set<string>()
  let maxNumber = 0
  let names: string[] = []
  try {
    names = readdirSync(dir).sort()
  } catch {
    return { mine, foreign, maxNumber }
  }
  for (const name of names) {
    const m = numbered.exec(name)
    if (!m) continue
    const number = Number(m[1])
    maxNumber = Math.max(maxNumber, number)
    const id = concordDecisionId(readTextIfExists(join(dir, name)) ?? '')
    // Two files claiming one decision (a copy): the lower number is the decision's, the other is left alone.
    if (id && !mine.has(id)) mine.set(id, { name, number })
    else foreign.add(name)
  }
  return { mine, foreign, maxNumber }
}

export interface MadrPlan {
  files: PlannedFile[]
  /** Concord's files of decisions whose slug changed; removed once the new file is in place. */
  obsolete: string[]
}

export function planMadr(doc: ExportDoc, dir: string): MadrPlan {
  const { mine, foreign, maxNumber } = scan(dir)
  let next = maxNumber
  const names = new Map<string, string>()
  for (const d of doc.decisions) {
    const number = mine.get(d.id)?.number ?? ++next
    names.set(d.id, `${String(number).padStart(4, '0')}-${slugify(d.title)}.md`)
  }
  const obsolete: string[] = []
  for (const d of doc.decisions) {
    const name = names.get(d.id)!
    const owner = [...mine].find(([id, e]) => e.name === name && id !== d.id)
    if (foreign.has(name) || owner) {
      throw new ApiError('invalid_params', `outDir: ${join(dir, name)} exists and was not written by Concord for ${d.id}; move it away or export to another folder`)
    }
    const old = mine.get(d.id)
    if (old && old.name !== name) obsolete.push(join(dir, old.name))
  }
  const people = peopleOf(doc)
  const files = doc.decisions.map((d) => ({ path: join(dir, names.get(d.id)!), content: renderMadr(doc, d, names, people) }))
  return { files, obsolete }
}

function link(doc: ExportDoc, id: string, names: Map<string, string>): string {
  const d = doc.decisions.find((x) => x.id === id)
  return d ? `[${id}: ${oneLine(d.title)}](${names.get(id)})` : id
}

const flagWords: Record<string, string> = {
  requirements_updated: 'requirements updated',
  needs_adjustment: 'needs adjustment',
  needs_reverification: 'needs re-verification',
}

export function renderMadr(doc: ExportDoc, d: DecisionDoc, names: Map<string, string>, people: People): string {
  const fm = [
    '---',
    `status: ${d.status}`,
    `date: ${day(d.updatedAt)}`,
    'decision-makers:',
    ...decisionMakers(d, people).map((p) => `  - ${yamlString(p)}`),
    `id: ${d.id}`,
    `version: ${d.version}`,
    `fingerprint: ${yamlString(d.fingerprint)}`,
    ...(d.supersedes ? [`supersedes: ${d.supersedes}`] : []),
    ...(d.supersededBy ? [`superseded-by: ${d.supersededBy}`] : []),
    `generator: ${GENERATOR}`,
    '---',
  ]
  const out = [
    ...fm,
    `<!-- Generated by Concord from ${d.id} v${d.version}. Change the decision in Concord and export again: edits made to this file are overwritten. -->`,
    '',
    `# ${oneLine(d.title)}`,
    '',
    '## Context and Problem Statement',
    '',
    d.rationale.trim() || '_No rationale was recorded for this decision._',
    '',
    '## Decision Outcome',
    '',
    d.statement.trim(),
    '',
  ]
  if (d.status === 'superseded' && d.supersededBy) out.push(`> **Superseded** by ${link(doc, d.supersededBy, names)}.`, '')
  else if (d.status === 'rejected') out.push('> **Rejected**: this decision is not in force.', '')
  else if (d.status === 'proposed') out.push('> **Proposed**: not yet accepted.', '')

  out.push('## More Information', '')
  if (d.supersedes) out.push(`Supersedes ${link(doc, d.supersedes, names)}.`, '')
  out.push(
    `Recorded in Concord as ${d.id}, created ${minute(d.createdAt)} by ${people(d.createdBy)}; now at version ${d.version} (fingerprint \`${d.fingerprint}\`).`,
    '',
  )

  out.push('### Revision history', '', '| Version | Date | Changed by | Change | What changed | Reason |', '| --- | --- | --- | --- | --- | --- |')
  for (const { rev, previous } of newestFirst(d)) {
    out.push(`| v${rev.version} | ${minute(rev.createdAt)} | ${cell(people(rev.actorId))} | ${changeKind(rev, previous)} | ${cell(changedFields(rev, previous))} | ${cell(rev.reason)} |`)
  }
  out.push('')

  const pending = doc.proposals.filter((p) => p.decisionId === d.id && p.state === 'pending')
  if (pending.length) {
    out.push('### Pending proposals', '')
    for (const p of pending) {
      const changes = [
        p.title !== null ? `title “${oneLine(p.title)}”` : null,
        p.statement !== null ? `statement “${oneLine(p.statement)}”` : null,
        p.rationale !== null ? 'rationale' : null,
        p.status !== null ? `status ${p.status}` : null,
      ].filter((x) => x !== null)
      out.push(`- ${p.id} by ${people(p.authorId)} against v${p.baseVersion}, ${minute(p.createdAt)}: ${changes.join('; ')}${p.reason.trim() ? ` — ${oneLine(p.reason)}` : ''}`)
    }
    out.push('')
  }

  const tasks = doc.tasks.flatMap((t) => t.links.filter((l) => l.decisionId === d.id).map((l) => ({ t, l })))
  out.push('### Linked tasks', '')
  if (!tasks.length) out.push('No task depends on this decision.', '')
  else {
    out.push('| Task | Title | Status | Flag | Assignee | Aligned with | Link |', '| --- | --- | --- | --- | --- | --- | --- |')
    for (const { t, l } of tasks) {
      const flag = t.flag ? flagWords[t.flag] : '—'
      const assignee = t.assigneeId ? people(t.assigneeId) : 'unassigned'
      out.push(`| ${t.id} | ${cell(t.title)} | ${t.status} | ${flag} | ${cell(assignee)} | v${l.pinnedVersion} | ${l.state} |`)
    }
    out.push('')
  }

  const reports = doc.reports.filter((r) => r.basis.some((b) => b.decisionId === d.id) || r.claims.some((c) => c.decisions.some((x) => x.decisionId === d.id)))
  out.push('### Linked reports', '')
  if (!reports.length) out.push('No report is based on this decision.', '')
  else {
    out.push('| Report | Task | Kind | Verdict | Author | Based on | Claims on this decision | Report validity |', '| --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const r of reports) out.push(reportRow(r, d, people))
    out.push('')
  }
  return out.join('\n')
}

function reportRow(r: ReportDoc, d: DecisionDoc, people: People): string {
  const b = r.basis.find((x) => x.decisionId === d.id)
  const based = b ? `v${b.version} (${b.state})` : 'not in basis'
  const onThis = r.claims.filter((c) => c.decisions.some((x) => x.decisionId === d.id))
  const stale = onThis.filter((c) => c.decisions.some((x) => x.decisionId === d.id && x.pinnedFingerprint !== d.fingerprint)).length
  const claims = onThis.length ? `${onThis.length} (${stale} stale)` : 'none'
  return `| ${r.id} | ${r.taskId} | ${r.kind} | ${r.verdict} | ${cell(people(r.authorId))} | ${based} | ${claims} | ${r.validity} |`
}
