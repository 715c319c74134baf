/** Usage text, kept apart from the commands so `concord help` loads nothing heavy. */
export const exportUsage = `  export  --repo PATH --format madr|markdown|json [--out DIR] [--data-dir DIR]
          write the decision log of the repository's workspace: MADR files (docs/decisions/, or DIR),
          DECISIONS.md, or the full-fidelity concord-export.json (into the repository, or DIR)`

export const importUsage = `  import  FILE --repo PATH [--name NAME] [--data-dir DIR]
          restore a concord-export.json (FILE may also be the folder holding it) as a new workspace
          for the repository at PATH, which must not have one yet`

export const mcpUsage = `  mcp     --member ID [--data-dir DIR]
          serve Concord's harness tools (decisions, tasks, reports, notices) over MCP on stdio, acting as
          that member: claude mcp add concord -- npx concord mcp --member ID`
