/**
 * Runner: members on an SSH host (issue 36), each figure measured side by side with its counterpart on this machine,
 * in the same run, against a real sshd on loopback (test/fixtures/ssh-host.ts: needs root, skipped with the reason
 * without it).
 *
 * - Tree creation: pushTree of a fresh task's tree to the host (the whole history as one bundle, applied there) vs a
 *   plain local `git clone` of the same repository; target ≤ 2×.
 * - A turn: the same scripted turn (one tool call writing a file, then an answer) of an opencode member on the host
 *   vs one on this machine, after a warm-up turn each; target ≤ 1.2×.
 * - The no-change round trip (pushTree + pullTree when nothing changed): what every turn on the host pays at least.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createCore, type Core } from '../electron/main/core'
import { sshChannel } from '../electron/main/platform/ssh-channel'
import { sshControlDir } from '../electron/main/platform/ssh'
import { pullTree, pushTree, type RemoteTree } from '../electron/main/repo/remote-tree'
import type { Member, Task, Workspace } from '../shared/schemas'
import { installedAgent } from '../test/fixtures/agent-cli'
import { opencodeProvider, opencodeTitle } from '../test/fixtures/agents'
import { startModelServer, type ModelServer } from '../test/fixtures/model-server'
import { noSshHostReason, startSshHost, type SshHost } from '../test/fixtures/ssh-host'
import { median, ms, verdict } from './util'

const FILES = 2000
const COMMITS = 20
const TREE_ROUNDS = 5
const TURNS = 5
const ROUND_TRIPS = 9
const TREE_TARGET = 2
const TURN_TARGET = 1.2
/** The transfer limit of a workspace's default (treeTransferLimitMB), far above this repository's size. */
const LIMIT = { bytes: 512 * 1024 * 1024, setting: 'treeTransferLimitMB' }

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
const now = () => performance.now()

/** Text that compresses as source does, not as a repeated line: words drawn from a seeded generator. */
function sourceText(seed: number, lines: number): string {
  let x = seed * 2654435761 + 1
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return x
  }
  const words = ['const', 'value', 'return', 'export', 'function', 'await', 'result', 'items', 'index', 'config']
  const out: string[] = []
  for (let l = 0; l < lines; l++)
    out.push(
      `  ${words[next() % 10]}_${next() % 997} = ${words[next() % 10]}(${next() % 100000}, '${next().toString(36)}')`,
    )
  return `${out.join('\n')}\n`
}

/** A repository of FILES files (about 3 MB) and COMMITS commits, each changing a tenth of them. */
function makeRepo(repo: string): void {
  mkdirSync(join(repo, 'src'), { recursive: true })
  git(repo, 'init', '-q', '-b', 'main')
  git(repo, 'config', 'user.name', 'Bench')
  git(repo, 'config', 'user.email', 'bench@concord.invalid')
  for (let c = 0; c < COMMITS; c++) {
    for (let i = 0; i < FILES; i++) {
      if (c > 0 && i % 10 !== c % 10) continue
      mkdirSync(join(repo, 'src', `d${i % 40}`), { recursive: true })
      writeFileSync(join(repo, 'src', `d${i % 40}`, `m${i}.ts`), sourceText(i * 131 + c, 25))
    }
    git(repo, 'add', '-A')
    git(repo, 'commit', '-qm', `change ${c}`)
  }
}

/** A task, assigned and started: its tree is made. */
async function startedTask(core: Core, ws: Workspace, title: string, assigneeId?: string): Promise<Task> {
  const task = await core.invoke('tasks.create', { workspaceId: ws.id, title, ...(assigneeId ? { assigneeId } : {}) })
  return core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
}

