/**
 * The MADR files carry no filler: no "Considered Options" that only repeats the title, statuses in words a person
 * reads (never enum values like in_progress), and the human named (as git names them), never `human`.
 */
import { describe, expect, it } from 'vitest'
import { adrContext } from '../../electron/main/export/adr-model'
import { renderMadrFlavour } from '../../electron/main/export/flavour-madr'
import { renderLog4brainsFlavour } from '../../electron/main/export/flavour-log4brains'
import { renderLog } from '../../electron/main/export/markdown'
import type { ExportDoc } from '../../electron/main/export/schema'

const at = '2026-01-02T10:00:00.000Z'
const revision = (version: number, statement: string, actorId: string | null) => ({
  version,
  title: 'Search timeout',
  statement,
  rationale: 'Slow providers.',
  status: 'accepted',
  fingerprint: `f${version}`,
  reason: version === 1 ? 'created' : 'longer',
  actorId,
  createdAt: at,
})

function doc(proposals: object[] = []): ExportDoc {
  return {
    workspace: { name: 'Web Search' },
    members: [{ id: 'M-1', name: 'Impl', role: 'implementer' }],
    decisions: [
      {
        id: 'D-1',
        title: 'Search timeout',
        statement: 'Give up after 10 s.',
        rationale: 'Slow providers.',
        status: 'accepted',
        version: 2,
        fingerprint: 'f2',
        supersedes: null,
        supersededBy: null,
        createdAt: at,
        updatedAt: at,
        createdBy: null,
        revisions: [revision(1, 'Give up after 5 s.', null), revision(2, 'Give up after 10 s.', 'M-1')],
      },
    ],
    proposals,
    tasks: [
      {
        id: 'T-1',
        title: 'Web search tool',
        status: 'in_progress',
        flag: 'needs_reverification',
        assigneeId: 'M-1',
        links: [{ decisionId: 'D-1', pinnedVersion: 1, state: 'suspect' }],
      },
    ],
    reports: [],
    notices: [],
  } as unknown as ExportDoc
}

const madr = (d: ExportDoc, human?: string) =>
  renderMadrFlavour(
    adrContext(d, new Map([['D-1', { number: 1, file: '0001-search-timeout.md' }]]), human),
    d.decisions[0]!,
  )

describe('MADR words', () => {
  it('leaves out "Considered Options" when no other statement was proposed, and says the outcome in words', () => {
    const text = madr(doc(), 'Ada Lovelace')
    expect(text).not.toContain('## Considered Options')
    expect(text).not.toContain('Chosen option')
    expect(text).toContain('\n## Decision Outcome\n\nAccepted.\n\nGive up after 10 s.\n')
  })

  it('lists the options when a proposal offered another statement, this decision’s first', () => {
    const text = madr(
      doc([{ id: 'P-1', decisionId: 'D-1', statement: 'Give up after 30 s.', state: 'rejected', authorId: 'M-1' }]),
      'Ada Lovelace',
    )
    expect(text).toContain(
      '\n## Considered Options\n\n* “Give up after 10 s.” (this decision)\n* “Give up after 30 s.” (proposed by Impl (implementer), turned down)\n',
    )
    expect(text).toContain('\n## Decision Outcome\n\nChosen option: the statement of this decision, below.\n')
  })

  it('writes task statuses and pins in words, never enum values', () => {
    const text = madr(doc(), 'Ada Lovelace')
    expect(text).toContain(
      '* T-1 “Web search tool” depends on this decision: in progress, needs re-verification; assigned to Impl (implementer); built on v1, changed since.',
    )
    expect(text).not.toMatch(/in_progress|needs_reverification|\(suspect\)/)
  })

  it('names the human as given (git’s user.name), in every flavour and the log; never “human”', () => {
    const d = doc()
    const ctx = adrContext(d, new Map([['D-1', { number: 1, file: '0001-search-timeout.md' }]]), 'Ada Lovelace')
    for (const text of [
      madr(d, 'Ada Lovelace'),
      renderLog4brainsFlavour(ctx, d.decisions[0]!),
      renderLog(d, 'Ada Lovelace'),
    ]) {
      expect(text).toContain('Ada Lovelace')
      expect(text).not.toMatch(/\bhuman\b/)
    }
    expect(madr(d)).toContain('decision-makers:\n  - "the Concord user"\n  - "Impl (implementer)"')
  })
})
