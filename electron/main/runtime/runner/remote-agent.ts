/**
 * A member's agent started on its runner: the local process is the runner's channel (ssh), whose remote end is the
 * launcher (host-launcher.ts); the launcher's first line of stdin carries the program, its folder and its environment
 * with the key, so nothing secret is on a command line or written on the runner. Concord's tools reach the agent
 * through the member's gateway socket, forwarded over the same connection to a socket in the runner's home.
 */
import { createHash } from 'node:crypto'
import type { McpServerStdio } from '@agentclientprotocol/sdk'
import type { RunnerChannel } from '../../platform/runner-channel'
import type { SandboxedSpawn } from '../../platform/sandbox/spawn'
import { LAUNCHER_MARK, LAUNCHER_SOURCE, NOT_FOUND_EXIT, type LaunchSpec } from './host-launcher'

/** Where a member's agent runs on its runner: the channel, the tree's folder there, and the runner's home. */
export interface RemoteAgentPlace {
  channel: RunnerChannel
  /** The task's tree on the runner (absolute). */
  root: string
  /** The runner's home (absolute): its `.concord` folder holds the trees, the sockets and the pid files. */
  home: string
  /** Bubblewrap on the runner (its path), or null when it has none. */
  bwrap: string | null
}

/** A short, stable name for the member's files on the runner (and its container). */
export const memberKey = (wsId: string, memberId: string) =>
  createHash('sha256').update(`${wsId}\0${memberId}`).digest('hex').slice(0, 16)

/** The socket on the runner that the member's gateway is forwarded to. */
export function remoteSocket(place: RemoteAgentPlace, wsId: string, memberId: string): string {
  return `${place.channel.sockets?.there ?? `${place.home}/.concord/run`}/${memberKey(wsId, memberId)}.sock`
}

/** The same socket's path on this machine when the runner sees a folder of this machine's (a container's mount). */
export function socketHere(place: RemoteAgentPlace, wsId: string, memberId: string): string | null {
  const sockets = place.channel.sockets
  return sockets ? `${sockets.here}/${memberKey(wsId, memberId)}.sock` : null
}

/**
 * Concord's MCP entry as the agent on the runner starts it: the gateway's proxy (a `node -e` program, node being on
 * any host an npm-installed agent runs on) joined to the forwarded socket, the token in its environment.
 */
export function remoteMcpEntry(local: McpServerStdio, socket: string): McpServerStdio {
  const [e, source] = local.args
  return {
    ...local,
    command: 'node',
    args: [e!, source!, socket, ...local.args.slice(3)],
    // Only the token: the local node's own variables (ELECTRON_RUN_AS_NODE) mean nothing there.
    env: local.env.filter((v) => v.name === 'CONCORD_MCP_TOKEN'),
  }
}

/**
 * How to spawn the agent on the runner. `vars` are the agent's own variables (the member's, its key, the preset's);
 * the runner's login provides PATH, HOME and the rest. `homes`: variables set to folders of the member's own under the
 * runner's home (an isolated home).
 */
export function remoteAgentSpawn(
  place: RemoteAgentPlace,
  o: {
    argv: string[]
    vars: Record<string, string>
    homes: string[]
    isolatedHome: boolean
    wsId: string
    memberId: string
    gatewaySocket: string
    /** Folders of the agent's state under the runner's home it may write (a shared home's; stateFiles). */
    stateFiles: string[]
    readOnly: boolean
  },
): SandboxedSpawn & { preamble: string } {
  const key = memberKey(o.wsId, o.memberId)
  const homeDir = `.concord/agents/${key}`
  const spec: LaunchSpec = {
    argv: o.argv,
    cwd: place.root,
    env: o.vars,
    homes: o.isolatedHome
      ? Object.fromEntries(o.homes.map((v) => [v, v === 'HOME' ? homeDir : `${homeDir}/.${v.toLowerCase()}`]))
      : {},
    pidFile: `.concord/run/${key}.pid`,
    // A forwarded socket is the connection's: it goes with it. A mounted one is the gateway's, here.
    leaves: place.channel.sockets ? [] : [remoteSocket(place, o.wsId, o.memberId)],
    sandbox: place.bwrap
      ? { bwrap: place.bwrap, writable: o.isolatedHome ? [] : o.stateFiles, readOnly: o.readOnly }
      : null,
  }
  const { file, args, env } = place.channel.spawn(['node', '-e', LAUNCHER_SOURCE, LAUNCHER_MARK, key], {
    remote: remoteSocket(place, o.wsId, o.memberId),
    local: o.gatewaySocket,
  })
  return {
    file,
    args,
    // ssh itself, with what it needs of this machine: the user's ssh config, keys and agent.
    env,
    cwd: process.cwd(),
    sandboxed: !!place.bwrap || !!place.channel.confined,
    ...(place.bwrap || place.channel.confined
      ? {}
      : {
          reason: `it runs on ${place.channel.label}, which has no bubblewrap: it can do there what that login can (install bubblewrap there to confine it to its tree)`,
        }),
    preamble: `${JSON.stringify(spec)}\n`,
  }
}

/** The launcher's words when the agent's program is not on the runner, as the turn says them. */
export function missingOnRunner(text: string): boolean {
  return text.includes(`exit code ${NOT_FOUND_EXIT}`) && text.includes('not found on this host')
}
