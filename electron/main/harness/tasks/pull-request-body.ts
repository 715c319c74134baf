/**
 * The body of a task's pull request, made from the task itself: what it implements (its decisions, at the versions
 * it is pinned to), its reports (verdicts, and the commit each checked), and the claims those reports make — an
 * evidence table a reviewer on the forge can read without Concord.
 */
import type { Report, Task } from '../../../../shared/schemas'

export interface BodyDecision {
  key: string
  title: string
  version: number
  state: 'current' | 'suspect'
}

/** One cell of a markdown table: no pipe or line break may split it. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').trim() || '—'
}

const short = (sha: string | null): string => (sha ? `\`${sha.slice(0, 12)}\`` : '—')

export function pullRequestBody(
  task: Task,
  decisions: BodyDecision[],
  reports: Report[],
  decisionKeys: Map<string, string>,
): string {
  const lines: string[] = [`${task.key}: ${task.title}`, '']
  if (task.spec.trim()) lines.push(task.spec.trim(), '')
  lines.push('## Implements', '')
  if (decisions.length) {
    lines.push('| Decision | Title | Version |', '| --- | --- | --- |')
    for (const d of decisions)
      lines.push(`| ${d.key} | ${cell(d.title)} | v${d.version}${d.state === 'suspect' ? ' (changed since)' : ''} |`)
  } else lines.push('No decision is linked to this task.')
  lines.push('', '## Reports', '')
  const live = reports.filter((r) => r.supersededBy === null)
  if (live.length) {
    lines.push('| Report | Kind | Verdict | Commit checked | Validity |', '| --- | --- | --- | --- | --- |')
    for (const r of live)
      lines.push(`| ${r.key} | ${r.kind} | ${r.verdict} | ${short(r.artifact.commit)} | ${r.validity} |`)
  } else lines.push('No report yet.')
  lines.push('', '## Evidence', '')
  const claims = live.flatMap((r) => r.claims.map((c) => ({ r, c })))
  if (claims.length) {
    lines.push('| Claim | Report | Verdict | Commit | Decisions | State |', '| --- | --- | --- | --- | --- | --- |')
    for (const { r, c } of claims) {
      const keys = c.decisionIds.map((id) => decisionKeys.get(id) ?? id).join(', ')
      lines.push(
        `| ${cell(c.text)} | ${r.key} | ${r.verdict} | ${short(r.artifact.commit)} | ${cell(keys)} | ${c.state} |`,
      )
    }
  } else lines.push('No claim recorded.')
  lines.push('', `Head: \`${task.head ?? task.artifact?.commit ?? 'unknown'}\` — opened from Concord.`)
  return lines.join('\n')
}
