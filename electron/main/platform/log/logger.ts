/**
 * Concord's log: JSON lines (pino) in `<data folder>/logs/concord.log`, rotated by size by
 * RotatingFile (our own, not pino-roll: pino-roll writes from a worker thread, so the last lines
 * before a crash can be lost, it needs its worker file resolvable inside the Electron bundle, and a
 * test would have to wait for it; internal errors are rare, a synchronous append costs nothing).
 * Every record passes through `redact` first, so no key or token reaches the file.
 */
import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import { storageFault } from '../faults'
import { redact, scrubText } from './redact'
import { RotatingFile, type RotationOptions } from './rotating-file'

/** Where the log is, relative to the data folder: what error messages name (never the absolute path). */
export const LOG_FILE = 'logs/concord.log'

export type LogOptions = Partial<RotationOptions>

export interface ConcordLog {
  logger: Logger
  /** The absolute path of the current log file. */
  file: string
  close(): void
}

/** What code that only reports errors needs of the log. */
export interface ErrorLog {
  error(fields: object, message: string): void
  warn(fields: object, message: string): void
}

export function createLog(dataDir: string, options: LogOptions = {}): ConcordLog {
  const path = join(dataDir, ...LOG_FILE.split('/'))
  let file: RotatingFile
  try {
    file = new RotatingFile(path, { maxBytes: options.maxBytes ?? 5 * 1024 * 1024, keep: options.keep ?? 3 })
  } catch (err) {
    // At start, to the person starting Concord, like the data folder itself.
    throw storageFault(err, `The log file ${path}`, path) ?? err
  }
  const logger = pino(
    {
      base: { pid: process.pid },
      formatters: { log: (fields) => redact(fields) as Record<string, unknown> },
      // redact has already turned errors into plain objects; pino's err serializer would retype them.
      serializers: { err: (err: unknown) => err },
      hooks: {
        // The message (and any printf arguments) is text, which `formatters.log` does not see.
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>)
        },
      },
    },
    { write: (line: string) => file.write(line) },
  )
  return { logger, file: file.path, close: () => file.close() }
}
