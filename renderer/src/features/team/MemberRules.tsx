import { useEffect, useState } from 'react'
import { ruleTarget, ruleWords } from '../../../../shared/approval-words'
import type { ApprovalRule, Member } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

/** The approval rules that apply to a member (its own and the team's), each removable. */
export function MemberRules({ member }: { member: Member }) {
  const api = useApp((s) => s.api)
  const [rules, setRules] = useState<ApprovalRule[] | null>(null)
  const load = useAction(async () =>
    setRules(await api.call('approvalRules.list', { workspaceId: member.workspaceId, memberId: member.id })),
  )
  const remove = useAction(async (ruleId: string) => {
    await api.call('approvalRules.remove', { ruleId })
    setRules((r) => r?.filter((x) => x.id !== ruleId) ?? null)
  })
  useEffect(() => {
    void load.run()
    // Loaded once per open settings; removing updates the list in place.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [member.id])
  return (
    <div className="member-rules" data-testid="member-rules">
      <div className="small">
        <b>Rules</b>{' '}
        <span className="muted">
          {rules && rules.length === 0
            ? 'none yet: “Always…” on a waiting call makes one.'
            : 'checked before the policy; a deny rule wins.'}
        </span>
      </div>
      {rules && rules.length > 0 && (
        <ul className="rule-list">
          {rules.map((r) => (
            <li key={r.id} data-testid="member-rule" data-rule-id={r.id}>
              <span className={`rule-effect ${r.effect}`}>{r.effect}</span> <code>{ruleTarget(r)}</code>{' '}
              <span className="muted small">{r.memberId ? `for ${member.name}` : 'for the team'}</span>
              <button
                className="link-btn small"
                disabled={remove.pending}
                onClick={() => void remove.run(r.id)}
                aria-label={`Remove the rule ${ruleWords(r)}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorText error={(load.error ?? remove.error)?.message} />
    </div>
  )
}

/** Says plainly whether this member's commands run in an OS sandbox here; never claims one that is not there. */
export function SandboxNote() {
  const sandbox = useApp((s) => s.system?.sandbox)
  if (!sandbox) return null
  return sandbox.available ? (
    <div className="muted small" data-testid="sandbox-note">
      Commands run in an OS sandbox ({sandbox.kind}): the repository is writable, the rest of the disk read-only,
      Concord’s data folder and your secrets invisible. An external agent (any of the ACP agents, a custom command too)
      runs in the same sandbox, with the network on to reach its model.
    </div>
  ) : (
    <div className="warn-inline small" data-testid="sandbox-note">
      Not sandboxed: {sandbox.reason ?? 'no OS sandbox is available on this machine'}. Commands run with a clean
      environment in their own process group, but can read and write anything your user can; so can an external agent.
    </div>
  )
}
