/** Which members may name a runner of their own (issue 36); where a member runs is shared/runners.ts's effectiveRunner. */
import { ApiError } from '../../../../shared/errors'
import { runnerText, type Runner } from '../../../../shared/runners'

/**
 * Refuses a runner of its own other than this machine for a member that is no external agent. `hasAgent` is what the
 * member will be once the call is saved (a provider changed in the same call counts, not the one it had).
 */
export function checkRunnerFits(runner: Runner | null, hasAgent: boolean): void {
  if (runner === null || runner.kind === 'local' || hasAgent) return
  throw new ApiError(
    'runner_needs_agent',
    `runner: only external agents (ACP) run on a runner yet; this member runs Concord's own loop, so it cannot run on ${runnerText(runner)}. Choose this machine, or make it an external agent`,
  )
}
