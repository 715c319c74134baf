/**
 * A task's tree on a runner (an SSH host, a container): where its member's agent works, kept in step with the tree
 * on this machine, which stays what Concord's harness reads (snapshots, reports, merges, base moves).
 *
 * - Before a turn, the tree as it is here (its head, and every file committed or not) goes to the runner as a git
 *   bundle of what the runner lacks, unless the runner's copy is already the same.
 * - After the turn, and before each of Concord's tools the agent calls, the runner's tree comes back the same way:
 *   its head and its files as a commit Concord makes there, bundled, every object checked here
 *   (`index-pack --strict`, as bundle-objects.ts), and only a head that descends from the task's base.
 *
 * The runner is another machine an agent works on, so what comes back is hostile: it lands first in a repository of
 * Concord's own (the sync repository, beside the tree's snapshots), and reaches the tree only through runTreeGit.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ApiError } from '../../../shared/errors'
import { runOwnGit } from '../platform/own-git'
import type { RunnerChannel } from '../platform/runner-channel'
import { runTreeGit, treeConfig } from '../platform/tree-git'
import { checkBundleObjects } from './bundle-objects'
import { snapshotTree } from './file-changes'
import { objectsOf, treeHead } from './git-repo'
import { onePerTree } from './one-per-tree'

/** Where the tree is on the runner, and what both sides last agreed it was. */
export interface RemoteTree {
  channel: RunnerChannel
  /** The tree on this machine. */
  local: string
  /** The tree's folder on the runner (absolute, as the runner resolved it). */
  remote: string
  /** The repository the tree was made from (its objects are the tree's alternates). */
  repo: string
  /** The task's base: a head that does not descend from it is not brought back. */
  base: string | null
  /** The task's branch, checked out on the runner under the same name. */
  branch: string | null
  /** Concord's own repository for this tree's transfers. */
  sync: string
  /** The head and the files (a tree object) both sides had at the last transfer. */
  agreed: { head: string; tree: string } | null
}

/** The most bytes one transfer may carry either way. */
export interface RemoteLimit {
  bytes: number
  setting: string
}

// Concord's git calls on the runner run no program the tree's config names (the agent may have written it).
const REMOTE_GIT = 'git -c core.fsmonitor=false -c core.hooksPath=/dev/null -c commit.gpgSign=false'
const IDENTITY = '-c user.name=Concord -c user.email=concord@localhost'

/**
 * The runner's tree as it is: its folder (made, with an empty repository, when missing), its head, and a tree object
 * of every file not ignored, committed or not (a copy of its index, never the index itself).
 */
const STATE_SCRIPT = `set -e
umask 077
mkdir -p "$1" "$HOME/.concord/run"; chmod 700 "$HOME/.concord"; cd "$1"
[ -d .git ] || git init -q
head=$(${REMOTE_GIT} rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null || true)
export GIT_INDEX_FILE="$PWD/.git/concord-state.index"
rm -f "$GIT_INDEX_FILE"; [ -f .git/index ] && cp .git/index "$GIT_INDEX_FILE"
${REMOTE_GIT} add -A -- . >/dev/null
tree=$(${REMOTE_GIT} write-tree)
rm -f "$GIT_INDEX_FILE"
printf '%s\\n%s\\n%s\\n' "$(pwd -P)" "$head" "$tree"`

/**
 * The runner's tree made what the bundle on stdin says: its branch at the head, its files those of the state commit
 * (what is not ignored and not in it goes), its index the head's (so uncommitted files stay uncommitted).
 */
const APPLY_SCRIPT = `set -e
cd "$1"
cat > .git/concord-in.bundle
${REMOTE_GIT} fetch -q --no-tags --no-write-fetch-head .git/concord-in.bundle "+refs/concord/state:refs/concord/state"
rm -f .git/concord-in.bundle
if [ -n "$2" ]; then ${REMOTE_GIT} checkout -q -f -B "$2" "$4"; else ${REMOTE_GIT} checkout -q -f --detach "$4"; fi
${REMOTE_GIT} clean -fdq
${REMOTE_GIT} reset -q "$3"`

