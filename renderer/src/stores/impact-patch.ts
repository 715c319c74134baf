/**
 * A loaded row patched from a decision's impact, so the panels show the edit's effect the moment its event
 * (or answer) arrives; the batched refetch that follows replaces the patch with the server's row.
 */
import type { Decision, ImpactTask, Report, Task } from '../../../shared/schemas'
import type { CompactImpact } from '../api/pages'

export function patchTask(t: Task, it: ImpactTask, decision: Decision, normative: boolean): Task {
  const links = t.links.map((l) =>
    l.decisionId !== decision.id
      ? l
      : { ...l, currentVersion: decision.version, state: normative ? ('suspect' as const) : l.state },
  )
  // A task in an impact has a flag (ImpactTask.flag), so it is flagged.
  return { ...t, status: it.status, flag: it.flag, flagged: true, assigneeId: it.assigneeId, links }
}

export function patchReport(r: Report, ir: CompactImpact['reports'][number], decision: Decision): Report {
  const stale = new Set(ir.staleClaimIds)
  const restored = new Set(ir.restoredClaimIds ?? [])
  const claims = r.claims.map((c) =>
    stale.has(c.id) ? { ...c, state: 'stale' as const } : restored.has(c.id) ? { ...c, state: 'valid' as const } : c,
  )
  // A restoring edit brings the decision's fingerprint back: what was pinned to it is current again.
  const basis = r.basis.map((b) =>
    b.decisionId !== decision.id
      ? b
      : { ...b, state: stale.size ? ('suspect' as const) : restored.size ? ('current' as const) : b.state },
  )
  // The report's validity is the core's (ImpactReport.validity), not re-derived from its claims here.
  return { ...r, claims, basis, validity: ir.validity }
}

/**
 * A loaded report the edit's (cut) impact does not list, after a normative edit of `decision`: what was current on
 * the decision (its basis entry, its valid claims that link it) was pinned to the old content, so it is stale now.
 * Exact when nothing of the report was already stale on the decision (an edit back to older content may restore
 * that): then the patched row, else null (the caller refetches it).
 */
export function staleFromNormativeEdit(r: Report, decision: Decision): Report | null {
  const basis = r.basis.find((b) => b.decisionId === decision.id)
  const linked = r.claims.filter((c) => c.decisionIds.includes(decision.id))
  if (!basis && !linked.length) return null
  if (basis?.state === 'suspect' || linked.some((c) => c.state === 'stale')) return null
  return {
    ...r,
    basis: r.basis.map((b) => (b.decisionId === decision.id ? { ...b, state: 'suspect' as const } : b)),
    claims: r.claims.map((c) => (c.decisionIds.includes(decision.id) ? { ...c, state: 'stale' as const } : c)),
    validity: 'stale',
  }
}
