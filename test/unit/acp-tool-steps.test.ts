/**
 * How an ACP agent's tool calls read in the session (runtime/acp/tool-steps.ts), from the shapes the pinned
 * adapters send (measured: Claude Code's rawInput, Codex's exec events, diffs in content).
 */
import { describe, expect, it } from 'vitest'
import { toolArgs, toolResultText } from '../../electron/main/runtime/acp/tool-steps'

describe('ACP tool calls as steps', () => {
  it('reads the arguments as a command line, an edit or a write, whatever the agent calls them', () => {
    // Codex: its exec event, the command wrapped in bash -lc.
    expect(
      toolArgs({
        rawInput: {
          call_id: 'c1',
          turn_id: 't',
          command: ['/bin/bash', '-lc', 'npm test && echo ok'],
          cwd: '/w/T-1',
          parsed_cmd: [],
        },
      }),
    ).toEqual({
      command: 'npm test && echo ok',
      cwd: '/w/T-1',
    })
    // Claude Code: Bash, Write, Edit.
    expect(toolArgs({ rawInput: { command: 'ls -la', description: 'list' } })).toEqual({ command: 'ls -la' })
    expect(toolArgs({ rawInput: { file_path: '/w/a.txt', content: 'hi\n' } })).toEqual({
      path: '/w/a.txt',
      content: 'hi\n',
    })
    expect(toolArgs({ rawInput: { file_path: '/w/a.txt', old_string: 'a', new_string: 'b' } })).toEqual({
      path: '/w/a.txt',
      old: 'a',
      new: 'b',
    })
    // A diff in the content wins (Codex's apply_patch, Gemini's edits).
    expect(
      toolArgs({ rawInput: { changes: {} }, content: [{ type: 'diff', path: '/w/b.ts', oldText: 'x', newText: 'y' }] }),
    ).toEqual({ path: '/w/b.ts', old: 'x', new: 'y' })
    expect(toolArgs({ content: [{ type: 'diff', path: '/w/new.ts', newText: 'z' }] })).toEqual({
      path: '/w/new.ts',
      content: 'z',
    })
    // An MCP call as Codex reports it, an argv that is not a shell, a location only, nothing yet.
    expect(toolArgs({ rawInput: { server: 'concord', tool: 'submit_report', arguments: { taskId: 'T-1' } } })).toEqual({
      taskId: 'T-1',
    })
    expect(toolArgs({ rawInput: { command: ['git', 'status'] } })).toEqual({ command: ['git', 'status'] })
    expect(toolArgs({ locations: [{ path: '/w/c.ts' }] })).toEqual({ path: '/w/c.ts' })
    expect(toolArgs({ rawInput: {} })).toBeNull()
    // Copilot CLI's permission request for an edit: its tool_call had the edit's shape, which is kept.
    expect(toolArgs({ rawInput: { fileName: '/w/a.ts', diff: '\ndiff --git a/w/a.ts b/w/a.ts\n' } })).toBeNull()
  })

  it("reads the result as its output or diff, not the agent's raw event", () => {
    expect(
      toolResultText({
        rawOutput: {
          call_id: 'c1',
          stdout: 'ok\n',
          stderr: '',
          aggregated_output: 'ok\n',
          exit_code: 0,
          formatted_output: 'ok\n',
        },
      }),
    ).toBe('ok')
    expect(toolResultText({ rawOutput: { stdout: 'partial\n', stderr: 'boom\n', exit_code: 2 } })).toBe(
      'partial\nboom\n(exit code 2)',
    )
    expect(
      toolResultText({
        content: [{ type: 'diff', path: '/w/a.ts', oldText: 'one\ntwo\nthree\n', newText: 'one\n2\nthree\n' }],
      }),
    ).toBe('edited /w/a.ts\n-two\n+2')
    expect(
      toolResultText({
        content: [{ type: 'content', content: { type: 'text', text: 'Report R-1 submitted.' } }],
        rawOutput: { ignored: true },
      }),
    ).toBe('Report R-1 submitted.')
    expect(toolResultText({ rawOutput: { content: [{ type: 'text', text: 'from MCP' }] } })).toBe('from MCP')
    // GitHub Copilot CLI 1.0.102: a view's result (no content blocks), a failed call's.
    expect(toolResultText({ rawOutput: { content: 'made\n', detailedContent: '\ndiff --git a/x b/x\n' } })).toBe('made')
    expect(toolResultText({ rawOutput: { message: 'Error: table todos already exists', code: 'failure' } })).toBe(
      'Error: table todos already exists',
    )
  })
})
