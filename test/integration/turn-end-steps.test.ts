/**
 * A full disk mid-stream: the write that ends a model step fails, the turn ends in error — and the step that was
 * streaming is ended as interrupted when the turn ends, not left "streaming" until the next start of Concord.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Member } from '../../shared/schemas'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let ana: Member

beforeEach(async () => {
  t = await workspaceWithTeam({ members: ['Ana'] })
  ana = t.members[0]!
})
afterEach(async () => {
  vi.restoreAllMocks()
  await t.cleanup()
})

describe('a step whose last write fails', () => {
  it('is ended as interrupted when its turn ends', async () => {
    const { store } = t.core.harness.ctx(t.ws.id)
    const finish = store.steps.finish.bind(store.steps)
    let refused = 0
    // The disk fills while the model streams: the writes that would end the model step fail (as SQLITE_FULL does).
    vi.spyOn(store.steps, 'finish').mockImplementation((id, f) => {
      if (store.steps.get(id)?.kind === 'model' && refused < 2) {
        refused++
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
      }
      finish(id, f)
    })
    t.server.enqueue({ text: 'Working on it.' })
    const steps = await takeTurn(t.core, { memberId: ana.id, text: 'Go.' }, { end: 'error' })
    expect(refused).toBe(2)
    const model = steps.filter((s) => s.kind === 'model')
    expect(model).toHaveLength(1)
    expect(model[0]!.status).toBe('interrupted')
    expect(steps.filter((s) => ['streaming', 'running', 'waiting_approval'].includes(s.status))).toEqual([])
  })
})
