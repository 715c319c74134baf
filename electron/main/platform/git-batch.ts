/**
 * Commit names resolved by one long-lived `git cat-file --batch-check` per repository (and per task tree), instead
 * of a `git rev-parse` (two processes with the config read) per name: a report's artifact, a tree's head, a branch.
 * The process is Concord's own git (the trusted binary, the fixed environment, every program override of runOwnGit,
 * a tree's git folder named explicitly) started off the event loop; `cat-file --batch-check` reads objects and refs
 * only, it runs no filter, hook or other program a repository's config could name. It is restarted when it dies,
 * closed after a minute unused, when its tree is removed, and with the core.
 *
 * git reads refs afresh for every line, and a name it does not find makes it re-read the object store (a new pack,
 * a new loose object), so an answer is today's. A name it does not resolve (or any failure here) is answered by the
 * caller's rev-parse as before: a miss costs what it always did, and says exactly what rev-parse says.
 */
import { ownProgramEnv, trustedProgram, commandEnv } from './command-env'
import { ownBatchArgs } from './own-git'
import { spawnOffLoop, type OffLoopChild } from './spawner'

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/
/** A batch unused this long is closed (trees come and go; a repository's is started again at its next name). */
const IDLE_MS = 60_000
/** A name unanswered this long: the batch is taken for stuck, closed, and the caller asks rev-parse. */
const ANSWER_MS = 10_000

interface Pending {
  resolve: (sha: string | null) => void
  timer: NodeJS.Timeout
}

class CatFileBatch {
  private child: OffLoopChild | null = null
  private readonly pending: Pending[] = []
  private buffered = ''
  private idle: NodeJS.Timeout | undefined

  constructor(
    private readonly cwd: string,
    private readonly tree: string | undefined,
    private readonly onClosed: () => void,
  ) {}

  /** The full SHA of the `peel` (commit or tree) `ref` names, or null when git does not resolve it here (or the batch failed). */
  resolve(ref: string, peel: Peel): Promise<string | null> {
    const child = this.start()
    this.touch()
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.close(), ANSWER_MS)
      this.pending.push({ resolve, timer })
      child.write(`${ref}^{${peel}}\n`)
    })
  }

  close(): void {
    const child = this.child
    this.child = null
    clearTimeout(this.idle)
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer)
      p.resolve(null)
    }
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    this.onClosed()
  }

  private start(): OffLoopChild {
    if (this.child) return this.child
    const env = ownProgramEnv(commandEnv(undefined))
    const child = spawnOffLoop(
      trustedProgram('git') ?? 'git',
      ownBatchArgs(['cat-file', '--batch-check=%(objectname)'], this.tree),
      { cwd: this.cwd, env, detached: true, input: true, background: true },
    )
    this.child = child
    this.buffered = ''
    child.stdout.on('data', (chunk) => {
      if (this.child !== child) return
      this.buffered += chunk.toString('utf8')
      let nl
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl).trim()
        this.buffered = this.buffered.slice(nl + 1)
        const p = this.pending.shift()
        if (!p) continue
        clearTimeout(p.timer)
        // "<sha>" when found; "<name> missing" or "<name> ambiguous" when not.
        p.resolve(SHA.test(line) ? line : null)
      }
    })
    child.on('error', () => {
      if (this.child === child) this.close()
    })
    child.on('close', () => {
      if (this.child === child) this.close()
    })
    return child
  }

  private touch(): void {
    clearTimeout(this.idle)
    this.idle = setTimeout(() => this.close(), IDLE_MS)
    this.idle.unref()
  }
}

/** What a name is peeled to: the commit it names, or that commit's tree. */
type Peel = 'commit' | 'tree'

const batches = new Map<string, CatFileBatch>()

function batchFor(cwd: string, tree: string | undefined): CatFileBatch {
  const key = `${tree ? 'tree' : 'repo'}\0${cwd}`
  let b = batches.get(key)
  if (!b) {
    const made: CatFileBatch = new CatFileBatch(cwd, tree, () => {
      if (batches.get(key) === made) batches.delete(key)
    })
    b = made
    batches.set(key, b)
  }
  return b
}

/**
 * The commit `ref` names in the repository at `root` (as git finds it from there), or in a task tree's own git folder
 * (`tree`: named explicitly, nothing in the tree redirects it); null when the batch does not resolve it. `ref` must
 * already be checked (no whitespace, no leading '-').
 */
export function batchCommit(root: string, ref: string, tree = false): Promise<string | null> {
  return batchFor(root, tree ? root : undefined).resolve(ref, 'commit')
}

/** The tree of the commit `ref` names in the repository at `root` (see batchCommit); null when not resolved. */
export function batchTree(root: string, ref: string): Promise<string | null> {
  return batchFor(root, undefined).resolve(ref, 'tree')
}

/** A batch that answered "no" where rev-parse said yes (a repository replaced under it): a fresh one next time. */
export function restartBatch(root: string, tree = false): void {
  batches.get(`${tree ? 'tree' : 'repo'}\0${root}`)?.close()
}

/** Closes the batches of one repository or tree (removed), or all of them (the core closing). */
export function closeBatches(root?: string): void {
  for (const [key, b] of [...batches]) if (!root || key.endsWith(`\0${root}`)) b.close()
}
