/**
 * The agents Concord can drive over ACP, collected: each kind is listed in shared/agent-kinds.ts and has its quirks
 * (how it is started, which variables carry its key and its state) in a file of its own in agents/. A preset's
 * command is looked up in the project's own node_modules first (the pinned, tested version), then on PATH.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { AgentKind } from '../../../../shared/agent-kinds'
import type { MemberRow } from '../../harness/rows'
import type { AgentPreset } from './agents/agent-preset'
import { claudeCode } from './agents/claude-code'
import { codex } from './agents/codex'
import { copilot } from './agents/copilot'
import { custom } from './agents/custom'
import { gemini } from './agents/gemini'
import { opencode } from './agents/opencode'
import { qwenCode } from './agents/qwen-code'

export type { AgentKind, AgentPreset }

export const agentPresets: Record<AgentKind, AgentPreset> = {
  'claude-code': claudeCode,
  codex,
  gemini,
  'qwen-code': qwenCode,
  copilot,
  opencode,
  custom,
}

const require = createRequire(import.meta.url)

function localBin(pkg: { name: string; bin: string }): string | null {
  try {
    const file = join(dirname(require.resolve(`${pkg.name}/package.json`)), pkg.bin)
    return existsSync(file) ? file : null
  } catch {
    return null
  }
}

/** The program and arguments to start a member's agent with (`fixed`: Concord's, before the member's own). */
export function agentCommand(
  member: Pick<MemberRow, 'agent' | 'agent_command' | 'agent_args'>,
  fixed: string[] = [],
  /** On a runner: its own installation (never a package of this machine's). */
  onRunner = false,
): { command: string; args: string[] } {
  const preset = agentPresets[member.agent!]
  const extra = JSON.parse(member.agent_args) as string[]
  if (member.agent_command) return { command: member.agent_command, args: [...fixed, ...extra] }
  const local = !onRunner && preset.localPackage && localBin(preset.localPackage)
  if (local) return { command: process.execPath, args: [local, ...preset.args, ...fixed, ...extra] }
  return { command: preset.command, args: [...preset.args, ...fixed, ...extra] }
}

/** What a person reads when the agent's program is not there. */
export function notInstalledText(agent: AgentKind, command: string): string {
  const preset = agentPresets[agent]
  return preset.install
    ? `${preset.label} is not installed: ${preset.install}`
    : `The ACP agent's command '${command}' was not found: check the command in the member's settings`
}
