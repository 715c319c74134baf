/**
 * A second repository starts with the team of another (issue 31): on the setup wizard of a workspace with no
 * members, "Use the team of <workspace>" copies that team (members.copyTeam) in one click: members, providers,
 * approval policies and rules; keys are used where they are stored, not copied.
 */
import { useEffect, useState } from 'react'
import type { TeamSource } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import './team-offer.css'

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function sourceLine(source: TeamSource): string {
  const providers = [...new Set(source.members.map((m) => m.provider ?? 'no provider'))]
  return [
    source.members.map((m) => m.name).join(', '),
    providers.join(', '),
    source.rules ? plural(source.rules, 'approval rule') : 'no approval rules',
  ].join(' · ')
}

export function TeamOffer({ workspaceId }: { workspaceId: string }) {
  const api = useApp((s) => s.api)
  const applyMember = useApp((s) => s.applyMember)
  const selectMember = useApp((s) => s.selectMember)
  const [sources, setSources] = useState<TeamSource[]>([])
  useEffect(() => {
    let alive = true
    // Only an offer: if the other teams cannot be read, the wizard is still there.
    api.call('members.teams', { workspaceId }).then(
      (s) => alive && setSources(s),
      () => undefined,
    )
    return () => {
      alive = false
    }
  }, [api, workspaceId])
  const copy = useAction(async (fromWorkspaceId: string) => {
    const { members } = await api.call('members.copyTeam', { workspaceId, fromWorkspaceId })
    for (const m of members) applyMember(m)
    if (members[0]) selectMember(members[0].id)
  })
  if (sources.length === 0) return null
  return (
    <section className="team-offer" data-testid="team-offer" aria-label="Use a team you already have">
      <h2>Use a team you already have</h2>
      <ul>
        {sources.map((s) => (
          <li key={s.workspaceId} data-testid="team-source">
            <div className="team-source-text">
              <div className="team-source-name">{s.name}</div>
              <div className="muted small">{sourceLine(s)}</div>
            </div>
            <button
              className="btn primary"
              disabled={copy.pending}
              onClick={() => void copy.run(s.workspaceId)}
              data-testid="use-team"
            >
              Use the team of {s.name}
            </button>
          </li>
        ))}
      </ul>
      <p className="muted small">
        The same members, providers, approval policies and rules. Their API keys are not copied: the new members use the
        keys already stored.
      </p>
      <ErrorText error={copy.error?.message} />
      <div className="team-offer-or" aria-hidden="true">
        or set up a new team
      </div>
    </section>
  )
}
