/**
 * Many of runTreeGit's read calls, on one tree or several, in one sandboxed process: checking 50 tasks against a new
 * base is ~300 short git calls, and starting each in a sandbox of its own (bwrap's namespaces and mounts) cost more
 * than the git work itself. Here a fixed POSIX shell script, Concord's own, runs the calls one after another inside
 * one sandbox, each exactly as runTreeGit would run it (treeGitCall: the same arguments, program overrides and filter
 * and merge-driver settings, its own tree as working folder through `git -C`, its own variables through `env`).
 *
 * The script never parses what it runs: the words of each call are its arguments and are only ever expanded as
 * "${n}" by an eval whose text is built from numbers. What a call prints is framed by a random marker the trees'
 * contents cannot know, so one call's output (a file name, a message) cannot pass for another's.
 */
import { randomBytes } from 'node:crypto'
import { commandEnv, ownProgramEnv, trustedProgram } from './command-env'
import { spawnGit, type GitResult } from './git-spawn'
import { type TreeGitCall } from './tree-git'
import { sandboxedSpawn } from './sandbox/spawn'
import { sandboxStatus } from './sandbox/status'

/** A call of the batch: runTreeGit's (treeGitCall or treeConfigCall) on `tree`. */
export interface TreeGitBatchCall extends TreeGitCall {
  tree: string
}

export interface TreeGitBatchOptions {
  /** Shown read-only in the sandbox (the user's object store); every call's tree is too. */
  readable?: string[]
  /** Folders outside the trees the calls write (a scratch object store); the trees stay read-only. */
  writable?: string[]
  /** Run in the OS sandbox (when there is one), as runTreeGit's `sandboxed`. */
  sandboxed?: boolean
  /** Processes side by side (the calls are split between them in order). */
  processes?: number
}

/** argv bytes per process, well under Linux's 2 MiB for arguments and environment together. */
const MAX_ARG_BYTES = 512 * 1024

/**
 * $1 the marker, then per call: the number of its words, the words. Each call's exit status follows its output on
 * stdout; a marker line ends its output on stderr.
 */
const SCRIPT = [
  'm=$1; shift',
  'while [ $# -gt 0 ]; do',
  '  c=$1; shift; w=; i=1',
  '  while [ $i -le $c ]; do w="$w \\"\\${$i}\\""; i=$((i+1)); done',
  '  eval "$w"; r=$?',
  '  shift $c',
  '  printf \'\\n%s:%s\\n\' "$m" "$r"; printf \'\\n%s\\n\' "$m" >&2',
  'done',
].join('\n')

/** Runs the calls; the answers in the same order. A call whose answer was lost (the process died) has code -1. */
export async function runTreeGitBatch(calls: TreeGitBatchCall[], opts: TreeGitBatchOptions = {}): Promise<GitResult[]> {
  if (!calls.length) return []
  const git = trustedProgram('git') ?? 'git'
  const env = trustedProgram('env') ?? '/usr/bin/env'
  const words = calls.map((c) => [
    env,
    '--',
    ...Object.entries(c.env).map(([k, v]) => `${k}=${v}`),
    git,
    '-C',
    c.tree,
    ...c.args,
  ])
  const chunks = split(words, Math.max(1, opts.processes ?? 1))
  const answers = await Promise.all(chunks.map((chunk) => runChunk(calls, chunk, words, opts)))
  return answers.flat()
}

/** Consecutive runs of calls, about even, none over MAX_ARG_BYTES: [from, to) pairs. */
function split(words: string[][], processes: number): [number, number][] {
  const size = (w: string[]) => w.reduce((n, x) => n + Buffer.byteLength(x) + 1, 16)
  const per = Math.ceil(words.length / processes)
  const out: [number, number][] = []
  let from = 0
  let bytes = 0
  for (let i = 0; i < words.length; i++) {
    const b = size(words[i]!)
    if (i > from && (i - from >= per || bytes + b > MAX_ARG_BYTES)) {
      out.push([from, i])
      from = i
      bytes = 0
    }
    bytes += b
  }
  out.push([from, words.length])
  return out
}

async function runChunk(
  calls: TreeGitBatchCall[],
  [from, to]: [number, number],
  words: string[][],
  opts: TreeGitBatchOptions,
): Promise<GitResult[]> {
  const marker = randomBytes(16).toString('hex')
  const sh = trustedProgram('sh') ?? '/bin/sh'
  const argv: [string, ...string[]] = [
    sh,
    '-c',
    SCRIPT,
    'sh',
    marker,
    ...words.slice(from, to).flatMap((w) => [String(w.length), ...w]),
  ]
  const root = calls[from]!.tree
  const trees = [...new Set(calls.slice(from, to).map((c) => c.tree))]
  const readable = [...(opts.readable ?? []), ...trees]
  const st = await sandboxStatus()
  const inSandbox = opts.sandboxed || (opts.writable?.length ?? 0) > 0
  const base = commandEnv(undefined)
  const run =
    !inSandbox || !st.available
      ? await spawnGit(argv[0], argv.slice(1), root, ownProgramEnv(base), { allowFailure: true }, 'batch')
      : await (async () => {
          const plan = opts.writable?.length
            ? await sandboxedSpawn(argv, {
                root,
                policy: { readable, readOnlyTree: 'a tree Concord reads' },
                writable: opts.writable,
                env: base,
              })
            : await sandboxedSpawn(argv, { root, policy: { readable }, readOnly: true, env: base })
          return spawnGit(plan.file, plan.args, root, plan.env, { allowFailure: true }, 'batch')
        })()
  return frame(run, marker, to - from)
}

/** Each call's stdout, stderr and exit status from the framed output of `n` calls. */
function frame(run: GitResult, marker: string, n: number): GitResult[] {
  const out: GitResult[] = []
  const ends = new RegExp(`\\n${marker}:(\\d+)\\n`, 'g')
  const errs = run.stderr.split(`\n${marker}\n`)
  let at = 0
  for (let i = 0; i < n; i++) {
    ends.lastIndex = at
    const m = ends.exec(run.stdout)
    if (!m) {
      out.push({ stdout: '', stderr: run.stderr.trim() || `the batch of git calls ended (${run.code})`, code: -1 })
      continue
    }
    out.push({ stdout: run.stdout.slice(at, m.index), stderr: errs[i] ?? '', code: Number(m[1]) })
    at = m.index + m[0].length
  }
  return out
}
