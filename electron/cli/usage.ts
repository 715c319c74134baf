/** Usage text, kept apart from the commands so `--help` and `--version` load nothing heavy. */
export const serveUsage = `  serve   [--port N] [--data-dir DIR] [--token TOKEN]
          run the core and the UI on 127.0.0.1 and print the URL to open`

export const exportUsage = `  export  --repo PATH --format madr|markdown|json [--out DIR] [--dry-run] [--data-dir DIR]
          write the decision log of the repository's workspace: MADR files (docs/decisions/, or DIR;
          --flavour madr|adr-tools|log4brains), DECISIONS.md, or the full-fidelity concord-export.json
          (into the repository, or DIR)`

export const importUsage = `  import  FILE --repo PATH [--name NAME] [--data-dir DIR]
          restore a concord-export.json (FILE may also be the folder holding it) as a new workspace
          for the repository at PATH, which must not have one yet`

export const mcpUsage = `  mcp     --member ID [--data-dir DIR]
          serve Concord's harness tools (decisions, tasks, reports, notices) over MCP on stdio, acting as
          that member: claude mcp add concord -- npx concord mcp --member ID`

const dataDirOption = `  --data-dir DIR     the data folder (default: CONCORD_DATA_DIR, else the app's data folder)`
const helpOption = `  -h, --help         show this help and do nothing else`
export const exitStatus = `exit status: 0 done, 1 the command failed (the code after 'concord:' says why),
             2 the command line is wrong or names nothing to work on (nothing was done)`

/** `concord <command> --help`. */
export const commandHelp: Record<string, string> = {
  serve: `usage: concord serve [--port N] [--data-dir DIR] [--token TOKEN]

Runs Concord's core under Node and serves the UI and the API (POST /api/<method>, events on /events)
on 127.0.0.1, and prints the URL to open, token included. Without --token the token is the one kept in the
data folder (serve-token, 0600, made on the first start), so the same URL works after a restart.

  --port N           the port (default 5183; 0 picks a free one)
${dataDirOption}
  --token TOKEN      the API token, at least 16 characters (default: the data folder's kept one)
${helpOption}
`,
  export: `usage: concord export --repo PATH --format madr|markdown|json [--flavour FLAVOUR] [--out DIR] [--dry-run]
                      [--overwrite-edited] [--data-dir DIR]

Writes the decision log of the repository's workspace.

  --repo PATH        the repository (default: the current folder)
  --format FORMAT    madr: one MADR file per decision (docs/decisions/, or DIR)
                     markdown: one DECISIONS.md; json: the full-fidelity concord-export.json
  --flavour FLAVOUR  for madr: madr, adr-tools or log4brains (what the ADR tool you use reads; default: log4brains
                     with a .log4brains.yml, adr-tools with a .adr-dir, else madr)
  --out DIR          where to write (default: the repository)
  --dry-run          list the files it would write, change and remove, and write nothing
  --overwrite-edited for madr: rewrite Concord's files even where they were changed since it wrote them
                     (without it such files are refused with file_edited, each named with its change)
${dataDirOption}
${helpOption}
`,
  import: `usage: concord import FILE --repo PATH [--name NAME] [--data-dir DIR]

Restores a concord-export.json as a new workspace for the repository at PATH, which must not have
one yet.

  FILE, --file FILE  the export (or the folder holding concord-export.json)
  --repo PATH        the repository the imported workspace belongs to
  --name NAME        the workspace's name (default: the exported one)
${dataDirOption}
${helpOption}
`,
  mcp: `usage: concord mcp --member ID [--data-dir DIR]

Serves Concord's harness tools (decisions, tasks, reports, notices) over MCP on stdio, acting as the
member ID. Add it to an agent, for example: claude mcp add concord -- npx concord mcp --member ID

  --member ID        the member the agent acts as
${dataDirOption}
${helpOption}
`,
}
