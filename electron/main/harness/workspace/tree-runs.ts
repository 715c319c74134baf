/**
 * A task's tree made ready to work in, and the user's own commands in it: the workspace's listed files copied from
 * the checkout (`.env`, local config: never out of it, never into git's folder, never through a symlink out), then
 * its setup command (`npm ci`) run in the sandbox when the tree is created; and its run command (a dev server, the
 * tests), started and stopped from the task's card, one at a time per task. Their output is kept in the data folder
 * (tree-runs/<workspace>/<task>-<kind>.json) and shown on the card; a failed setup leaves the tree as it is.
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ApiError } from '../../../../shared/errors'
import type { TreeRun } from '../../../../shared/schemas'
import { sandboxedSpawn } from '../../platform/sandbox/spawn'
import { runShell } from '../../platform/shell'
import { objectsOf } from '../../repo/git-repo'
import type { Ctx } from '../context'
import type { Harness } from '../harness'
import { makeId, makeKey, now } from '../ids'
import { blobsOf, memberChanged, scriptsOf } from './run-scripts'
import { copyIntoTree } from './tree-copy'
import { workspaceSettings } from './workspace-settings'

const SETUP_TIMEOUT_MS = 30 * 60_000
/** A dev server runs until stopped; a day is the bound. */
const RUN_TIMEOUT_MS = 24 * 60 * 60_000
/** Output events at most this often while a command prints. */
const EMIT_MS = 250

interface Live {
  run: TreeRun
  abort: AbortController
  done: Promise<TreeRun>
}

const live = new Map<string, Live>()
const keyOf = (wsId: string, taskRowId: number, kind: TreeRun['kind']) => `${wsId}:${taskRowId}:${kind}`

function recordPath(h: Harness, wsId: string, taskRowId: number, kind: TreeRun['kind']): string {
  return join(h.registry.dataDir, 'tree-runs', wsId, `${makeKey('task', taskRowId)}-${kind}.json`)
}

function save(h: Harness, wsId: string, taskRowId: number, run: TreeRun): void {
  const file = recordPath(h, wsId, taskRowId, run.kind)
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  writeFileSync(`${file}.tmp`, JSON.stringify(run), { mode: 0o600 })
  renameSync(`${file}.tmp`, file)
}

function load(h: Harness, wsId: string, taskRowId: number, kind: TreeRun['kind']): TreeRun | null {
  try {
    const run = JSON.parse(readFileSync(recordPath(h, wsId, taskRowId, kind), 'utf8')) as TreeRun
    // A record left 'running' by a Concord that stopped: its process went with it. A setup cut short leaves the tree
    // half set up: interrupted, and run again before the next turn there (setupSettled).
    if (run.state !== 'running') return run
    if (run.kind === 'setup')
      return {
        ...run,
        state: 'interrupted',
        endedAt: run.endedAt ?? run.startedAt,
        output: `${run.output}\n[interrupted: Concord stopped while the setup ran; it runs again before the next turn]`,
      }
    return { ...run, state: 'stopped', endedAt: run.endedAt ?? run.startedAt }
  } catch {
    return null
  }
}

/** The setup and run records of a task, as last run (the live one while it runs). */
export function treeRuns(h: Harness, ctx: Ctx, taskRowId: number): TreeRun[] {
  return (['setup', 'run'] as const).flatMap((kind) => {
    const run = live.get(keyOf(ctx.wsId, taskRowId, kind))?.run ?? load(h, ctx.wsId, taskRowId, kind)
    return run ? [run] : []
  })
}

/**
 * Resolves when the task's setup (if one runs) has ended: a turn in the tree waits for it. A setup that was interrupted
 * (Concord killed during it) is run again first, so no turn works in a half-set-up tree.
 */
export async function setupSettled(h: Harness, ctx: Ctx, taskRowId: number, tree: string): Promise<void> {
  const running = live.get(keyOf(ctx.wsId, taskRowId, 'setup'))
  if (running) {
    await running.done.catch(() => undefined)
    return
  }
  if (load(h, ctx.wsId, taskRowId, 'setup')?.state !== 'interrupted') return
  const settings = workspaceSettings(ctx)
  if (!settings.setupCommand && settings.copyFiles.length === 0) return
  await start(h, ctx, taskRowId, tree, 'setup', settings.setupCommand).done.catch(() => undefined)
}