/**
 * The runner's tree read and, unless it is what both sides agreed ($2 and $3), bundled, in one call (one ssh round
 * trip per pull): a first line `empty` (no head yet), `same`, or `bundle` followed by a bundle of its files as a
 * commit on its head, without what this machine already has (the rest of the arguments, `^<commit>`).
 */
const PULL_SCRIPT = `set -e
cd "$1" 2>/dev/null || { echo empty; exit 0; }
agreed_head=$2; agreed_tree=$3; shift 3
[ -d .git ] || { echo empty; exit 0; }
head=$(${REMOTE_GIT} rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null || true)
[ -n "$head" ] || { echo empty; exit 0; }
export GIT_INDEX_FILE="$PWD/.git/concord-state.index"
rm -f "$GIT_INDEX_FILE"; [ -f .git/index ] && cp .git/index "$GIT_INDEX_FILE"
${REMOTE_GIT} add -A -- . >/dev/null
tree=$(${REMOTE_GIT} write-tree)
rm -f "$GIT_INDEX_FILE"
if [ "$head" = "$agreed_head" ] && [ "$tree" = "$agreed_tree" ]; then echo same; exit 0; fi
c=$(${REMOTE_GIT} ${IDENTITY} commit-tree "$tree" -p "$head" -m 'concord: the tree as it is')
${REMOTE_GIT} update-ref refs/concord/out "$c"
echo bundle
${REMOTE_GIT} bundle create -q - refs/concord/out "$@"`

/** The folder the runner keeps this tree in, relative to its home: one per tree of this machine. */
export function remoteTreeFolder(local: string): string {
  const key = createHash('sha256').update(path.resolve(local)).digest('hex').slice(0, 12)
  return `.concord/trees/${path.basename(local).replace(/[^A-Za-z0-9_.-]/g, '_')}-${key}`
}

/** The runner's tree as it is now (made when missing): its absolute folder, head and files. */
async function remoteState(
  channel: RunnerChannel,
  folder: string,
): Promise<{ dir: string; head: string; tree: string }> {
  const r = await channel.run(['sh', '-c', STATE_SCRIPT, 'sh', folder])
  const [dir = '', head = '', tree = ''] = r.stdout.toString('utf8').split('\n')
  if (r.code !== 0 || !dir || !/^[0-9a-f]{40,64}$/.test(tree))
    throw new ApiError(
      'runner_failed',
      `the task's tree on ${channel.label} could not be read: ${r.stderr.trim() || `exit code ${r.code}`}`,
    )
  return { dir, head, tree }
}

/** Concord's repository for the tree's transfers: bare, reading the tree's and the user's objects. */
async function syncRepo(tree: RemoteTree): Promise<string> {
  const { sync } = tree
  if (!existsSync(path.join(sync, 'objects'))) {
    mkdirSync(path.dirname(sync), { recursive: true, mode: 0o700 })
    const made = await runOwnGit(path.dirname(sync), ['init', '--quiet', '--bare', sync], { allowFailure: true })
    if (made.code !== 0) throw new ApiError('io_error', `could not make ${sync}: ${made.stderr.trim()}`)
  }
  const stores = [path.join(tree.local, '.git', 'objects'), ...(await objectsOf(tree.repo))]
  writeFileSync(path.join(sync, 'objects', 'info', 'alternates'), stores.map((s) => `${s}\n`).join(''))
  return sync
}

const has = async (repo: string, commit: string) =>
  !!commit && (await runOwnGit(repo, ['cat-file', '-e', `${commit}^{commit}`], { allowFailure: true })).code === 0

/**
 * The runner's copy made what the tree here is (before a turn): nothing is sent when the two already agree. Returns
 * the tree's folder on the runner.
 */
