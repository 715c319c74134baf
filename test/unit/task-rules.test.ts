import { describe, expect, it } from 'vitest'
import { canMove, moveRefusal, taskFlagWords, taskMoves, taskStatuses, taskStatusWords } from '../../shared/task-rules'
import { TaskFlag, TaskStatus } from '../../shared/schemas'

describe('task rules', () => {
  it('names every status and flag of the schema, once', () => {
    expect([...taskStatuses].sort()).toEqual([...TaskStatus.options].sort())
    expect(Object.keys(taskStatusWords).sort()).toEqual([...TaskStatus.options].sort())
    expect(Object.keys(taskFlagWords).sort()).toEqual([...TaskFlag.options].sort())
  })

  it('is the table the design describes', () => {
    expect(taskMoves).toEqual({
      todo: ['in_progress', 'blocked', 'cancelled'],
      in_progress: ['delivered', 'todo', 'blocked', 'cancelled'],
      delivered: ['accepted', 'in_progress', 'cancelled'],
      accepted: ['in_progress'],
      blocked: ['todo', 'in_progress', 'cancelled'],
      cancelled: ['todo'],
    })
    // Acceptance only after a delivery; a task is never moved into the status it already has.
    expect(taskStatuses.filter((s) => canMove(s, 'accepted') && s !== 'accepted')).toEqual(['delivered'])
    for (const s of taskStatuses) expect(taskMoves[s]).not.toContain(s)
  })

  it('says why a move is refused and where the task can go', () => {
    expect(moveRefusal('T-1', 'todo', 'accepted')).toBe(
      'T-1 is “to do”: it can move to “in progress”, “blocked” or “cancelled”, not to “accepted”',
    )
    expect(moveRefusal('T-1', 'cancelled', 'delivered')).toBe(
      'T-1 is “cancelled”: it can move to “to do”, not to “delivered”',
    )
    expect(moveRefusal('T-1', 'in_progress', 'delivered')).toBeNull()
    expect(moveRefusal('T-1', 'delivered', 'delivered')).toBeNull()
  })
})
