/** A runner that is an SSH host: each call its own `ssh` (sharing one connection), the agent on a connection of its own. */
import { spawn } from 'node:child_process'
import type { RunnerChannel } from './runner-channel'
import { runOnHost, sshCommand } from './ssh'

/** A call on the host that has not ended in this long is stopped there (a transfer of a large tree takes minutes). */
const CALL_TIMEOUT_MS = 15 * 60_000

/**
 * The channel to `host` as the user's own ssh configuration names it. Short calls share one connection (a control
 * socket in `controlDir`); an agent gets a connection of its own, whose end is the agent's end, with the socket it
 * reaches Concord's tools through forwarded over it.
 */
export function sshChannel(host: string, controlDir: string): RunnerChannel {
  masters.add(JSON.stringify([host, controlDir]))
  return {
    label: `SSH host ${host}`,
    run: async (argv, opts = {}) => {
      const r = await runOnHost(host, argv, {
        controlDir,
        input: opts.input,
        timeoutMs: opts.timeoutMs ?? CALL_TIMEOUT_MS,
      })
      return {
        code: r.code ?? -1,
        stdout: r.stdout,
        stderr: r.timedOut ? `${r.stderr}\n(stopped: it ran too long)` : r.stderr,
      }
    },
    spawn: (argv, socket) => sshCommand(host, argv, { controlDir, own: { ...(socket ? { forward: socket } : {}) } }),
  }
}

/** The hosts whose shared connection may be open (host and control folder). */
const masters = new Set<string>()

/**
 * Closes the shared connections: each stops taking new calls and ends once the calls on it end (`ssh -O stop`), so
 * no login of Concord's stays open on a host after its members stop. A later call opens a new one.
 */
export async function stopSshMasters(): Promise<void> {
  const all = [...masters].map((m) => JSON.parse(m) as [string, string])
  masters.clear()
  await Promise.all(
    all.map(([host, controlDir]) => {
      // ssh's command line for the host, its `-T -- host <command>` tail replaced by the control command.
      const { file, args, env } = sshCommand(host, ['true'], { controlDir })
      return new Promise<void>((resolve) => {
        const p = spawn(file, [...args.slice(0, -4), '-O', 'stop', '--', host], { env, stdio: 'ignore' })
        p.on('error', () => resolve())
        p.on('close', () => resolve())
      })
    }),
  )
}
