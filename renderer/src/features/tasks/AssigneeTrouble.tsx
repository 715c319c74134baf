/**
 * The line a task card shows when its assignee needs the user (issue 31, "the board hides member trouble"): stopped
 * on an error (with the messages it has not sent), waiting for an approval, or asking a question. A refused key or
 * a missing provider is fixed in the member's settings, opened from here.
 */
import { useState } from 'react'
import type { Task } from '../../../../shared/schemas'
import { fixedInSettings } from '../../../../shared/session-errors'
import { useApp } from '../../stores/app-store'
import { foldDrawer } from '../../components/narrow-drawer'
import { MemberEditor } from '../team/MemberEditor'
import '../session/member-trouble.css'

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

export function AssigneeTrouble({ task }: { task: Task }) {
  const memberId = task.assigneeId
  const member = useApp((s) => (memberId ? s.members[memberId] : undefined))
  const info = useApp((s) => (memberId ? s.sessions[memberId]?.info : undefined))
  const selectMember = useApp((s) => s.selectMember)
  const setPanelOpen = useApp((s) => s.setPanelOpen)
  const [fixing, setFixing] = useState(false)
  // Only where the task is being worked on: a task to do or done does not wait on its assignee.
  if (!member || !info || task.status !== 'in_progress') return null
  const approvals = info.pendingApprovals.length
  const trouble = info.state === 'error' ? 'error' : approvals ? 'approval' : info.question ? 'question' : null
  if (!trouble) return null
  const settingsFix = trouble === 'error' && fixedInSettings(info.errorCode)
  return (
    <div
      className={`tcard-trouble trouble-${trouble}`}
      role="status"
      data-testid="assignee-trouble"
      data-trouble={trouble}
      data-code={info.errorCode ?? ''}
    >
      <span className="tcard-trouble-text" title={info.error ?? undefined}>
        {trouble === 'error' ? (
          <>
            <b>{member.name} stopped:</b> {info.error}
            {info.queued > 0 && <> · {plural(info.queued, 'message', 'messages')} not sent</>}
          </>
        ) : trouble === 'approval' ? (
          <>
            <b>{member.name}</b> waits for your approval ({plural(approvals, 'call', 'calls')})
          </>
        ) : (
          <>
            <b>{member.name}</b> asks you a question
          </>
        )}
      </span>
      <span className="tcard-trouble-actions">
        {settingsFix && (
          <button className="btn small primary" onClick={() => setFixing(true)} data-testid="card-fix-in-settings">
            Fix in settings
          </button>
        )}
        <button
          className="btn small"
          onClick={() => {
            selectMember(member.id)
            foldDrawer(setPanelOpen)
          }}
          data-testid="open-assignee-session"
        >
          {trouble === 'error' ? 'Open session' : trouble === 'approval' ? 'Review' : 'Answer'}
        </button>
      </span>
      {fixing && <MemberEditor member={member} fixing={info.error ?? undefined} onClose={() => setFixing(false)} />}
    </div>
  )
}
