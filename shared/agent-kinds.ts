/**
 * The external agents a member can run as over ACP: the one list, read by schemas.ts's AgentPreset, the members
 * repository's row type, the runtime's presets (electron/main/runtime/acp/agents/, one file of quirks per agent) and
 * the member editor. Kept free of zod so the renderer can import it.
 *
 * The store accepts exactly these kinds in members.agent (migration 032, store/enum-words.ts): a new kind is one entry
 * here plus its quirks file, and no migration.
 */
export const agentKinds = ['claude-code', 'codex', 'gemini', 'qwen-code', 'copilot', 'opencode', 'custom'] as const
export type AgentKind = (typeof agentKinds)[number]

/** What a person is shown of an agent: in the member editor, and in the runtime's messages about it. */
export interface AgentKindInfo {
  label: string
  /**
   * The program the preset runs, looked up on PATH where the member runs ('' for a custom agent: the member names it).
   * Here so that the member editor's Check asks the runner about the same program the runtime starts.
   */
  command: string
  /** The line that installs it, shown when its command is missing ('' for a custom command). */
  install: string
  hint: string
  /** Where an API key from Concord's secret store goes (a custom agent names its own). */
  keyVariable: string | null
  /**
   * Variables that decide whether the agent asks before acting (the preset sets them to ask, or leaves them unset): a
   * member's own variables may not set them, or the member's approval policy would silently not hold.
   */
  policyEnv?: readonly string[]
}

export const agentKindInfo: Record<AgentKind, AgentKindInfo> = {
  'claude-code': {
    label: 'Claude Code',
    command: 'claude-agent-acp',
    install: 'npm i -g @zed-industries/claude-agent-acp',
    hint: 'Your Claude Code, through its ACP adapter: its own login or an Anthropic key.',
    keyVariable: 'ANTHROPIC_API_KEY',
  },
  codex: {
    label: 'Codex',
    command: 'codex-acp',
    install: 'npm i -g @zed-industries/codex-acp',
    hint: 'Codex, through its ACP adapter: your ChatGPT login or an OpenAI key.',
    keyVariable: 'OPENAI_API_KEY',
  },
  gemini: {
    label: 'Gemini CLI',
    command: 'gemini',
    install: 'npm i -g @google/gemini-cli',
    hint: 'Gemini CLI in its ACP mode (gemini --acp): its own login or a Gemini key.',
    keyVariable: 'GEMINI_API_KEY',
  },
  'qwen-code': {
    label: 'Qwen Code',
    command: 'qwen',
    install: 'npm i -g @qwen-code/qwen-code',
    hint: 'Qwen Code in its ACP mode (qwen --acp): an OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_MODEL) and key.',
    keyVariable: 'OPENAI_API_KEY',
  },
  copilot: {
    label: 'GitHub Copilot CLI',
    command: 'copilot',
    install: 'npm i -g @github/copilot',
    hint: 'GitHub Copilot CLI in its ACP mode (copilot --acp): your Copilot login, or your own endpoint (COPILOT_PROVIDER_BASE_URL, COPILOT_MODEL) and key.',
    keyVariable: 'COPILOT_PROVIDER_API_KEY',
    // Copilot's own documentation: set, it asks nothing (as --allow-all).
    policyEnv: ['COPILOT_ALLOW_ALL'],
  },
  opencode: {
    label: 'opencode',
    command: 'opencode',
    install: 'npm i -g opencode-ai',
    hint: 'opencode in its ACP mode (opencode acp): your endpoint as a provider in OPENCODE_CONFIG_CONTENT (options.baseURL, apiKey "{env:OPENAI_API_KEY}") and its model.',
    keyVariable: 'OPENAI_API_KEY',
    policyEnv: ['OPENCODE_PERMISSION'],
  },
  custom: {
    label: 'Custom command',
    command: '',
    install: '',
    hint: 'Any program that speaks ACP on its standard input and output.',
    keyVariable: null,
  },
}
