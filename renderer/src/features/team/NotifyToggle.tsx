import { useState } from 'react'
import { useApp } from '../../stores/app-store'

/**
 * Desktop notifications on or off (off until the user turns them on). In the browser, turning them on asks the
 * page's permission first; a refusal leaves them off and says where to allow them. The desktop app shows its own.
 */
export function useNotifyToggle(): { on: boolean; toggle(): Promise<void>; refused: string | null } {
  const on = useApp((s) => s.notifyDesktop)
  const setOn = useApp((s) => s.setNotifyDesktop)
  const desktop = useApp((s) => s.nativeDialogs)
  const [refused, setRefused] = useState<string | null>(null)
  const toggle = async () => {
    setRefused(null)
    if (on) {
      setOn(false)
      return
    }
    if (!desktop) {
      if (typeof Notification === 'undefined') {
        setRefused('This browser shows no notifications.')
        return
      }
      // Asked each time it is turned on (once allowed, or refused before, the browser answers at once, without a prompt).
      const answer = await Notification.requestPermission()
      if (answer !== 'granted') {
        setRefused('The browser blocks notifications for this page: allow them in its site settings.')
        return
      }
    }
    setOn(true)
  }
  return { on, toggle, refused }
}

export function NotifyButton({ on, toggle }: { on: boolean; toggle(): Promise<void> }) {
  return (
    <button
      className="link-btn small"
      onClick={() => void toggle()}
      aria-pressed={on}
      title={
        on
          ? 'Notifications on: when a member waits for your approval or finishes while this window is not focused. Click to turn off.'
          : 'Notify me when a member waits for my approval or finishes while this window is not focused'
      }
      data-testid="notify-toggle"
    >
      {on ? '✓ Notify' : 'Notify'}
    </button>
  )
}
