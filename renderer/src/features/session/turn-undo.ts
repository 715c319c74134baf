import type { Step } from '../../../../shared/schemas'

/**
 * Which turns of a session are undone (their steps are shown struck), and the one turn "Undo this turn" is offered on:
 * the latest turn in a task's tree that changed it and is not undone (the server refuses any other, sessions.undoTurn).
 */
export function turnUndo(steps: Step[]): { undone: Set<string>; undoable: string | null } {
  const undone = new Set<string>()
  const changed = new Set<string>()
  for (const s of steps) {
    if (s.checkpoint?.undone) undone.add(s.id)
    if (s.changes?.length && s.turnId) changed.add(s.turnId)
  }
  let undoable: string | null = null
  for (const s of steps)
    if (s.checkpoint && !s.checkpoint.undone && changed.has(s.id) && s.id === s.turnId) undoable = s.id
  return { undone, undoable }
}
