/** The plan as a sandbox-exec (Seatbelt) profile on macOS. */
import path from 'node:path'
import { orderedBinds, orderedHides, type Plan } from './plan'

/** SBPL string literal. */
const sb = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/**
 * The macOS profile (later rules win). macOS has no PID namespace: descendants that leave the process group (setsid)
 * can outlive the command there; the process group itself is killed as on Linux without bwrap.
 */
export function seatbeltProfile(plan: Plan): string {
  const sub = (ps: string[]): string => ps.map((p) => `(subpath ${sb(p)})`).join(' ')
  const { before, after } = orderedHides(plan)
  const rules = ['(version 1)', '(allow default)', '(deny file-write*)']
  rules.push(
    '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))',
  )
  if (plan.privateTmp) rules.push('(deny file-read* (subpath "/private/tmp"))')
  if (before.length) rules.push(`(deny file-read* file-write* ${sub(before)})`)
  // The folders above a shown one are looked up (getcwd, realpath) but not listed or read.
  const ancestors = new Set<string>()
  for (const p of [...plan.writable, ...plan.readOnly])
    for (let d = path.dirname(p); d !== path.dirname(d); d = path.dirname(d)) ancestors.add(d)
  if (before.length && ancestors.size)
    rules.push(`(allow file-read-metadata ${[...ancestors].map((d) => `(literal ${sb(d)})`).join(' ')})`)
  for (const b of orderedBinds(plan))
    rules.push(
      b.writable
        ? `(allow file-read* file-write* ${sub([b.path])})`
        : `(allow file-read* ${sub([b.path])}) (deny file-write* ${sub([b.path])})`,
    )
  if (after.length) rules.push(`(deny file-read* file-write* ${sub(after)})`)
  if (!plan.network) rules.push('(deny network*)')
  return rules.join('\n')
}
