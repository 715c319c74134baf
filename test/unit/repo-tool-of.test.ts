/** Recognising an ACP agent's own permission request for a repository MCP server's tool Concord serves it (issue 35). */
import { describe, expect, it } from 'vitest'
import { describeAcpCall, repoToolOf } from '../../electron/main/harness/members/approval-policy'

const tools = [
  { server: 'memory', tool: 'create_entities' },
  { server: 'memory', tool: 'read_graph' },
  { server: 'docs', tool: 'search' },
  { server: 'web', tool: 'search' },
]

describe('repoToolOf: the tool name the agent shows', () => {
  it.each([
    'mcp__memory__create_entities',
    'memory_create_entities',
    'memory-create_entities',
    'memory.create_entities',
    'create_entities (memory MCP Server)',
  ])('%s is the memory server’s create_entities', (title) => {
    expect(repoToolOf({ title, kind: 'other' }, tools)).toBe('mcp__memory__create_entities')
  })

  it('a bare name counts only where one server has it, and never for an edit or a command', () => {
    expect(repoToolOf({ title: '{}', _meta: { toolName: 'read_graph' } }, tools)).toBe('mcp__memory__read_graph')
    expect(repoToolOf({ title: '{}', _meta: { toolName: 'search' } }, tools)).toBeNull()
    expect(repoToolOf({ title: '{}', kind: 'other' }, tools, ['Always Allow: read_graph'])).toBe(
      'mcp__memory__read_graph',
    )
    expect(repoToolOf({ title: 'rm -rf x', kind: 'execute', _meta: { toolName: 'read_graph' } }, tools)).toBeNull()
    expect(repoToolOf({ title: 'memory_create_entities_v2' }, tools)).toBeNull()
    expect(repoToolOf({ title: 'notmemory_create_entities' }, tools)).toBeNull()
  })

  it('a recognised request is answered without asking: Concord asks when the call reaches the server', () => {
    const call = describeAcpCall(
      { title: 'memory-create_entities', kind: 'other' },
      { concordTools: [], repoTools: tools },
    )
    expect(call).toMatchObject({ tool: 'mcp__memory__create_entities', effect: 'read', asksUnderAsk: false })
    expect(describeAcpCall({ title: 'memory-create_entities', kind: 'other' }, { concordTools: [] })).toMatchObject({
      effect: 'leaves',
    })
  })
})
