/**
 * An error thrown by an event listener fails the test that caused it (issue 37). The bus only logs such an error,
 * rightly for the product (a broken subscriber must not undo a committed change), so a test whose listener — or
 * whose product code — throws on an event would otherwise pass with one line in the log nobody reads.
 * Loaded for every project (vitest.config.ts setupFiles); the core runs in the test's own process there.
 */
import { afterEach } from 'vitest'
import { listenerErrors } from '../../electron/main/platform/events/event-bus'

const seen: string[] = []
const log = listenerErrors.report.bind(listenerErrors)
listenerErrors.report = (event, err) => {
  log(event, err)
  seen.push(`${event}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
}

afterEach(() => {
  if (!seen.length) return
  const errors = seen.splice(0)
  throw new Error(`an event listener threw during this test (${errors.length}):\n${errors.join('\n---\n')}`)
})
