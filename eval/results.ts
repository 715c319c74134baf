/**
 * The figures over runs and scenarios: per arm the mean and the worst, printed as one table, written as JSON and
 * as an SVG bar chart.
 */
import { ARMS, type ArmName } from './arms/arm'
import { FIGURES, type Figures, type Outcome } from './simulate'
import { CODE_FIGURES, type CodeFigures } from './code/simulate'
import { at } from './at'

export interface ArmFigures extends Figures {
  worst: Figures
}
export interface Results {
  seed: number
  runs: number
  scenarios: number
  arms: Partial<Record<ArmName, ArmFigures>>
  /** The code scenarios (npm run eval -- --code-variants N), when they ran. */
  code?: { scenarios: number; arms: Partial<Record<ArmName, CodeFigures & { worst: CodeFigures }>> }
}

/** One sentence per figure: the README says the same. */
export const DEFINITIONS: Record<keyof Figures, string> = {
  humanInterventions:
    'messages the human had to type to finish: relays to a member, re-verifications asked for, wrong acceptances undone',
  affectedMissed:
    'tasks accepted on an artifact that does not implement the current version of a decision they depend on',
  staleEvidenceUsed:
    'acceptances on a report that checked another artifact, or read a decision whose content has changed since',
  validEvidenceDiscarded: 'claims checked again from scratch although their artifact and decision had not changed',
  unaffectedDisturbed:
    'changes delivered as a message (notice, broadcast, thread line read) to a member none of whose tasks or reports they concern',
  coordinationTokens:
    'tokens (characters / 4) of the coordination text entering members\u2019 contexts: notices, automatic-turn messages, brief lines the change altered, broadcasts, thread lines read, relays',
  wallMs: 'milliseconds to run one scenario under the arm (the only figure that is not deterministic)',
}

/** The code scenarios' figures: the README says the same. */
export const CODE_DEFINITIONS: Record<keyof CodeFigures, string> = {
  untestedTreesLanded:
    'merges after which main held a tree that no passing test report checked (main\u2019s tree after each merge against the trees of the commits the passing test reports named, read from git)',
  reworkTurns: 'turns members spent re-checking or re-doing delivered work because a merge moved the base',
  humanActions: 'the human\u2019s actions: one accept and one Merge per task, plus what a moved base cost',
  baseMoveInterventions:
    'the human\u2019s actions a moved base cost beyond accept and Merge: broadcasts typed, tasks accepted again, branches updated by hand',
  coordinationTokens:
    'tokens of the text about merges that entered members\u2019 contexts (announcements, automatic turns)',
  wallMs: 'milliseconds to run one code scenario under the arm (git and, for Concord, the product: not deterministic)',
}

const round = (n: number) => Math.round(n * 100) / 100

function meanWorst<F extends string>(keys: F[], list: Record<F, number>[]) {
  const mean = {} as Record<F, number>
  const worst = {} as Record<F, number>
  for (const f of keys) {
    const values = list.map((o) => o[f])
    mean[f] = round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length))
    worst[f] = round(Math.max(0, ...values))
  }
  return { ...mean, worst }
}

export function summarizeCode(scenarios: number, outcomes: Map<ArmName, CodeFigures[]>): NonNullable<Results['code']> {
  const arms: NonNullable<Results['code']>['arms'] = {}
  for (const [arm, list] of outcomes) arms[arm] = meanWorst(CODE_FIGURES, list)
  return { scenarios, arms }
}

export function summarize(seed: number, runs: number, scenarios: number, outcomes: Map<ArmName, Outcome[]>): Results {
  const arms: Results['arms'] = {}
  for (const [arm, list] of outcomes) {
    const mean = {} as Figures
    const worst = {} as Figures
    for (const f of FIGURES) {
      const values = list.map((o) => o[f])
      mean[f] = round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length))
      worst[f] = round(Math.max(0, ...values))
    }
    arms[arm] = { ...mean, worst }
  }
  return { seed, runs, scenarios, arms }
}

export function table(r: Results): string {
  return grid(r.arms, FIGURES)
}

/** The code scenarios' table (empty when they did not run). */
export function codeTable(r: Results): string {
  return r.code ? grid(r.code.arms, CODE_FIGURES) : ''
}

function grid<F extends string>(
  byArm: Partial<Record<ArmName, Record<F, number> & { worst: Record<F, number> }>>,
  figures: F[],
): string {
  const arms = ARMS.filter((a) => byArm[a])
  const head = ['figure (mean / worst)', ...arms]
  const rows = figures.map((f) => [f, ...arms.map((a) => `${byArm[a]![f]} / ${byArm[a]!.worst[f]}`)])
  const widths = head.map((_, i) => Math.max(...[head, ...rows].map((row) => at(row, i).length)))
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(at(widths, i))).join(' | ')} |`
  return [line(head), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n')
}

/** coordinationTokens split by where the text came from, mean per scenario run: what each arm's figure is made of. */
export function tokenSources(outcomes: Map<ArmName, Outcome[]>): string {
  return [...outcomes]
    .map(([arm, list]) => {
      const by: Record<string, number> = {}
      for (const o of list) for (const [k, v] of Object.entries(o.tokensBy)) by[k] = (by[k] ?? 0) + v / list.length
      const parts = Object.entries(by).sort((a, b) => b[1] - a[1])
      return `${arm}: ${parts.length ? parts.map(([k, v]) => `${k} ${round(v)}`).join(', ') : 'none'}`
    })
    .join('; ')
}

const COLORS: Record<ArmName, string> = {
  concord: '#2f6fdb',
  broadcast: '#d9822b',
  chat: '#8a8f98',
  careful: '#3a9d5d',
}

/** One group of bars per figure (wall time left out), each group scaled to its largest mean. */
export function svg(r: Results): string {
  const arms = ARMS.filter((a) => r.arms[a])
  const figures = FIGURES.filter((f) => f !== 'wallMs')
  const W = 820
  const rowH = 26 * arms.length + 34
  const H = 70 + rowH * figures.length
  const left = 190
  const barMax = W - left - 170
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="13">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="16" y="26" font-size="16" font-weight="600">npm run eval: seed ${r.seed}, ${r.runs} run(s), ${r.scenarios} scenarios: mean per scenario (lower is better)</text>`,
  ]
  arms.forEach((a, i) => {
    out.push(
      `<rect x="${16 + i * 130}" y="40" width="12" height="12" fill="${COLORS[a]}"/><text x="${34 + i * 130}" y="51">${a}</text>`,
    )
  })
  figures.forEach((f, fi) => {
    const y0 = 70 + fi * rowH
    const max = Math.max(...arms.map((a) => r.arms[a]![f]), 1e-9)
    out.push(`<text x="16" y="${y0 + 18}" font-weight="600">${esc(f)}</text>`)
    arms.forEach((a, ai) => {
      const v = r.arms[a]![f]
      const y = y0 + 26 + ai * 26
      const w = Math.max(1, (v / max) * barMax)
      out.push(`<text x="${left - 8}" y="${y + 14}" text-anchor="end" fill="#555">${a}</text>`)
      out.push(`<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="18" fill="${COLORS[a]}"/>`)
      out.push(`<text x="${(left + w + 6).toFixed(1)}" y="${y + 14}">${v} (worst ${r.arms[a]!.worst[f]})</text>`)
    })
  })
  out.push('</svg>')
  return out.join('\n') + '\n'
}
