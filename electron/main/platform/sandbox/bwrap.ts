/**
 * The plan as bubblewrap's arguments (Linux): the system read-only, a private /tmp, the hidden paths as empty tmpfs
 * (or /dev/null for a file), the shown folders bound on top, no network unless allowed, and a PID namespace that dies
 * with the command, so nothing a command starts outlives it, the turn or Concord.
 */
import { statSync } from 'node:fs'
import { orderedBinds, orderedHides, type Plan } from './plan'

// The flags every bwrap sandbox uses. The availability check runs them too: bwrap may be installed and still fail
// (unprivileged user namespaces disabled, no permission for a network namespace).
export const BWRAP_BASE = [
  '--die-with-parent', // SIGKILL the sandbox when its parent (Concord) dies
  '--unshare-pid', // when the command exits, the kernel kills everything it started, setsid or not
  '--new-session', // no TIOCSTI into a terminal
  '--unshare-ipc',
  '--cap-drop',
  'ALL', // run as root, the command could otherwise unmount what hides the data folder
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
]

export function bwrapArgs(plan: Plan, argv: string[], setenv: string[]): string[] {
  const a = [...BWRAP_BASE]
  if (!plan.network) a.push('--unshare-net')
  if (plan.privateTmp) a.push('--tmpfs', '/tmp')
  const hide = (p: string): void => {
    // A folder becomes an empty tmpfs, a file reads as empty.
    if (statSync(p).isDirectory()) a.push('--tmpfs', p)
    else a.push('--ro-bind', '/dev/null', p)
  }
  const { before, after } = orderedHides(plan)
  before.forEach(hide)
  for (const b of orderedBinds(plan)) a.push(b.writable ? '--bind' : '--ro-bind', b.path, b.path)
  after.forEach(hide)
  a.push(...setenv, '--chdir', plan.cwd, '--', ...argv)
  return a
}
