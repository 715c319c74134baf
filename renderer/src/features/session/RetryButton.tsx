import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

/** Retry on a failed model call: the core queues the failed turn's message again (sessions.retry); nothing to retype. */
export function RetryButton({ memberId, primary = true }: { memberId: string; primary?: boolean }) {
  const api = useApp((s) => s.api)
  const retry = useAction(async () => api.call('sessions.retry', { memberId }))
  return (
    <>
      <button
        className={`btn small${primary ? ' primary' : ''}`}
        onClick={() => void retry.run()}
        disabled={retry.pending}
        data-testid="retry-turn"
        title="Run the failed turn again with the same message"
      >
        Retry
      </button>
      {retry.error && <span className="error-inline"> {retry.error.message}</span>}{' '}
    </>
  )
}
