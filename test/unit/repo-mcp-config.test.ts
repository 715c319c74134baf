import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readRepoMcpConfig } from '../../electron/main/harness/members/mcp-config'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'concord-mcp-config-'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const write = (content: unknown) =>
  writeFileSync(join(root, '.mcp.json'), typeof content === 'string' ? content : JSON.stringify(content))

describe("the repository's .mcp.json", () => {
  it('none: no servers and no problem', () => {
    expect(readRepoMcpConfig(root)).toEqual({ servers: [], problems: [] })
  })

  it('stdio servers with their command, arguments and variables', () => {
    write({
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: 'm' } },
        fs: { type: 'stdio', command: 'node' },
      },
    })
    expect(readRepoMcpConfig(root)).toEqual({
      servers: [
        {
          name: 'memory',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: 'm' },
        },
        { name: 'fs', command: 'node', args: [], env: {} },
      ],
      problems: [],
    })
  })

  it('a malformed file: one problem with a stable code, no server, no throw', () => {
    write('{ "mcpServers": ')
    expect(readRepoMcpConfig(root)).toMatchObject({
      servers: [],
      problems: [{ code: 'mcp_config_invalid', message: expect.stringContaining('not valid JSON') }],
    })
    write({ servers: {} })
    expect(readRepoMcpConfig(root).problems).toMatchObject([{ code: 'mcp_config_invalid' }])
    write([1, 2])
    expect(readRepoMcpConfig(root).problems).toMatchObject([{ code: 'mcp_config_invalid' }])
  })

  it('a bad entry is left out with its own problem; the good ones stay', () => {
    write({
      mcpServers: {
        web: { type: 'http', url: 'https://example.com/mcp' },
        sse: { url: 'https://example.com/sse' },
        keyed: { command: 'srv', env: { GITHUB_TOKEN: 'x' } },
        argkey: { command: 'srv', args: ['--api-key', 'sk-abcdefghijklmnop'] },
        loader: { command: 'srv', env: { NODE_OPTIONS: '--require x' } },
        nocmd: { args: ['x'] },
        'bad name!': { command: 'srv' },
        good: { command: 'srv', args: ['a'] },
      },
    })
    const c = readRepoMcpConfig(root)
    expect(c.servers.map((s) => s.name)).toEqual(['good'])
    expect(c.problems.map((p) => [p.server, p.code])).toEqual([
      ['web', 'mcp_server_not_stdio'],
      ['sse', 'mcp_server_not_stdio'],
      ['keyed', 'mcp_server_secret'],
      ['argkey', 'mcp_server_secret'],
      ['loader', 'mcp_server_invalid'],
      ['nocmd', 'mcp_server_invalid'],
      ['bad name!', 'mcp_server_invalid'],
    ])
    expect(c.problems[2]!.message).toContain('GITHUB_TOKEN looks like a secret')
  })
})

describe("${VAR} in the repository's .mcp.json, expanded from the member's environment", () => {
  const member = { DOCS_DIR: '/work/docs', PORT: '', LOG_LEVEL: 'debug', OPENAI_API_KEY: 'sk-held-by-concord-0001' }

  it('in command, arguments and variables: set (even empty), else the default', () => {
    write({
      mcpServers: {
        docs: {
          command: '${DOCS_DIR}/bin/serve',
          args: ['--root=${DOCS_DIR}', '--port', '${PORT:-8080}', '${MODE:-read-only}', 'x${LOG_LEVEL}y'],
          env: { DOCS_LOG: '${LOG_LEVEL:-info}', UNTOUCHED: '$HOME and {braces}' },
        },
      },
    })
    expect(readRepoMcpConfig(root, member)).toEqual({
      servers: [
        {
          name: 'docs',
          command: '/work/docs/bin/serve',
          args: ['--root=/work/docs', '--port', '', 'read-only', 'xdebugy'],
          env: { DOCS_LOG: 'debug', UNTOUCHED: '$HOME and {braces}' },
        },
      ],
      problems: [],
    })
    // Without the member's environment (its settings list), as the file writes them.
    expect(readRepoMcpConfig(root).servers[0]!.command).toBe('${DOCS_DIR}/bin/serve')
  })

  it('a variable not set and without a default leaves the server out with mcp_server_variable; the others stay', () => {
    write({ mcpServers: { a: { command: 'srv', args: ['${NOT_SET}', '${ALSO_NOT}'] }, b: { command: 'srv' } } })
    const c = readRepoMcpConfig(root, member)
    expect(c.servers.map((s) => s.name)).toEqual(['b'])
    expect(c.problems).toMatchObject([{ server: 'a', code: 'mcp_server_variable' }])
    expect(c.problems[0]!.message).toContain('${NOT_SET}, ${ALSO_NOT}, not set')
  })

  it("never expands a secret-looking name, not even one the member's environment holds (Concord's key for the agent)", () => {
    write({
      mcpServers: {
        key: { command: 'srv', env: { UPSTREAM: '${OPENAI_API_KEY}' } },
        withDefault: { command: 'srv', args: ['--x=${GITHUB_TOKEN:-none}'] },
        own: { command: 'srv', args: ['${CONCORD_MCP_TOKEN}'] },
      },
    })
    const c = readRepoMcpConfig(root, member)
    expect(c.servers).toEqual([])
    expect(c.problems.map((p) => [p.server, p.code])).toEqual([
      ['key', 'mcp_server_secret'],
      ['withDefault', 'mcp_server_secret'],
      ['own', 'mcp_server_secret'],
    ])
    expect(JSON.stringify(c)).not.toContain('sk-held-by-concord')
    expect(c.problems[0]!.message).toContain('${OPENAI_API_KEY}, which looks like a secret')
  })

  it('a value that is a secret once expanded is still refused', () => {
    write({ mcpServers: { leak: { command: 'srv', args: ['${AUTH_URL}'] } } })
    const c = readRepoMcpConfig(root, { AUTH_URL: 'https://u:p4ss@example.com' })
    expect(c.problems).toMatchObject([{ server: 'leak', code: 'mcp_server_secret' }])
  })
})
