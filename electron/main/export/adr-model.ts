/**
 * What every flavour of the ADR export says about one decision, computed once: its ADR number and
 * file, its status as ADR tools spell it, the decisions it supersedes or is superseded by (as ADR
 * numbers and file names, never `D-n`), and who was involved. The flavour files only lay it out.
 */
import type { DecisionDoc, ExportDoc, RevisionDoc } from './schema'
import { peopleOf, type People } from './text'

export const flavours = ['madr', 'adr-tools', 'log4brains'] as const
export type Flavour = (typeof flavours)[number]

/** One decision's place in the ADR folder. */
export interface AdrRef {
  id: string
  number: number
  file: string
  title: string
}

/**
 * MADR's status words. A superseded decision with no successor is `deprecated`: it is no longer in
 * force and nothing replaces it.
 */
export type AdrState = 'proposed' | 'accepted' | 'rejected' | 'deprecated' | 'superseded'

export interface AdrEntry {
  d: DecisionDoc
  ref: AdrRef
  state: AdrState
  supersededBy: AdrRef | null
  supersedes: AdrRef | null
}

export interface AdrContext {
  doc: ExportDoc
  people: People
  refs: Map<string, AdrRef>
}

/** `ADR-0006` */
export const adrLabel = (n: number) => `ADR-${String(n).padStart(4, '0')}`

/** The file name without `.md`: log4brains calls this the slug and links by it. */
export const adrSlug = (ref: AdrRef) => ref.file.replace(/\.md$/, '')

export function adrContext(
  doc: ExportDoc,
  files: Map<string, { number: number; file: string }>,
  human?: string,
): AdrContext {
  const refs = new Map<string, AdrRef>()
  for (const d of doc.decisions) {
    const f = files.get(d.id)!
    refs.set(d.id, { id: d.id, number: f.number, file: f.file, title: d.title })
  }
  return adrContextOf(doc, refs, human)
}

/** adrContext with every decision's place already known (the export download: doc holds no decisions). */
export function adrContextOf(doc: ExportDoc, refs: Map<string, AdrRef>, human?: string): AdrContext {
  return { doc, people: peopleOf(doc, human), refs }
}

export function adrEntry(ctx: AdrContext, d: DecisionDoc): AdrEntry {
  const supersededBy = d.supersededBy ? (ctx.refs.get(d.supersededBy) ?? null) : null
  const supersedes = d.supersedes ? (ctx.refs.get(d.supersedes) ?? null) : null
  const state: AdrState = d.status === 'superseded' ? (supersededBy ? 'superseded' : 'deprecated') : d.status
  return { d, ref: ctx.refs.get(d.id)!, state, supersededBy, supersedes }
}

function unique(names: string[], without: Set<string>): string[] {
  return [...new Set(names)].filter((n) => !without.has(n))
}

/**
 * MADR's three lists of people. Decision makers created or changed the decision; consulted are
 * those who gave input on it (proposals, reports that exercise it); informed are those it was
 * pushed to (notices about it, assignees of tasks that depend on it). Nobody is in two lists.
 */
export function involved(
  ctx: AdrContext,
  d: DecisionDoc,
): { decisionMakers: string[]; consulted: string[]; informed: string[] } {
  const { doc, people } = ctx
  // A revision that leaves the decision proposed only proposes it: once someone decided, its author is
  // consulted, not a decision maker (until then the proposer is the only one who made it).
  const deciding = d.revisions.filter((r) => r.status !== 'proposed')
  const proposing = d.revisions.filter((r) => r.status === 'proposed')
  const decisionMakers = unique(
    (deciding.length ? deciding : proposing).map((r) => people(r.actorId)),
    new Set(),
  )
  const consulted = unique(
    [
      ...proposing.map((r) => people(r.actorId)),
      ...doc.proposals.filter((p) => p.decisionId === d.id).map((p) => people(p.authorId)),
      ...doc.reports
        .filter(
          (r) =>
            r.basis.some((b) => b.decisionId === d.id) ||
            r.claims.some((c) => c.decisions.some((x) => x.decisionId === d.id)),
        )
        .map((r) => people(r.authorId)),
    ],
    new Set(decisionMakers),
  )
  const informed = unique(
    [
      ...doc.notices.filter((n) => n.decisionId === d.id).map((n) => people(n.memberId)),
      ...doc.tasks
        .filter((t) => t.assigneeId && t.links.some((l) => l.decisionId === d.id))
        .map((t) => people(t.assigneeId)),
    ],
    new Set([...decisionMakers, ...consulted]),
  )
  return { decisionMakers, consulted, informed }
}

/** Who made a revision: its actor, and the author of the proposal it applied ("Ada Lovelace, proposed by Tess (tester)"). */
export function revisionAuthor(ctx: Pick<AdrContext, 'doc' | 'people'>, d: DecisionDoc, rev: RevisionDoc): string {
  // Accepting is a compare-and-set on the base version: the proposal accepted against v(n-1) made vn.
  const proposal = ctx.doc.proposals.find(
    (p) => p.decisionId === d.id && p.state === 'accepted' && p.baseVersion === rev.version - 1,
  )
  const actor = ctx.people(rev.actorId)
  return proposal ? `${actor}, proposed by ${ctx.people(proposal.authorId)}` : actor
}
