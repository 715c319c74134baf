/** Formatting shared by the Markdown renderings (MADR files and the DECISIONS.md log). */
import type { DecisionDoc, ExportDoc, RevisionDoc } from './schema'

/**
 * The human user is recorded without a member id; files name them as the repository's git `user.name` does, and
 * as this only when git knows no name.
 */
export const HUMAN = 'the Concord user'

export type People = (id: string | null) => string

export function peopleOf(doc: ExportDoc, human = HUMAN): People {
  const byId = new Map(doc.members.map((m) => [m.id, `${m.name} (${m.role})`]))
  return (id) => (id === null ? human : (byId.get(id) ?? id))
}

/** `2025-01-02` */
export const day = (iso: string) => iso.slice(0, 10)

/** `2025-01-02 14:03 UTC` (timestamps are stored as UTC ISO strings). */
export function minute(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso)
  return m ? `${m[1]} ${m[2]} UTC` : iso
}

/** One line of text, safe inside a Markdown table cell. */
export function cell(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim()
  return one ? one.replace(/\\/g, '\\\\').replace(/\|/g, '\\|') : '—'
}

/** A block of text as a Markdown quote (an empty one says so). */
export function quote(text: string): string[] {
  const t = text.trim()
  return t ? t.split(/\r?\n/).map((l) => (l.trim() ? `> ${l}` : '>')) : ['> _(empty)_']
}

/** A title on one line (for headings and links). */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

export type ChangeKind = 'created' | 'normative' | 'editorial'

/**
 * How a revision changed the decision: normative when the fingerprint moved (dependent work was
 * flagged), editorial otherwise (marked editorial, or a title / rationale / non-binding status change).
 */
export function changeKind(rev: RevisionDoc, previous: RevisionDoc | undefined): ChangeKind {
  if (!previous) return 'created'
  return rev.fingerprint !== previous.fingerprint ? 'normative' : 'editorial'
}

/** The fields a revision changed, in words: `statement, status (proposed → accepted)`. */
export function changedFields(rev: RevisionDoc, previous: RevisionDoc | undefined): string {
  if (!previous) return 'initial version'
  const parts: string[] = []
  if (rev.title !== previous.title) parts.push('title')
  if (rev.statement !== previous.statement) parts.push('statement')
  if (rev.rationale !== previous.rationale) parts.push('rationale')
  if (rev.status !== previous.status) parts.push(`status (${previous.status} → ${rev.status})`)
  return parts.length ? parts.join(', ') : 'no field'
}

/** Revisions newest first, each with the one before it. */
export function newestFirst(d: DecisionDoc): { rev: RevisionDoc; previous: RevisionDoc | undefined }[] {
  return d.revisions.map((rev, i) => ({ rev, previous: i > 0 ? d.revisions[i - 1] : undefined })).reverse()
}
