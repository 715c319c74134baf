/** The names of Concord's MCP server and tools, without the MCP SDK (agent presets name them at start). */
/** The harness tools offered over MCP (delegation, task creation and repository tools stay with Concord's own loop). */
export const MCP_TOOL_NAMES = [
  'get_brief',
  'list_decisions',
  'get_decision',
  'propose_decision_change',
  'update_decision',
  'acknowledge_task',
  'update_task_status',
  'submit_report',
  'submit_plan',
  'list_reports',
  'get_report',
  'message_member',
  'ask_human',
] as const

export const MCP_SERVER_NAME = 'concord'
