import { EmptyState } from '../../components/ui'
import { compactNumber } from '../../lib/format'
import { useApp } from '../../stores/app-store'

function Figure({ label, value, hint }: { label: string; value: number; hint?: string }) {
  return (
    <div className="figure" title={hint}>
      <div className="figure-value">{compactNumber(value)}</div>
      <div className="figure-label">{label}</div>
    </div>
  )
}

/** The coordination figures: what the harness did for the team, and what it cost in tokens. */
export function Figures() {
  const m = useApp((s) => s.metrics)
  const members = useApp((s) => s.members)
  const tasks = useApp((s) => s.tasks)
  if (!m) return <EmptyState title="No figures yet">They appear as soon as the workspace has activity.</EmptyState>
  const flagged = m.tasksFlagged.requirements_updated + m.tasksFlagged.needs_adjustment + m.tasksFlagged.needs_reverification
  return (
    <div className="panel-section figures" data-testid="figures">
      <h4>Coordination</h4>
      <div className="figure-grid">
        <Figure label="decision edits" value={m.decisionEdits.normative} hint={`${m.decisionEdits.editorial} editorial edits flagged nothing`} />
        <Figure label="tasks flagged" value={flagged} hint="tasks told about a change that affects them" />
        <Figure label="notices sent" value={m.noticesSent} hint="only to members whose work was affected" />
        <Figure label="relays you did not have to make" value={m.autoTurns ?? 0} hint="turns Concord started itself for flagged members and stale evidence" />
        <Figure label="acceptances revoked" value={m.acceptancesRevoked} />
        <Figure label="claims made stale" value={m.claims.madeStale} />
        <Figure label="claims kept valid" value={m.claims.keptValid} hint="evidence not thrown away" />
        <Figure label="stale evidence blocked" value={m.acceptances.refusedStale} hint="acceptances refused because evidence was stale" />
        <Figure label="accepted" value={m.acceptances.accepted} />
        <Figure label="proposals" value={m.proposals.created} hint={`${m.proposals.accepted} accepted, ${m.proposals.rejected} rejected`} />
      </div>
      <div className="flag-split muted small">
        requirements updated {m.tasksFlagged.requirements_updated} · needs adjustment {m.tasksFlagged.needs_adjustment} · needs re-verification {m.tasksFlagged.needs_reverification} · refused for
        missing evidence {m.acceptances.refusedMissing}
      </div>
      <h4>Tokens</h4>
      <div className="muted small">
        {compactNumber(m.tokens.total.input)} in · {compactNumber(m.tokens.total.output)} out in total
        {m.tokens.total.unreported > 0 && (
          <>
            {' '}
            · {m.tokens.total.unreported} {m.tokens.total.unreported === 1 ? 'reply' : 'replies'} not reported by the provider
          </>
        )}
      </div>
      <table className="tokens-table">
        <thead>
          <tr>
            <th>Member</th>
            <th>in</th>
            <th>out</th>
          </tr>
        </thead>
        <tbody>
          {m.tokens.perMember.length === 0 && (
            <tr>
              <td colSpan={3} className="muted">
                none yet
              </td>
            </tr>
          )}
          {m.tokens.perMember.map((r) => (
            <tr key={r.memberId}>
              <td>{members[r.memberId]?.name ?? r.memberId}</td>
              <TokenCells {...r} />
            </tr>
          ))}
        </tbody>
      </table>
      <table className="tokens-table">
        <thead>
          <tr>
            <th>Task</th>
            <th>in</th>
            <th>out</th>
          </tr>
        </thead>
        <tbody>
          {m.tokens.perTask.length === 0 && (
            <tr>
              <td colSpan={3} className="muted">
                none yet
              </td>
            </tr>
          )}
          {m.tokens.perTask.map((r) => (
            <tr key={r.taskId}>
              <td>
                {tasks[r.taskId]?.key ?? r.taskId} <span className="muted">{tasks[r.taskId]?.title}</span>
              </td>
              <TokenCells {...r} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Tokens of a row; replies the provider sent no usage for are said to be unreported, never counted as 0. */
function TokenCells({ input, output, unreported }: { input: number; output: number; unreported: number }) {
  if (unreported > 0 && input === 0 && output === 0) {
    return (
      <td colSpan={2} className="muted" title="The provider sent no token usage for these replies">
        not reported
      </td>
    )
  }
  const note = unreported > 0 ? ` (+${unreported} not reported)` : ''
  return (
    <>
      <td title={note ? `${unreported} replies without reported usage` : undefined}>
        {compactNumber(input)}
        {note && <span className="muted">*</span>}
      </td>
      <td>{compactNumber(output)}</td>
    </>
  )
}
