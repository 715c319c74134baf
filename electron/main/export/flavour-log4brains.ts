/**
 * The `log4brains` flavour: the MADR 2 header log4brains 1.x reads — the `# Title`, then a bullet
 * list before the first `##` with `Status:`, `Deciders:` (comma-separated) and `Date:`. log4brains
 * names an ADR by its file name without `.md` (its slug) and takes the superseding ADR from the
 * link text in `Status: superseded by [slug](file)`, so links use that slug (`0006-title`, which
 * starts with the ADR number). `## Links` holds `Supersedes [slug](file)` as log4brains writes it.
 * log4brains reads no front matter (it would hide the header), so the notice is the last line.
 */
import { adrEntry, adrLabel, adrSlug, involved, type AdrContext, type AdrRef } from './adr-model'
import { madrBody, recordSection } from './adr-sections'
import type { DecisionDoc } from './schema'
import { day, oneLine } from './text'

const link = (ref: AdrRef) => `[${adrSlug(ref)}](${ref.file})`

/** log4brains splits Deciders at commas: a comma inside a name would split it in two. */
const decider = (name: string) => name.replace(/\s*,\s*/g, ' ')

export function renderLog4brainsFlavour(ctx: AdrContext, d: DecisionDoc): string {
  const e = adrEntry(ctx, d)
  const adr = adrLabel(e.ref.number)
  const status = e.state === 'superseded' ? `superseded by ${link(e.supersededBy!)}` : e.state
  const deciders = involved(ctx, d).decisionMakers.map(decider)
  const out = [
    `# ${oneLine(d.title)}`,
    '',
    `- Status: ${status}`,
    ...(deciders.length ? [`- Deciders: ${deciders.join(', ')}`] : []),
    `- Date: ${day(d.createdAt)}`,
    '',
    ...madrBody(ctx, d, e),
  ]
  if (e.supersedes) out.push('## Links', '', `- Supersedes ${link(e.supersedes)}`, '')
  out.push(...recordSection(ctx, d, e, adr, 'More Information'))
  return out.join('\n')
}