/** The task's tree on the host as a turn of its member would open it (runtime/runner/remote-turn.ts). */
async function remoteTreeOf(dataDir: string, ws: Workspace, host: string, task: Task): Promise<RemoteTree> {
  const local = join(dataDir, 'worktrees', ws.id, task.key)
  return {
    channel: sshChannel(host, sshControlDir(dataDir)),
    local,
    remote: '',
    repo: ws.repoPath,
    base: git(local, 'rev-parse', 'HEAD').trim(),
    branch: git(local, 'rev-parse', '--abbrev-ref', 'HEAD').trim(),
    sync: join(dataDir, 'scratch', ws.id, 'remote', `${task.key}-bench.git`),
    agreed: null,
  }
}

/** Resolves once the member's session is idle with nothing queued; rejects when it ends in error. */
function idle(core: Core, memberId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const off = core.bus.on((e) => {
      if (e.event !== 'session.state') return
      const s = e.payload.session
      if (s.memberId !== memberId) return
      if (s.state === 'error') {
        off()
        reject(new Error(`bench runner: the turn of member ${memberId} ended in error`))
      } else if (s.state === 'idle' && s.queued === 0) {
        off()
        resolve()
      }
    })
  })
}

/** One scripted turn: the agent writes a file of its task's tree, then answers. Returns its time, send to idle. */
async function turn(core: Core, server: ModelServer, member: Member, task: Task, i: number): Promise<number> {
  server.enqueue({
    toolCalls: [{ name: 'write', arguments: { filePath: `note-${i}.txt`, content: `note ${i}\n` } }],
  })
  server.enqueue({ text: 'Written.' })
  const done = idle(core, member.id)
  const t0 = now()
  await core.invoke('sessions.send', { memberId: member.id, text: `Write note-${i}.txt for ${task.key}` })
  await done
  const elapsed = now() - t0
  const steps = (await core.invoke('sessions.get', { memberId: member.id })).steps
  const last = steps.at(-1)
  if (last?.kind !== 'model' || last.text !== 'Written.')
    throw new Error(`bench runner: ${member.name}'s turn ${i} ended with ${JSON.stringify(last)}`)
  return elapsed
}

