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
