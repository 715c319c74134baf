/**
 * The repository's MCP servers: `.mcp.json` at the root of the member's tree, the file Claude Code and Conductor read
 * (`{"mcpServers": {"<name>": {"command", "args", "env"}}}`). Only stdio servers (a command Concord starts in the
 * member's sandbox); the file is the repository's, so it is hostile input: a malformed file, an entry that is not a
 * stdio server, or one that would hand the server a secret (a variable or argument that looks like one) is left out
 * with a problem that has a stable code, and the other servers still run.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { argRefusal, envRefusal } from '../../platform/command-env'
import { expandVars } from './mcp-vars'

export const MCP_CONFIG_FILE = '.mcp.json'

/** A stdio server from the repository's `.mcp.json`. */
export interface RepoMcpServer {
  name: string
  command: string
  args: string[]
  env: Record<string, string>
}

/** Why the file or one of its servers is left out: a stable code and words a person can act on. */
export interface RepoMcpProblem {
  code:
    'mcp_config_invalid' | 'mcp_server_invalid' | 'mcp_server_not_stdio' | 'mcp_server_secret' | 'mcp_server_variable'
  /** The server's name, when the problem is one server's. */
  server?: string
  message: string
}

export interface RepoMcpConfig {
  servers: RepoMcpServer[]
  problems: RepoMcpProblem[]
}

/** A server's name becomes part of its tools' names (`mcp__<server>__<tool>`), which the providers restrict. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/
/** More than this many servers is not a configuration a member can use (each is a process per turn). */
const MAX_SERVERS = 16
const MAX_FILE_BYTES = 256 * 1024

const secretHint = "a repository's MCP server never gets secrets from Concord"

/**
 * The servers of `.mcp.json` in `root` (none, without a problem, when there is no such file). With `vars`, the
 * member's environment, each server's `${VAR}` and `${VAR:-default}` are expanded from it (mcp-vars.ts); without, the
 * servers are as the file writes them (the member's settings list them so).
 */
export function readRepoMcpConfig(root: string, vars?: Readonly<Record<string, string>>): RepoMcpConfig {
  let text: string
  try {
    text = readFileSync(path.join(root, MCP_CONFIG_FILE), 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { servers: [], problems: [] }
    return invalid(`it cannot be read (${code ?? String(err)})`)
  }
  return parseRepoMcpConfig(text, vars)
}

/** The servers of a `.mcp.json` file's text (readRepoMcpConfig; also the file as a branch has it committed). */
export function parseRepoMcpConfig(text: string, vars?: Readonly<Record<string, string>>): RepoMcpConfig {
  if (text.length > MAX_FILE_BYTES) return invalid(`it is larger than ${MAX_FILE_BYTES / 1024} KB`)
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    return invalid(`it is not valid JSON (${(err as Error).message})`)
  }
  const servers = isObject(raw) ? raw.mcpServers : undefined
  if (!isObject(servers)) return invalid('it has no "mcpServers" object of servers by name')
  const out: RepoMcpConfig = { servers: [], problems: [] }
  for (const [name, entry] of Object.entries(servers)) {
    if (out.servers.length >= MAX_SERVERS) {
      out.problems.push({ code: 'mcp_server_invalid', server: name, message: `more than ${MAX_SERVERS} servers` })
      continue
    }
    const read = readServer(name, entry, vars)
    if ('code' in read) out.problems.push(read)
    else out.servers.push(read)
  }
  return out
}

/** One entry of `mcpServers`: the server, or why it is left out. */
function readServer(
  name: string,
  entry: unknown,
  vars: Readonly<Record<string, string>> | undefined,
): RepoMcpServer | RepoMcpProblem {
  const problem = (code: RepoMcpProblem['code'], why: string): RepoMcpProblem => ({
    code,
    server: name,
    message: `${MCP_CONFIG_FILE}: the server "${name}" is left out: ${why}.`,
  })
  if (!SERVER_NAME.test(name)) return problem('mcp_server_invalid', 'its name must be 1 to 32 letters, digits, _ or -')
  if (!isObject(entry)) return problem('mcp_server_invalid', 'it is not an object')
  const type = entry.type ?? 'stdio'
  if (type !== 'stdio' || 'url' in entry)
    return problem(
      'mcp_server_not_stdio',
      `it is a ${typeof type === 'string' && type !== 'stdio' ? type : 'remote'} server; Concord starts stdio servers only (a "command")`,
    )
  const { command, args = [], env = {} } = entry
  if (typeof command !== 'string' || !command.trim() || command.includes('\0'))
    return problem('mcp_server_invalid', '"command" must be a program to run')
  if (!Array.isArray(args) || !args.every((a): a is string => typeof a === 'string' && !a.includes('\0')))
    return problem('mcp_server_invalid', '"args" must be a list of strings')
  if (!isObject(env)) return problem('mcp_server_invalid', '"env" must be an object of variables')
  const written: Written = { command, args, env: env as Record<string, string> }
  const server = vars ? expandServer(written, vars) : written
  if ('missing' in server)
    return server.secret.length
      ? problem('mcp_server_secret', `it uses ${refs(server.secret)}, which looks like a secret; ${secretHint}`)
      : problem(
          'mcp_server_variable',
          `it uses ${refs(server.missing)}, not set in the member's environment (set it in the workspace's or the agent's variables, or give a default: \${NAME:-value})`,
        )
  for (const [k, v] of Object.entries(server.env)) {
    const why = envRefusal(k, v, secretHint)
    if (why) return problem(/secret|password/i.test(why) ? 'mcp_server_secret' : 'mcp_server_invalid', why)
  }
  const argWhy = argRefusal([server.command, ...server.args], secretHint)
  if (argWhy) return problem('mcp_server_secret', argWhy)
  return { name, ...server }
}

type Written = Pick<RepoMcpServer, 'command' | 'args' | 'env'>

/** The server's command, arguments and variables' values expanded; or every name that kept them from being. */
function expandServer(
  s: Written,
  vars: Readonly<Record<string, string>>,
): Written | { missing: string[]; secret: string[] } {
  const missing = new Set<string>()
  const secret = new Set<string>()
  const one = (text: string) => {
    const e = expandVars(text, vars)
    if ('text' in e) return e.text
    for (const n of e.missing) missing.add(n)
    for (const n of e.secret) secret.add(n)
    return text
  }
  const out = {
    command: one(s.command),
    args: s.args.map(one),
    env: Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, typeof v === 'string' ? one(v) : v])),
  }
  return missing.size || secret.size ? { missing: [...missing], secret: [...secret] } : out
}

const refs = (names: string[]) => names.map((n) => `\${${n}}`).join(', ')

function invalid(why: string): RepoMcpConfig {
  return {
    servers: [],
    problems: [
      { code: 'mcp_config_invalid', message: `${MCP_CONFIG_FILE} is not used: ${why}. No repository MCP server runs.` },
    ],
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
