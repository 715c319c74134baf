/**
 * A turn of a member whose agent runs on a runner: before it, the turn's tree is sent there (remote-tree.ts); during
 * it, each of Concord's tools the agent calls first brings the runner's tree back, so a report names what the agent
 * really has; after it, the tree comes back once more, before the turn's changes are recorded.
 */
import { basename, join } from 'node:path'
import type { Ctx } from '../../harness/context'
import type { Harness } from '../../harness/harness'
import type { MemberRow } from '../../harness/rows'
import type { TurnTree } from '../../harness/workspace/turn-trees'
import { workspaceSettings } from '../../harness/workspace/workspace-settings'
import type { RunnerChannel } from '../../platform/runner-channel'
import { sshChannel } from '../../platform/ssh-channel'
import { sshControlDir } from '../../platform/ssh'
import { isOwnTree } from '../../repo/git-repo'
import { pullTree, pushTree, remoteTreeFolder, type RemoteLimit, type RemoteTree } from '../../repo/remote-tree'
import type { RemoteAgentPlace } from './remote-agent'
import { effectiveRunner, parseStoredRunner, type Runner } from '../../../../shared/runners'
import { containerChannel } from '../../platform/container-channel'
import { memberKey } from './remote-agent'

/** The turn's tree on the runner, and whether what the agent does there comes back. */
export interface RemoteTurn {
  place: RemoteAgentPlace
  tree: RemoteTree
  /** The tree is the task's own and writable: the runner's copy comes back (a read-only checkout's does not). */
  bringsBack: boolean
  limit: RemoteLimit
}

/** The trees on runners, by runner and tree here: what both sides last agreed on is kept between turns. */
const remoteTrees = new Map<string, RemoteTree>()

/** Where the member's turns run: its own runner, else the workspace's default (shared/runners.ts effectiveRunner). */
export function memberRunner(ctx: Ctx, member: MemberRow): Runner {
  return effectiveRunner(
    { runner: parseStoredRunner(member.runner), provider: member.agent ? { kind: 'acp' } : null },
    workspaceSettings(ctx),
  )
}

/** The channel to a member's runner; null for this machine. A container is the member's own. */
function runnerChannel(harness: Harness, runner: Runner, wsId: string, memberId: string): RunnerChannel | null {
  if (runner.kind === 'local') return null
  if (runner.kind === 'ssh') return sshChannel(runner.host, sshControlDir(harness.registry.dataDir))
  const key = memberKey(wsId, memberId)
  return containerChannel({
    image: runner.image,
    name: `concord-${key}`,
    sockets: join(harness.registry.dataDir, 'runners', key),
  })
}

/**
 * The turn's tree sent to the member's runner; null when the member runs on this machine. A tree that is the user's
 * own checkout (a shared workspace) is refused for writing: Concord would have to reset it to what the runner has.
 */
export async function openRemoteTurn(
  harness: Harness,
  ctx: Ctx,
  member: MemberRow,
  memberId: string,
  turnTree: TurnTree,
): Promise<RemoteTurn | null | { error: string }> {
  const channel = runnerChannel(harness, memberRunner(ctx, member), ctx.wsId, memberId)
  if (!channel) return null
  const own = isOwnTree(turnTree.root)
  if (!own && !turnTree.readOnly)
    return {
      error: `${member.name} runs on ${channel.label}, which works only in a task's own tree: this turn's tree is your checkout (${turnTree.root}). Switch the workspace to one tree per task (isolation: worktree), or run ${member.name} on this machine.`,
    }
  const branch = turnTree.taskRowId !== null ? ctx.store.branches.get(turnTree.taskRowId) : undefined
  const key = `${harness.registry.dataDir}\0${channel.label}\0${turnTree.root}`
  const tree = remoteTrees.get(key) ?? {
    channel,
    local: turnTree.root,
    remote: '',
    repo: harness.workspace(ctx.wsId).repoPath,
    base: branch?.base_commit ?? null,
    branch: own && !turnTree.readOnly ? (branch?.branch ?? null) : null,
    sync: join(
      harness.registry.dataDir,
      'scratch',
      ctx.wsId,
      'remote',
      `${basename(remoteTreeFolder(turnTree.root))}.git`,
    ),
    agreed: null,
  }
  tree.channel = channel
  remoteTrees.set(key, tree)
  const limit = { bytes: workspaceSettings(ctx).treeTransferLimitMB * 1024 * 1024, setting: 'treeTransferLimitMB' }
  try {
    await channel.prepare?.()
    const [root, bwrap] = await Promise.all([pushTree(tree, limit), channel.confined ? null : bubblewrapOn(channel)])
    const home = root.slice(0, root.indexOf('/.concord/trees/'))
    return { place: { channel, root, home, bwrap }, tree, bringsBack: own && !turnTree.readOnly, limit }
  } catch (err) {
    return { error: `${member.name}'s turn did not start: ${err instanceof Error ? err.message : String(err)}` }
  }
}

/** Bubblewrap's path on the runner, or null: looked up once per runner (a host gains it only when someone installs it). */
const bubblewraps = new Map<string, string | null>()
async function bubblewrapOn(channel: RunnerChannel): Promise<string | null> {
  if (bubblewraps.has(channel.label)) return bubblewraps.get(channel.label)!
  const r = await channel.run(['sh', '-c', 'command -v bwrap'])
  const path = r.code === 0 ? r.stdout.toString('utf8').trim() : ''
  const found = path.startsWith('/') ? path : null
  bubblewraps.set(channel.label, found)
  return found
}

/** The runner's tree brought back here (a no-op when nothing changed there); the error in words, or null. */
export async function bringBack(turn: RemoteTurn): Promise<string | null> {
  if (!turn.bringsBack) return null
  try {
    await pullTree(turn.tree, turn.limit)
    return null
  } catch (err) {
    return `The tree on ${turn.place.channel.label} was not brought back: ${err instanceof Error ? err.message : String(err)}`
  }
}