/** Called when a task's tree has just been created: copies the listed files and runs the setup command, if any. */
export function setUpTree(h: Harness, ctx: Ctx, taskRowId: number, tree: string): Promise<TreeRun> | null {
  const settings = workspaceSettings(ctx)
  if (!settings.setupCommand && settings.copyFiles.length === 0) return null
  return start(h, ctx, taskRowId, tree, 'setup', settings.setupCommand).done
}

export function setupAgain(h: Harness, ctx: Ctx, taskRowId: number): TreeRun {
  const tree = treeOf(ctx, taskRowId)
  const settings = workspaceSettings(ctx)
  if (!settings.setupCommand && settings.copyFiles.length === 0)
    throw new ApiError('invalid_params', 'this workspace has no setup command and no files to copy (workspaces.update)')
  return start(h, ctx, taskRowId, tree, 'setup', settings.setupCommand).run
}

export function startRun(h: Harness, ctx: Ctx, taskRowId: number): TreeRun {
  const tree = treeOf(ctx, taskRowId)
  const command = workspaceSettings(ctx).runCommand
  if (!command)
    throw new ApiError('invalid_params', 'this workspace has no run command; set one (workspaces.update runCommand)')
  return start(h, ctx, taskRowId, tree, 'run', command).run
}

export function stopRun(ctx: Ctx, taskRowId: number): Promise<TreeRun> {
  const running = live.get(keyOf(ctx.wsId, taskRowId, 'run'))
  if (!running) throw new ApiError('invalid_transition', `${makeKey('task', taskRowId)} has no run command running`)
  running.abort.abort()
  return running.done
}

/** Stops whatever runs in a task's tree (the tree is going: cancelled, merged). */
export async function stopTreeRuns(ctx: Ctx, taskRowId: number): Promise<void> {
  for (const kind of ['setup', 'run'] as const) {
    const running = live.get(keyOf(ctx.wsId, taskRowId, kind))
    if (!running) continue
    running.abort.abort()
    await running.done.catch(() => undefined)
  }
}

/** The task's own tree (its folder), or invalid_transition saying why it has none. */
export function treeOf(ctx: Ctx, taskRowId: number): string {
  const row = ctx.store.branches.get(taskRowId)
  if (!row?.worktree || row.state !== 'ready')
    throw new ApiError(
      'invalid_transition',
      `${makeKey('task', taskRowId)} has no tree of its own: start it in a workspace with a branch per task`,
    )
  return row.worktree
}

function start(
  h: Harness,
  ctx: Ctx,
  taskRowId: number,
  tree: string,
  kind: TreeRun['kind'],
  command: string | null,
): Live {
  const key = keyOf(ctx.wsId, taskRowId, kind)
  // What the user last ran (read before this run's record replaces it): the baseline of "changed by a member".
  const lastRan = load(h, ctx.wsId, taskRowId, kind)?.scripts
  if (live.has(key))
    throw new ApiError(
      'invalid_transition',
      `${makeKey('task', taskRowId)}'s ${kind === 'run' ? 'run' : 'setup'} command is already running; stop it first`,
    )
  const run: TreeRun = {
    taskId: makeId(ctx.wsId, 'task', taskRowId),
    kind,
    command,
    state: 'running',
    exitCode: null,
    output: '',
    copied: [],
    refused: [],
    sandboxed: true,
    startedAt: now(),
    endedAt: null,
  }
  const abort = new AbortController()
  const events = runEvents(h, ctx.wsId, run)
  const repo = h.workspace(ctx.wsId).repoPath
  const settings = workspaceSettings(ctx)
  const done = execute({ h, ctx, taskRowId, tree, key, run, abort, events, lastRan, repo, settings })
  const entry: Live = { run, abort, done }
  live.set(key, entry)
  // Recorded before it runs: a Concord killed meanwhile finds it 'running', i.e. interrupted (load).
  try {
    save(h, ctx.wsId, taskRowId, run)
  } catch {
    // As at the end: the record is lost, not the run.
  }
  events.emit()
  return entry
}

/** The run's task.treeRun events: one now, or one soon for live output (at most one per EMIT_MS). */
function runEvents(h: Harness, wsId: string, run: TreeRun) {
  let timer: NodeJS.Timeout | null = null
  const emit = () => {
    timer = null
    h.bus.emit('task.treeRun', { workspaceId: wsId, taskId: run.taskId, run: { ...run } })
  }
  return {
    emit,
    soon: () => {
      timer ??= setTimeout(emit, EMIT_MS)
    },
    cancel: () => {
      if (timer) clearTimeout(timer)
    },
  }
}