export function pushTree(tree: RemoteTree, limit: RemoteLimit): Promise<string> {
  return onePerTree(`remote:${tree.local}`, () => pushOnce(tree, limit))
}

async function pushOnce(tree: RemoteTree, limit: RemoteLimit): Promise<string> {
  const sync = await syncRepo(tree)
  const folder = remoteTreeFolder(tree.local)
  // The runner's state and this tree's are read side by side: a turn whose tree did not change waits for one of them.
  const [there, head, files] = await Promise.all([
    remoteState(tree.channel, folder),
    treeHead(tree.local),
    snapshotTree(tree.local, sync),
  ])
  tree.remote = there.dir
  if (!head)
    throw new ApiError('io_error', `the task's tree ${tree.local} has no commit to send to ${tree.channel.label}`)
  if (!files) throw new ApiError('io_error', `could not read the task's tree ${tree.local}`)
  if (there.head === head && there.tree === files) {
    tree.agreed = { head, tree: files }
    return there.dir
  }
  const state = (
    await runOwnGit(sync, ['commit-tree', files, '-p', head, '-m', 'concord: the tree as it is'], {
      env: {
        GIT_AUTHOR_NAME: 'Concord',
        GIT_AUTHOR_EMAIL: 'concord@localhost',
        GIT_COMMITTER_NAME: 'Concord',
        GIT_COMMITTER_EMAIL: 'concord@localhost',
      },
    })
  ).stdout.trim()
  await runOwnGit(sync, ['update-ref', 'refs/concord/state', state])
  // What the runner has already is left out (its head, when it is one this machine knows).
  const known = (await has(sync, there.head)) ? [`^${there.head}`] : []
  const folderOut = `${sync}.out`
  mkdirSync(folderOut, { recursive: true, mode: 0o700 })
  const file = path.join(folderOut, 'state.bundle')
  try {
    const made = await runOwnGit(sync, ['bundle', 'create', '--quiet', file, 'refs/concord/state', ...known], {
      allowFailure: true,
    })
    if (made.code !== 0) throw new ApiError('io_error', `could not bundle the task's tree: ${made.stderr.trim()}`)
    const size = statSync(file).size
    if (size > limit.bytes) throw tooLarge(tree, size, limit)
    const applied = await tree.channel.run(
      ['sh', '-c', APPLY_SCRIPT, 'sh', there.dir, tree.branch ?? '', head, state],
      { input: await readFileBuffer(file) },
    )
    if (applied.code !== 0)
      throw new ApiError(
        'runner_failed',
        `the task's tree could not be sent to ${tree.channel.label}: ${applied.stderr.trim() || `exit code ${applied.code}`}`,
      )
  } finally {
    rmSync(folderOut, { recursive: true, force: true })
  }
  tree.agreed = { head, tree: files }
  return there.dir
}

const readFileBuffer = async (file: string) => (await import('node:fs/promises')).readFile(file)

const tooLarge = (tree: RemoteTree, bytes: number, limit: RemoteLimit) =>
  new ApiError(
    'transfer_too_large',
    `the task's tree on ${tree.channel.label} weighs ${(bytes / 1048576).toFixed(1)} MB to transfer, over the ${(limit.bytes / 1048576).toFixed(1)} MB the workspace setting ${limit.setting} allows: remove the large files, or raise ${limit.setting}`,
    { bytes, limit: limit.bytes, setting: limit.setting },
  )

/** What a pull brought: whether the tree here changed. */
export interface PullResult {
  changed: boolean
}

/**
 * The tree here made what the runner's copy is (after a turn, before a Concord tool): nothing moves when they agree.
 * ApiError 'invalid_objects' for broken objects, 'runner_off_base' for a head that does not descend from the base.
 */
export function pullTree(tree: RemoteTree, limit: RemoteLimit): Promise<PullResult> {
  return onePerTree(`remote:${tree.local}`, () => pullOnce(tree, limit))
}

