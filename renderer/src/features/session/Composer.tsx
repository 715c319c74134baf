import { useEffect, useRef, useState, type RefObject } from 'react'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { clearDraft, loadDraft, saveDraft } from '../../lib/drafts'
import { TreePicker, useTurnTree } from './TreePicker'
import { ComposerImages, useComposerImages } from './ComposerImages'

let askedForNotifications = false
function askForNotifications() {
  // Asked on the first message sent (a user gesture), so approvals and finished replies can notify.
  if (askedForNotifications || typeof Notification === 'undefined' || Notification.permission !== 'default') return
  askedForNotifications = true
  void Notification.requestPermission().catch(() => {})
}

/** The draft typed to a member, kept per workspace and member: switching members brings back what was typed to that one. */
function useDraft(workspaceId: string, memberId: string) {
  const [text, setTextState] = useState(() => loadDraft(workspaceId, memberId))
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
  return [text, setText] as const
}

/** Focus on request (the focus key), and a height that grows with the text up to a limit. */
function useMessageBox(text: string, compact: boolean | undefined, autoFocus: boolean | undefined) {
  const focusTick = useApp((s) => s.composerFocusTick)
  const ref = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    if (autoFocus && focusTick > 0) ref.current?.focus()
  }, [focusTick, autoFocus])

  useEffect(() => {
    const el = ref.current
    if (!el) return
    el.style.height = 'auto'
    el.style.height = `${Math.min(el.scrollHeight, compact ? 120 : 220)}px`
  }, [text, compact])
  return ref
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
  const queued = useApp((s) => s.sessions[memberId]?.info.queued ?? 0)
  const workspaceId = member?.workspaceId ?? ''
  const [text, setText] = useDraft(workspaceId, memberId)
  const tree = useTurnTree(memberId, workspaceId, text)
  const attached = useComposerImages(memberId)
  const send = useAction(async (value: string, taskId?: string) => {
    askForNotifications()
    const images = attached.images.map(({ mediaType, data }) => ({ mediaType, data }))
    await api.call('sessions.send', {
      memberId,
      text: value,
      ...(taskId ? { taskId } : {}),
      ...(images.length ? { images } : {}),
    })
    attached.sent(attached.images.map((i) => i.id))
    clearDraft(workspaceId, memberId)
    return true
  })
  const ref = useMessageBox(text, compact, autoFocus)

  const submit = async () => {
    const value = text.trim()
    if ((!value && !attached.images.length) || attached.problem || send.pending) return
    const taskId = tree.task?.id
    setText('')
    const ok = await send.run(value, taskId)
    if (!ok) setText((t) => t || value)
  }

  if (!member) return null
  const noProvider = !member.provider
  return (
    <div
      className={`composer${compact ? ' compact' : ''}${attached.dropping ? ' dropping' : ''}`}
      {...attached.handlers}
    >
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
      <ComposerImages memberId={memberId} images={attached.images} problem={attached.problem} note={attached.note} />
      <MessageRow
        boxRef={ref}
        name={member.name}
        compact={compact}
        text={text}
        setText={setText}
        canSend={(!!text.trim() || attached.images.length > 0) && !attached.problem && !send.pending && !noProvider}
        onSend={() => void submit()}
      />
      {queued > 0 && (
        <div className="composer-queued">
          {queued} message{queued === 1 ? '' : 's'} queued
        </div>
      )}
    </div>
  )
}

/** The message box and Send: Enter sends, Shift+Enter makes a new line. */
function MessageRow({
  boxRef,
  name,
  compact,
  text,
  setText,
  canSend,
  onSend,
}: {
  boxRef: RefObject<HTMLTextAreaElement | null>
  name: string
  compact: boolean | undefined
  text: string
  setText(text: string): void
  canSend: boolean
  onSend(): void
}) {
  return (
    <div className="composer-row">
      <textarea
        ref={boxRef}
        value={text}
        rows={1}
        placeholder={`Message ${name}${compact ? '' : ' — mention decisions as D-1; Enter sends, Shift+Enter for a new line'}`}
        aria-label={`Message ${name}`}
        data-testid="composer"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault()
            onSend()
          }
        }}
      />
      <button className="btn primary" disabled={!canSend} onClick={onSend} data-testid="send">
        Send
      </button>
    </div>
  )
}
