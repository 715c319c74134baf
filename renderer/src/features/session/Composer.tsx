import { useEffect, useRef, useState } from 'react'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { clearDraft, loadDraft, saveDraft } from '../../lib/drafts'
import { TreePicker, useTurnTree } from './TreePicker'

let askedForNotifications = false
function askForNotifications() {
  // Asked on the first message sent (a user gesture), so approvals and finished replies can notify.
  if (askedForNotifications || typeof Notification === 'undefined' || Notification.permission !== 'default') return
  askedForNotifications = true
  void Notification.requestPermission().catch(() => {})
}

export function Composer({
  memberId,
  compact,
  autoFocus,
}: {
  memberId: string
  compact?: boolean
  autoFocus?: boolean
}) {
  const api = useApp((s) => s.api)
  const member = useApp((s) => s.members[memberId])
  const focusTick = useApp((s) => s.composerFocusTick)
  const queued = useApp((s) => s.sessions[memberId]?.info.queued ?? 0)
  const workspaceId = member?.workspaceId ?? ''
  const [text, setTextState] = useState(() => loadDraft(workspaceId, memberId))
  // The draft of the member shown: switching members brings back what was typed to that one.
  const [draftOf, setDraftOf] = useState(`${workspaceId}/${memberId}`)
  if (draftOf !== `${workspaceId}/${memberId}`) {
    setDraftOf(`${workspaceId}/${memberId}`)
    setTextState(loadDraft(workspaceId, memberId))
  }
  const setText = (next: string | ((t: string) => string)) =>
    setTextState((t) => {
      const value = typeof next === 'function' ? next(t) : next
      saveDraft(workspaceId, memberId, value)
      return value
    })
  const ref = useRef<HTMLTextAreaElement>(null)
  const tree = useTurnTree(memberId, workspaceId, text)
  const send = useAction(async (value: string, taskId?: string) => {
    askForNotifications()
    await api.call('sessions.send', { memberId, text: value, ...(taskId ? { taskId } : {}) })
    clearDraft(workspaceId, memberId)
    return true
  })

  useEffect(() => {
    if (autoFocus && focusTick > 0) ref.current?.focus()
  }, [focusTick, autoFocus])

  useEffect(() => {
    const el = ref.current
    if (!el) return
    el.style.height = 'auto'
    el.style.height = `${Math.min(el.scrollHeight, compact ? 120 : 220)}px`
  }, [text, compact])

  const submit = async () => {
    const value = text.trim()
    if (!value || send.pending) return
    const taskId = tree.task?.id
    setText('')
    const ok = await send.run(value, taskId)
    if (!ok) setText((t) => t || value)
  }

  if (!member) return null
  const noProvider = !member.provider
  return (
    <div className={`composer${compact ? ' compact' : ''}`}>
      {noProvider && (
        <div className="composer-hint">
          {member.name} has no model provider yet. Open its settings (⚙) to choose one.
        </div>
      )}
      {send.error && (
        <div className="error-text" role="alert">
          {send.error.message}
        </div>
      )}
      <TreePicker tree={tree} />
      <div className="composer-row">
        <textarea
          ref={ref}
          value={text}
          rows={1}
          placeholder={`Message ${member.name}${compact ? '' : ' — mention decisions as D-1; Enter sends, Shift+Enter for a new line'}`}
          aria-label={`Message ${member.name}`}
          data-testid="composer"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault()
              void submit()
            }
          }}
        />
        <button
          className="btn primary"
          disabled={!text.trim() || send.pending || noProvider}
          onClick={() => void submit()}
          data-testid="send"
        >
          Send
        </button>
      </div>
      {queued > 0 && (
        <div className="composer-queued">
          {queued} message{queued === 1 ? '' : 's'} queued
        </div>
      )}
    </div>
  )
}