async function pullOnce(tree: RemoteTree, limit: RemoteLimit): Promise<PullResult> {
  // Left out of the bundle: the heads this machine has that the runner has too.
  const known = tree.agreed ? [`^${tree.agreed.head}`] : []
  const r = await tree.channel.run([
    'sh',
    '-c',
    PULL_SCRIPT,
    'sh',
    remoteTreeFolder(tree.local),
    tree.agreed?.head ?? '',
    tree.agreed?.tree ?? '',
    ...known,
  ])
  const newline = r.stdout.indexOf(10)
  const answer = newline < 0 ? '' : r.stdout.subarray(0, newline).toString('utf8')
  if (r.code !== 0 || !['empty', 'same', 'bundle'].includes(answer))
    throw new ApiError(
      'runner_failed',
      `the task's tree on ${tree.channel.label} could not be read back: ${r.stderr.trim() || `exit code ${r.code}`}`,
    )
  if (answer !== 'bundle') return { changed: false }
  const bundle = r.stdout.subarray(newline + 1)
  if (bundle.length > limit.bytes) throw tooLarge(tree, bundle.length, limit)
  const sync = await syncRepo(tree)
  const folderIn = `${sync}.in`
  mkdirSync(folderIn, { recursive: true, mode: 0o700 })
  const file = path.join(folderIn, 'state.bundle')
  try {
    writeFileSync(file, bundle)
    const label = tree.branch ?? 'the task'
    // Every object checked before anything of it is used: broken objects stop here (bundle-objects.ts).
    await checkBundleObjects(sync, file, label)
    const heads = (await runOwnGit(sync, ['bundle', 'list-heads', file], { allowFailure: true })).stdout
    const state = /^([0-9a-f]{40,64}) refs\/concord\/out$/m.exec(heads)?.[1]
    if (!state) throw new ApiError('io_error', `the bundle from ${tree.channel.label} names no state of the tree`)
    await runOwnGit(sync, ['update-ref', 'refs/concord/in', state])
    const head = (await runOwnGit(sync, ['rev-parse', `${state}^1`])).stdout.trim()
    const files = (await runOwnGit(sync, ['rev-parse', `${state}^{tree}`])).stdout.trim()
    if (
      tree.base &&
      (await runOwnGit(sync, ['merge-base', '--is-ancestor', tree.base, head], { allowFailure: true })).code !== 0
    )
      throw new ApiError(
        'runner_off_base',
        `${label}'s tree on ${tree.channel.label} is at ${head.slice(0, 10)}, which does not descend from the task's base ${tree.base.slice(0, 10)}: it was not brought back. Put the task's commits back on top of its base there.`,
      )
    await applyHere(tree, sync, state, head)
    tree.agreed = { head, tree: files }
    return { changed: true }
  } finally {
    rmSync(folderIn, { recursive: true, force: true })
  }
}

/** The tree here at `head` on its branch, its files those of `state`, its index the head's. */
async function applyHere(tree: RemoteTree, sync: string, state: string, head: string): Promise<void> {
  const readable = [sync, ...(await objectsOf(tree.repo))]
  // The tree's config is read once for the four calls (none of them changes it): three git spawns fewer a pull.
  const config = await treeConfig(tree.local)
  const steps: string[][] = [
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', sync, 'refs/concord/in'],
    ['reset', '--quiet', '--hard', state],
    ['clean', '-fdq'],
    ['reset', '--quiet', head],
  ]
  for (const args of steps) {
    const r = await runTreeGit(tree.local, args, { write: true, readable, allowFailure: true, config })
    if (r.code !== 0)
      throw new ApiError(
        'io_error',
        `could not bring the task's tree back from ${tree.channel.label} (git ${args[0]}): ${r.stderr.trim() || `exit code ${r.code}`}`,
      )
  }
}
