/** Any program that speaks ACP: nothing is known of it, so it gets no quirks (and is not trusted to ask before acting). */
import { agentKindInfo } from '../../../../../shared/agent-kinds'
import type { AgentPreset } from './agent-preset'

export const custom: AgentPreset = {
  ...agentKindInfo.custom,
  // The editor's 'Custom command' is no name for the program in a message: it is the ACP agent.
  label: 'The ACP agent',
  args: [],
  homeVariables: ['HOME'],
  stateFiles: [],
}
