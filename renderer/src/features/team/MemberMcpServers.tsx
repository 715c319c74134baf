import { useEffect, useState } from 'react'
import type { Member, MemberMcpServers as Servers } from '../../../../shared/schemas'
import { CheckboxRow } from '../../components/CheckboxRow'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

/**
 * The repository's MCP servers (its `.mcp.json`) in a member's settings: each on or off for this member, and the
 * entries Concord leaves out with their reason. `off` is the draft's list, saved with the other settings.
 */
export function MemberMcpServers({
  member,
  off,
  onChange,
}: {
  member: Member
  off: string[]
  onChange(off: string[]): void
}) {
  const api = useApp((s) => s.api)
  const [listed, setListed] = useState<Servers | null>(null)
  const load = useAction(async () => setListed(await api.call('members.mcpServers', { memberId: member.id })))
  useEffect(() => {
    void load.run()
    // Loaded once per open settings.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [member.id])
  const toggle = (name: string, on: boolean) => onChange(on ? off.filter((n) => n !== name) : [...off, name])
  return (
    <div className="member-rules" data-testid="member-mcp-servers">
      <div className="small">
        <b>The repository’s MCP servers</b>{' '}
        <span className="muted">
          {listed && !listed.servers.length && !listed.problems.length
            ? 'none: the repository has no .mcp.json.'
            : 'from .mcp.json; they run in the member’s sandbox and their calls follow its approval policy.'}
        </span>
      </div>
      {listed?.servers.map((s) => (
        <CheckboxRow
          key={s.name}
          checked={!off.includes(s.name)}
          onChange={(on) => toggle(s.name, on)}
          label={`MCP server ${s.name}`}
          hint={<code className="muted small"> {[s.command, ...s.args].join(' ')}</code>}
        >
          {s.name}
        </CheckboxRow>
      ))}
      {listed?.problems.map((p) => (
        <div key={`${p.server ?? ''}${p.code}`} className="small warn-inline" data-testid="mcp-problem">
          {p.message} <code>{p.code}</code>
        </div>
      ))}
      <ErrorText error={load.error?.message} />
    </div>
  )
}
