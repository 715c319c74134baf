import type { Harness } from '../harness/harness'
import { pickAttempt } from '../harness/tasks/attempts'
import type { Runtime } from '../runtime/runtime'
import type { Handlers } from './handlers'

/** tasks.pickAttempt: the members still working on attempts that were not picked are interrupted before their trees go. */
export function attemptHandlers(h: Harness, runtime: Runtime): Pick<Handlers, 'tasks.pickAttempt'> {
  return {
    'tasks.pickAttempt': (p) =>
      pickAttempt(h, h.ctxOf('task', p.taskId, 'taskId'), p, (memberIds) => {
        for (const id of memberIds) runtime.interrupt(id)
      }),
  }
}
