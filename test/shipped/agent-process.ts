/**
 * Which process is an agent's: the program its command line runs, matched by name (a part of the whole command line
 * could be an argument of another agent's process: a path, a variable's value).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import type { Served } from './installed'

/**
 * The name of the program a command line runs: past bubblewrap's own arguments (up to its `--`) or sandbox-exec's
 * `/usr/bin/env VAR=value`, and the script node runs rather than node.
 */
export function programName(argv: string[]): string {
  let a = argv
  const first = () => basename(a[0] ?? '')
  if (first() === 'bwrap') a = a.slice(a.indexOf('--') + 1)
  if (first() === 'sandbox-exec') {
    a = a.slice(a.indexOf('/usr/bin/env') + 1)
    while (a[0]?.includes('=')) a = a.slice(1)
  }
  if (/^node(js)?$/.test(first())) a = a.slice(1)
  return first()
}

/** The pid of the agent program Concord started (a direct child of concord serve: the sandbox, or the agent itself). */
export function agentPid(app: Served, name: string): number {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').filter(Boolean)
      if (ppid === app.child.pid && programName(argv) === name) return Number(d)
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no agent process running ${name}`)
}
