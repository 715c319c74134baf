import { errorCodes } from '../../shared/errors'

/**
 * How the command line ends, in one place: 0 done; 1 the command ran and failed (the core's error
 * code says why); 2 nothing was done because of the command line or what it names.
 */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const

/** The command line or what it names is wrong: printed as `concord: usage: …`, exit code 2. */
export class UsageError extends Error {}

/** The one line every failure prints on stderr: `concord: <code>: <message>`. */
export function failureLine(code: string, message: string): string {
  return `concord: ${code}: ${message}`
}

/** The stable code and exit code of anything a command throws. */
export function describeFailure(err: unknown): { code: string; message: string; exitCode: number } {
  if (err instanceof UsageError) return { code: 'usage', message: err.message, exitCode: exitCodes.usage }
  const e = err as { code?: unknown; message?: unknown }
  const message = typeof e?.message === 'string' ? e.message : String(err)
  if (typeof e?.code === 'string' && (errorCodes as readonly string[]).includes(e.code)) {
    return { code: e.code, message, exitCode: exitCodes.failed }
  }
  // A system error (EACCES, EADDRINUSE, …) is about the machine, not a bug: say so with its errno name.
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code))
    return { code: 'io_error', message, exitCode: exitCodes.failed }
  return { code: 'internal', message, exitCode: exitCodes.failed }
}
