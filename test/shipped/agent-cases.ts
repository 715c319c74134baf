/**
 * The agents the shipped suite drives, one entry per agent preset: how the scripted model server sees each one (its
 * turns, its tool list, its own naming of Concord's submit_report and of its shell) and how its process is found.
 */
import { join } from 'node:path'
import {
  claudeProvider,
  codexProvider,
  copilotProvider,
  geminiProvider,
  opencodeProvider,
  qwenProvider,
} from '../fixtures/agents'
import type { ModelServer, RecordedRequest } from '../fixtures/model-server'

const report = {
  taskId: 'T-1',
  kind: 'implementation',
  verdict: 'pass',
  summary: 'done',
  claims: [{ text: 'endpoints work', decisionIds: ['D-1'] }],
}

export interface AgentCase {
  label: string
  provider: () => object
  /** The model's call of Concord's submit_report, in the agent's own naming. */
  submit: { name: string; namespace?: string; arguments: object }
  /** The agent's own requests to the model (with its tool list), not its side calls. */
  turns: (r: RecordedRequest) => boolean
  toolNames: (r: RecordedRequest) => string[]
  /** How Concord's tools are named in that list (default: with an mcp prefix, mcp__concord__ or mcp_concord_). */
  concordTools?: RegExp
  /** The model's call of the agent's own shell tool. */
  shell: (command: string) => { name: string; arguments: object }
  /** The agent program's name (to find its process: the program its command line runs). */
  processName: string
  /** Whether the agent loads its session (session/load) after Concord restarts. */
  loadsSession: boolean
  /** The user's own settings of the agent, written into the member's isolated home before its first turn. */
  settings?: { file: string; content: object }
}

/** The agent table; `server` is the running model server (started in the suite's beforeAll, after this is built). */
export function agentCases(server: () => ModelServer): AgentCase[] {
  return [
    {
      label: 'Claude Code',
      provider: () => claudeProvider(server()),
      submit: { name: 'mcp__concord__submit_report', arguments: report },
      turns: (r) => r.path === '/v1/messages' && Array.isArray(r.body?.tools) && r.body.tools.length > 0,
      toolNames: (r) => (r.body.tools as { name: string }[]).map((x) => x.name),
      shell: (command) => ({ name: 'Bash', arguments: { command, description: 'run it' } }),
      processName: 'claude-agent-acp',
      loadsSession: true,
    },
    {
      label: 'Codex',
      provider: () => ({ ...codexProvider(server()), apiKey: 'sk-any' }),
      submit: { name: 'submit_report', namespace: 'mcp__concord', arguments: report },
      turns: (r) => r.path === '/v1/responses',
      toolNames: (r) => [JSON.stringify(r.body.tools)],
      shell: (command) => ({ name: 'exec_command', arguments: { cmd: command } }),
      processName: 'codex-acp',
      loadsSession: true,
    },
    {
      label: 'Gemini CLI',
      provider: () => geminiProvider(server()),
      submit: { name: 'mcp_concord_submit_report', arguments: report },
      turns: (r) => r.path.endsWith(':streamGenerateContent'),
      toolNames: (r) =>
        (r.body.tools as { functionDeclarations?: { name: string }[] }[]).flatMap((x) =>
          (x.functionDeclarations ?? []).map((f) => f.name),
        ),
      shell: (command) => ({ name: 'run_shell_command', arguments: { command } }),
      processName: 'gemini',
      loadsSession: false,
    },
    {
      label: 'Qwen Code',
      provider: () => qwenProvider(server()),
      submit: { name: 'mcp__concord__submit_report', arguments: report },
      // Its turns declare its tools; a side request of its own (none with the settings below) would not.
      turns: (r) => r.path === '/v1/chat/completions' && Array.isArray(r.body?.tools) && r.body.tools.length > 0,
      toolNames: (r) => (r.body.tools as { function: { name: string } }[]).map((x) => x.function.name),
      shell: (command) => ({ name: 'run_shell_command', arguments: { command, is_background: false } }),
      processName: 'qwen',
      loadsSession: true,
      // No memory extraction nor follow-up suggestion after each turn: model requests of their own, which would take
      // the scripted replies.
      settings: {
        file: join('.qwen_home', 'settings.json'),
        content: { memory: { enableManagedAutoMemory: false }, ui: { enableFollowupSuggestions: false } },
      },
    },
    {
      label: 'opencode',
      provider: () => opencodeProvider(server()),
      submit: { name: 'concord_submit_report', arguments: report },
      turns: (r) => r.path === '/v1/chat/completions' && Array.isArray(r.body?.tools) && r.body.tools.length > 0,
      toolNames: (r) => (r.body.tools as { function: { name: string } }[]).map((x) => x.function.name),
      concordTools: /\bconcord_submit_report\b/,
      shell: (command) => ({ name: 'bash', arguments: { command, description: 'run it' } }),
      processName: 'opencode',
      loadsSession: false,
    },
    {
      label: 'GitHub Copilot CLI',
      provider: () => copilotProvider(server()),
      submit: { name: 'concord-submit_report', arguments: report },
      turns: (r) => r.path === '/v1/chat/completions' && Array.isArray(r.body?.tools) && r.body.tools.length > 0,
      toolNames: (r) => (r.body.tools as { function: { name: string } }[]).map((x) => x.function.name),
      concordTools: /\bconcord-submit_report\b/,
      shell: (command) => ({ name: 'bash', arguments: { command, description: 'run it' } }),
      processName: 'copilot',
      loadsSession: true,
    },
  ]
}
