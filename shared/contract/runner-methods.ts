/** The contract's methods for runners: where a member runs (this machine, an SSH host, a container). */
import { z } from 'zod'
import { RunnerSchema, type RunnerCheck } from '../runners'
import { method, r } from './method'

export const runnerMethods = {
  /**
   * Whether a member could run on the runner: Concord reaches it, git is there and, with `agent`, the agent's command
   * is on its PATH. Fails with runner_unreachable, runner_no_git or runner_no_agent, each naming the runner.
   */
  'runner.check': method(
    z.strictObject({ runner: RunnerSchema, agent: z.string().trim().min(1).max(4096).optional() }),
    r<RunnerCheck>(),
  ),
}
