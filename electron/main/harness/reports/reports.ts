import type { ParsedParams } from '../../../../shared/contract'
import { ApiError } from '../../../../shared/errors'
import type { Report } from '../../../../shared/schemas'
import { decisionRow, memberRowOf, rowOf, taskRow, type Ctx } from '../context'
import type { Harness } from '../harness'
import { makeKey, now } from '../ids'
import { toReport, toReports, toTask } from '../mappers'
import { readinessKinds } from '../rules/readiness'
import { resolveArtifact } from '../workspace/artifacts'
import { refreshHead } from '../workspace/task-branches'

/**
 * reports.submit as every face asks for it: the artifact is resolved to the full commit in the workspace's repository
 * (in the task's tree first), and a report made in the turn that committed sees that commit, because the tree's new
 * head is brought into the repository first. Git runs before the report's transaction.
 */
export async function submitReportAtCommit(h: Harness, ctx: Ctx, p: ParsedParams<'reports.submit'>): Promise<Report> {
  const row = taskRow(ctx, p.taskId).id
  const worktree = ctx.store.branches.get(row)?.worktree ?? undefined
  if (worktree) await refreshHead(h, ctx, row).catch(() => undefined)
  return submitReport(ctx, { ...p, artifact: (await resolveArtifact(h, ctx, p.artifact, worktree))! })
}

/**
 * Records what a report was based on, what it checked and what it proved. The basis defaults to the
 * current versions of the task's decisions; each claim pins the decisions it exercises as the basis
 * read them, so a later change stales exactly the claims that depend on it.
 */
export function submitReport(ctx: Ctx, p: ParsedParams<'reports.submit'>): Report {
  const task = taskRow(ctx, p.taskId)
  // Any member of the task's workspace reports as itself; a member of another workspace does not exist here.
  const author = p.authorId === undefined ? null : memberRowOf(ctx, p.authorId, 'authorId')
  const row = ctx.store.transaction(() => {
    const basis = new Map<number, { version: number; fingerprint: string }>()
    if (p.basis) {
      p.basis.forEach((b, i) => {
        const d = decisionRow(ctx, b.decisionId, `basis[${i}].decisionId`)
        const rev = ctx.store.decisions.revision(d.id, b.version)
        if (!rev)
          throw new ApiError(
            'invalid_params',
            `basis[${i}].version: ${makeKey('decision', d.id)} has no v${b.version} (it is at v${d.version})`,
          )
        basis.set(d.id, { version: rev.version, fingerprint: rev.fingerprint })
      })
    } else {
      for (const l of ctx.store.tasks.links(task.id))
        basis.set(l.decision_id, { version: l.current_version, fingerprint: l.current_fingerprint })
    }
    const claimDecisions = p.claims.map((c, i) =>
      [...new Set(c.decisionIds.map((id, j) => decisionRow(ctx, id, `claims[${i}].decisionIds[${j}]`)))].map((d) => ({
        id: d.id,
        fingerprint: basis.get(d.id)?.fingerprint ?? d.fingerprint,
      })),
    )
    const at = now()
    const id = ctx.store.reports.insert({
      task_id: task.id,
      author_id: author,
      kind: p.kind,
      verdict: p.verdict,
      summary: p.summary ?? '',
      artifact_commit: p.artifact.commit?.toLowerCase() ?? null,
      artifact_digest: p.artifact.digest ?? null,
      claim_count: p.claims.length,
      created_at: at,
    })
    for (const [decisionId, b] of basis) ctx.store.reports.insertBasis(id, decisionId, b.version, b.fingerprint)
    p.claims.forEach((c, i) => {
      const claimId = ctx.store.reports.insertClaim(id, i, c.text, c.verdict ?? p.verdict)
      const seen = new Set<number>()
      for (const d of claimDecisions[i] ?? []) {
        if (seen.has(d.id)) continue
        seen.add(d.id)
        ctx.store.reports.insertClaimLink(claimId, id, d.id, d.fingerprint)
      }
    })
    ctx.store.log.appendEvent(
      'report.submitted',
      { reportId: id, taskId: task.id, kind: p.kind, verdict: p.verdict },
      at,
    )
    return ctx.store.reports.get(id)!
  })
  const report = toReport(ctx.wsId, ctx.store, row)
  ctx.emit('report.submitted', { workspaceId: ctx.wsId, report })
  // A report of a kind the task's readiness reads moves it (ready, why not, a delivery on offer): the task comes anew.
  if (readinessKinds(task).includes(p.kind))
    ctx.emit('task.changed', { workspaceId: ctx.wsId, task: toTask(ctx.wsId, ctx.store, task), readinessOnly: true })
  return report
}

export function getReport(ctx: Ctx, reportId: string): Report {
  const row = ctx.store.reports.get(rowOf(ctx, 'report', reportId, 'reportId'))
  if (!row) throw new ApiError('not_found', `reportId: report ${reportId} does not exist`)
  return toReport(ctx.wsId, ctx.store, row)
}

export function listReports(ctx: Ctx, taskId?: string): Report[] {
  const task = taskId === undefined ? undefined : taskRow(ctx, taskId).id
  return toReports(ctx.wsId, ctx.store, ctx.store.reports.list(task))
}
