/**
 * The `adr-tools` flavour: Nygard's layout as adr-tools writes it. The first line is `# N. Title`
 * (adr-tools reads the title from there), then `Date:`, and a `## Status` section whose first
 * paragraph is the status and whose further paragraphs are links, one per paragraph, as adr-tools'
 * `new -s` and `link` write them: `Superseded by [6. Title](0006-title.md)`,
 * `Supersedes [3. Title](0003-title.md)`. No front matter (it would come before the title); the
 * "generated" notice, which names the D-n, is the last line.
 */
import { adrEntry, adrLabel, type AdrContext, type AdrRef } from './adr-model'
import { consequenceBullets, recordSection } from './adr-sections'
import type { DecisionDoc } from './schema'
import { day, oneLine } from './text'

const title = (ref: AdrRef) => `${ref.number}. ${oneLine(ref.title)}`
const link = (ref: AdrRef) => `[${title(ref)}](${ref.file})`

const statusWord = {
  proposed: 'Proposed',
  accepted: 'Accepted',
  rejected: 'Rejected',
  deprecated: 'Deprecated',
} as const

export function renderAdrToolsFlavour(ctx: AdrContext, d: DecisionDoc): string {
  const e = adrEntry(ctx, d)
  const adr = adrLabel(e.ref.number)
  const status = e.state === 'superseded' ? `Superseded by ${link(e.supersededBy!)}` : statusWord[e.state]
  const out = [`# ${title(e.ref)}`, '', `Date: ${day(d.createdAt)}`, '', '## Status', '', status, '']
  if (e.supersedes) out.push(`Supersedes ${link(e.supersedes)}`, '')
  out.push(
    '## Context',
    '',
    d.rationale.trim() || '_No rationale was recorded for this decision._',
    '',
    '## Decision',
    '',
    d.statement.trim(),
    '',
    '## Consequences',
    '',
  )
  const consequences = consequenceBullets(ctx, d)
  out.push(...(consequences.length ? consequences : ['No task depends on this decision.']), '')
  out.push(...recordSection(ctx, d, e, adr, 'Concord record'))
  return out.join('\n')
}
