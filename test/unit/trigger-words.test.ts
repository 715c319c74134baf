import { describe, expect, it } from 'vitest'
import { triggerWords } from '../../electron/main/harness/workspace/figure-items'

/** The keys runtime/auto-turns.ts claims turns by, as a person reads them in the figure's list. */
describe('triggerWords', () => {
  it('a flag: the task and the decision version it was flagged for', () => {
    expect(triggerWords('flag:12:w0a1b2c3d-d3:v4')).toEqual({
      cause: 'task_flagged',
      trigger: 'T-12 was flagged when D-3 changed to v4',
    })
  })

  it('stale evidence: the report, the task and its delivered commit, the versions it is now checked against', () => {
    const sha = 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0'
    expect(triggerWords(`stale:2:7:${sha}:3v2,5v1`)).toEqual({
      cause: 'evidence_stale',
      trigger: 'R-7 went stale for T-2 delivered on a1b2c3d (now D-3 v2, D-5 v1)',
    })
    // A digest (no commit) may hold colons of its own; no linked decision leaves the versions out.
    expect(triggerWords('stale:2:7:sha256:ffee:')).toEqual({
      cause: 'evidence_stale',
      trigger: 'R-7 went stale for T-2 as delivered',
    })
  })

  it('a key of another shape is shown as it is', () => {
    expect(triggerWords('deliver:3')).toEqual({ cause: 'other', trigger: 'deliver:3' })
  })
})
