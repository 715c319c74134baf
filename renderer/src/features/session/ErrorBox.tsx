import { useState } from 'react'
import type { Step } from '../../../../shared/schemas'
import { useApp } from '../../stores/app-store'
import { MemberEditor } from '../team/MemberEditor'

/** A failed model call: what the provider said, and the way to the settings that usually fix it. */
export function ErrorBox({ step, memberId }: { step: Step; memberId: string }) {
  const member = useApp((s) => s.members[memberId])
  const [editing, setEditing] = useState(false)
  const modelCall = step.text.startsWith('The model call failed')
  return (
    <div className="error-box">
      <strong>Error</strong> {step.text}
      {modelCall && member && (
        <>
          {' '}
          <button className="link-btn" onClick={() => setEditing(true)} data-testid="fix-provider">
            Check {member.name}’s provider settings
          </button>
          {editing && <MemberEditor member={member} onClose={() => setEditing(false)} />}
        </>
      )}
    </div>
  )
}
