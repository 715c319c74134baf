import { describe, expect, it } from 'vitest'
import { resolveRef } from '../../electron/main/runtime/tools/harness-tools'

const ctx = { workspaceId: 'w0000000a' }
const code = (f: () => unknown) => {
  try {
    f()
    return 'ok'
  } catch (err) {
    return (err as { code: string }).code
  }
}

describe('harness tool refs resolve only inside the member’s workspace', () => {
  it('keys become ids of this workspace', () => {
    expect(resolveRef(ctx, 'D-3', 'decision')).toBe('w0000000a-d3')
    expect(resolveRef(ctx, ' t-12 ', 'task')).toBe('w0000000a-t12')
    expect(resolveRef(ctx, 'R-1', 'report')).toBe('w0000000a-r1')
    expect(resolveRef(ctx, 'w0000000a-t4', 'task')).toBe('w0000000a-t4')
  })

  it('another workspace’s id is not found; a key of the wrong kind or garbage is refused', () => {
    expect(code(() => resolveRef(ctx, 'w0000000b-t4', 'task'))).toBe('not_found')
    expect(code(() => resolveRef(ctx, 'T-4', 'decision'))).toBe('invalid_arguments')
    expect(code(() => resolveRef(ctx, 'w0000000a-d4', 'task'))).toBe('invalid_arguments')
    expect(code(() => resolveRef(ctx, '../etc/passwd', 'task'))).toBe('invalid_arguments')
  })
})