/** One setup or run under way, and what it reads. */
interface Running {
  h: Harness
  ctx: Ctx
  taskRowId: number
  tree: string
  key: string
  run: TreeRun
  abort: AbortController
  events: ReturnType<typeof runEvents>
  lastRan: TreeRun['scripts']
  repo: string
  settings: ReturnType<typeof workspaceSettings>
}

/** Copies (setup), runs the command, and records the result whatever happens. */
async function execute(r: Running): Promise<TreeRun> {
  const { run } = r
  try {
    if (run.kind === 'setup') await copyFiles(r)
    if (run.command) await runCommand(r, run.command)
    else run.state = run.refused.length ? 'failed' : 'passed'
    if (run.state === 'passed' && run.refused.length) run.state = 'failed'
  } catch (err) {
    run.state = 'failed'
    run.output += `\n${err instanceof Error ? err.message : String(err)}`
  } finally {
    r.events.cancel()
    run.endedAt = now()
    live.delete(r.key)
    try {
      save(r.h, r.ctx.wsId, r.taskRowId, run)
    } catch {
      // The record is lost, not the tree: the event below still shows the result.
    }
    r.events.emit()
  }
  return { ...run }
}

/** The workspace's files to copy, from your checkout into the tree; what was copied and refused is said first. */
async function copyFiles(r: Running): Promise<void> {
  const { run } = r
  const copy = await copyIntoTree(r.repo, r.tree, r.settings.copyFiles)
  run.copied = copy.copied
  run.refused = copy.refused
  const lines = [
    ...(copy.copied.length ? [`Copied from your checkout: ${copy.copied.join(', ')}`] : []),
    ...copy.refused.map((x) => `Not copied: ${x}`),
  ]
  if (lines.length) run.output = `${lines.join('\n')}\n`
}

/** The command, in the sandbox, its output live; with the network unless a member changed its scripts. */
async function runCommand(r: Running, command: string): Promise<void> {
  const { h, ctx, run, settings } = r
  const root = realpathSync(r.tree)
  const network = await decideNetwork(r, command, root)
  const plan = await sandboxedSpawn(['/bin/sh', '-c', command], {
    root,
    policy: {
      dataDir: h.registry.dataDir,
      network,
      env: settings.commandEnv,
      scratchDir: join(h.registry.dataDir, 'scratch', ctx.wsId, `t${r.taskRowId}`),
      readable: await objectsOf(r.repo),
    },
  })
  run.sandboxed = plan.sandboxed
  if (!plan.sandboxed) run.output += `[not sandboxed: ${plan.reason ?? 'no sandbox available'}]\n`
  const head = run.output
  let printed = ''
  const timeoutMs = run.kind === 'setup' ? SETUP_TIMEOUT_MS : RUN_TIMEOUT_MS
  const result = await runShell(plan, {
    timeoutMs,
    signal: r.abort.signal,
    onOutput: (chunk) => {
      // Live output is the tail; the kept record is the command's own head-and-tail cut at the end.
      printed = (printed + chunk).slice(-32 * 1024)
      run.output = head + printed
      r.events.soon()
    },
  })
  run.output = head + result.output
  run.exitCode = result.exitCode
  run.state = result.aborted ? 'stopped' : result.exitCode === 0 && !result.timedOut ? 'passed' : 'failed'
  if (result.timedOut) run.output += `\n[timed out after ${timeoutMs / 60_000} min]`
}

/** A script a member changed since the user last ran it runs without the network this once, and the card says so. */
async function decideNetwork(r: Running, command: string, root: string): Promise<boolean> {
  const { run, settings } = r
  run.scripts = await blobsOf(r.repo, root, scriptsOf(command, root))
  run.memberChanged = await memberChanged(
    r.repo,
    r.ctx.store.branches.get(r.taskRowId)?.base_commit ?? null,
    run.scripts,
    r.lastRan,
  )
  run.network = settings.treeNetwork && run.memberChanged.length === 0
  if (settings.treeNetwork && !run.network)
    run.output += `[network off: ${run.memberChanged.join(', ')} changed by a member since you last ran it; run it again to give it the network]\n`
  return run.network
}