export async function runnerSsh(): Promise<void> {
  const reason = noSshHostReason()
  if (reason) {
    console.log(`Runner (SSH host) skipped: ${reason}`)
    return
  }
  const bin = await installedAgent('opencode-ai')
  const root = mkdtempSync(join(tmpdir(), 'concord-bench-runner-'))
  const homeBefore = process.env.HOME
  let host: SshHost | null = null
  let server: ModelServer | null = null
  let core: Core | null = null
  try {
    host = await startSshHost()
    // The host's own copy of opencode, as its user installed it there.
    cpSync(dirname(bin), join(host.home, 'opencode'), { recursive: true, verbatimSymlinks: true })
    execFileSync('chown', ['-R', `${host.user}:`, join(host.home, 'opencode')])
    // Concord's ssh reads the client side's config (the host's alias, key and known host) from this HOME.
    process.env.HOME = host.clientHome
    const repo = join(root, 'repo')
    makeRepo(repo)
    const size = Number(git(repo, 'count-objects', '-v').match(/size-pack: (\d+)/)?.[1] ?? 0)
    const loose = Number(git(repo, 'count-objects', '-v').match(/^size: (\d+)/m)?.[1] ?? 0)
    const dataDir = join(root, 'data')
    server = await startModelServer({ unscripted: opencodeTitle, defaultReply: { text: 'Not done.' } })
    core = createCore({ dataDir, taskStartTurns: false })
    const ws = await core.invoke('workspaces.open', { repoPath: repo, isolation: 'worktree' })
    const what = `${FILES} files, ${COMMITS} commits, ${((size + loose) / 1024).toFixed(1)} MB of objects`

    // --- (a) tree creation: pushTree of a fresh task tree vs a plain local clone ---
    const push: number[] = []
    const clone: number[] = []
    // For context, no target: a clone that packs and sends the objects as a transfer does (a local clone hardlinks them).
    const packed: number[] = []
    let last: RemoteTree | null = null
    // Round 0 is a warm-up, not counted: it opens the shared ssh connection every later call rides on.
    for (let r = 0; r <= TREE_ROUNDS; r++) {
      const task = await startedTask(core, ws, `Tree ${r}`)
      const tree = await remoteTreeOf(dataDir, ws, host.alias, task)
      let t0 = now()
      await pushTree(tree, LIMIT)
      const p = now() - t0
      t0 = now()
      git(root, 'clone', '-q', repo, join(root, `clone-${r}`))
      const c = now() - t0
      t0 = now()
      git(root, 'clone', '-q', '--no-local', repo, join(root, `packed-${r}`))
      const n = now() - t0
      if (r > 0) {
        push.push(p)
        clone.push(c)
        packed.push(n)
      }
      last = tree
    }
    const pm = median(push)
    const cm = median(clone)
    console.log(
      `Runner a: tree creation (${what}): pushTree of a fresh task tree to the SSH host ${ms(pm)} (the host's state read, the history bundled, sent, fetched and checked out there) · git clone (local) ${ms(cm)} · ratio ${(pm / cm).toFixed(2)}× (target ≤ ${TREE_TARGET}×) ${verdict(pm / cm <= TREE_TARGET)}; for context, git clone --no-local (objects packed and sent, no hardlinks) ${ms(median(packed))}`,
    )

    // --- (c) the no-change round trip ---
    const trips: number[] = []
    for (let r = 0; r < ROUND_TRIPS; r++) {
      const t0 = now()
      await pushTree(last!, LIMIT)
      const pulled = await pullTree(last!, LIMIT)
      trips.push(now() - t0)
      if (pulled.changed) throw new Error('bench runner: a tree with no change came back changed')
    }
    console.log(
      `Runner c: no-change round trip (pushTree + pullTree, nothing changed either side; 2 ssh calls on a shared connection + the tree's snapshot here): median ${ms(median(trips))} of ${ROUND_TRIPS}`,
    )

    // --- (b) a turn of an opencode member on the host vs on this machine ---
    const member = (name: string, command: string, runner: { kind: 'local' } | { kind: 'ssh'; host: string }) =>
      core!.invoke('members.create', {
        workspaceId: ws.id,
        name,
        role: 'implementer',
        authority: 'proposer',
        approval: 'auto',
        provider: { ...opencodeProvider(server!), command, args: ['acp'] },
        runner,
      })
    const here = await member('Here', join(bin, 'opencode'), { kind: 'local' })
    const there = await member('There', `${host.home}/opencode/bin/opencode`, { kind: 'ssh', host: host.alias })
    const hereTask = await startedTask(core, ws, 'Notes here', here.id)
    const thereTask = await startedTask(core, ws, 'Notes there', there.id)
    // The warm-up turn each: the agent started (on the host: its connection, the tree's first transfer).
    await turn(core, server, here, hereTask, 0)
    await turn(core, server, there, thereTask, 0)
    const local: number[] = []
    const remote: number[] = []
    for (let i = 1; i <= TURNS; i++) {
      local.push(await turn(core, server, here, hereTask, i))
      remote.push(await turn(core, server, there, thereTask, i))
    }
    const lm = median(local)
    const rm = median(remote)
    console.log(
      `Runner b: a scripted opencode turn (send → idle: a tool call writing a file, then an answer): on the SSH host ${ms(rm)} (with the tree sent before and brought back after) · on this machine ${ms(lm)} · ratio ${(rm / lm).toFixed(2)}× (target ≤ ${TURN_TARGET}×) ${verdict(rm / lm <= TURN_TARGET)}; the host adds ${ms(median(remote.map((x, i) => x - (local[i] ?? 0))))} a turn (median of the pairs' differences)`,
    )
  } finally {
    await core?.close()
    await server?.close()
    process.env.HOME = homeBefore
    await host?.stop()
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runnerSsh()
