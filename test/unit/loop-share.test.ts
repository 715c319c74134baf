import { describe, expect, it } from 'vitest'
import { loopTurn } from '../../electron/main/runtime/loop-share'

const busy = (ms: number) => {
  const end = performance.now() + ms
  while (performance.now() < end);
}

describe('loopTurn', () => {
  it('lets waiters go one per event-loop turn, in arrival order, with timers running between them', async () => {
    const order: string[] = []
    const waiters = ['a', 'b', 'c'].map((name) =>
      loopTurn().then(() => {
        order.push(name)
        // A timer due before the next waiter: it must run first, as a stream's next chunk or a request would.
        setTimeout(() => order.push(`timer after ${name}`), 0)
        busy(5)
      }),
    )
    await Promise.all(waiters)
    await new Promise((r) => setTimeout(r, 10))
    expect(order).toEqual(['a', 'timer after a', 'b', 'timer after b', 'c', 'timer after c'])
  })

  it('lets a waiter that arrives later go after the ones already waiting', async () => {
    const order: string[] = []
    const first = loopTurn().then(() => order.push('first'))
    const second = loopTurn().then(() => order.push('second'))
    await first
    const third = loopTurn().then(() => order.push('third'))
    await Promise.all([second, third])
    expect(order).toEqual(['first', 'second', 'third'])
  })
})
