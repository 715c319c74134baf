import { useApp } from '../stores/app-store'

/**
 * The server is down or being reconnected to, or it refuses this tab's token: say so where it cannot be missed, not
 * only with a grey dot. A refused token does not come back by itself, so that banner says what to open instead.
 */
export function ServerDownBanner() {
  const connection = useApp((s) => s.connection)
  if (connection === 'open') return null
  if (connection === 'unauthorized')
    return (
      <div className="server-down" role="alert" data-testid="server-down" data-connection={connection}>
        <strong>Concord does not accept this tab’s access token.</strong> The server was started with another token (
        <code>--token</code>), so nothing you do here reaches it. Open the address <code>concord serve</code> printed
        when it started — it ends in <code>?token=…</code>.
      </div>
    )
  return (
    <div className="server-down" role="alert" data-testid="server-down" data-connection={connection}>
      <strong>{connection === 'connecting' ? 'Reconnecting to Concord…' : 'Concord’s server is not reachable.'}</strong>{' '}
      Nothing you do now is saved, and members’ replies do not arrive. It reconnects by itself when the server is back (
      <code>concord serve</code> or the app).
    </div>
  )
}
