/**
 * The repository's MCP servers a member does not get (issue 35): members.mcp_off, a JSON list of server names of the
 * tree's `.mcp.json`; every other server of the file is the member's.
 */
export const up = `
ALTER TABLE members ADD COLUMN mcp_off TEXT NOT NULL DEFAULT '[]';
`
