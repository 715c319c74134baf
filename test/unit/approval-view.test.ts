import { describe, expect, it } from 'vitest'
import { approvalSummary, approvalView, editLines } from '../../renderer/src/features/session/ApprovalPreview'

describe('how a call waiting for approval is shown', () => {
  it('an edit (Concord or Claude Code arguments) is a diff with its context lines', () => {
    expect(approvalView(JSON.stringify({ path: 'a.ts', old: 'x\nconst t = 5\ny', new: 'x\nconst t = 10\ny' }))).toEqual(
      {
        kind: 'edit',
        path: 'a.ts',
        before: 'x\nconst t = 5\ny',
        after: 'x\nconst t = 10\ny',
      },
    )
    expect(approvalView(JSON.stringify({ file_path: '/r/a.ts', old_string: 'a', new_string: 'b' })).kind).toBe('edit')
    expect(editLines('x\nconst t = 5\ny', 'x\nconst t = 10\ny')).toEqual([
      { kind: ' ', text: 'x' },
      { kind: '-', text: 'const t = 5' },
      { kind: '+', text: 'const t = 10' },
      { kind: ' ', text: 'y' },
    ])
  })

  it('a command is a command line, not JSON with \\n', () => {
    expect(approvalView(JSON.stringify({ command: 'npm test -- --run\n' }))).toEqual({
      kind: 'command',
      command: 'npm test -- --run\n',
      cwd: null,
    })
    expect(approvalView(JSON.stringify({ command: ['git', 'commit', '-m', "it's done"] }))).toMatchObject({
      command: `git commit -m 'it'\\''s done'`,
    })
    expect(approvalSummary(JSON.stringify({ command: 'ls -la' }))).toBe('$ ls -la')
    expect(approvalSummary(JSON.stringify({ path: 'n.txt', content: 'a\nb' }))).toBe('write n.txt')
  })

  it('anything else stays formatted JSON', () => {
    expect(approvalView('{"taskId":"T-1"}')).toEqual({ kind: 'json', text: '{\n  "taskId": "T-1"\n}' })
    expect(approvalView('not json')).toEqual({ kind: 'json', text: 'not json' })
  })
})
