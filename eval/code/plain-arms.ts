/**
 * The code scenario without Concord: plain git worktrees, a board, reports taken at face value. The careless arms
 * (broadcast, chat) tell the team a merge happened and land what was accepted; the careful human broadcasts every
 * merge and has every member re-check all of its delivered work on the new main: each implementer brings main into
 * every tree it delivered, the tester and the reviewer check each new head, the human accepts each again. Nothing
 * is missed, by construction; every merge costs every open task a round of rework.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tokens } from '../tokens'
import { at } from '../at'
import type { CodeArm, CodeArmName } from './arm'
import type { CodeScenario } from './scenarios'
import { commitChange, git, initRepo, treeOf } from './repo'

interface Report {
  task: number
  kind: 'test' | 'review'
  commit: string
}

export class PlainCodeArm implements CodeArm {
  private readonly root = mkdtempSync(join(tmpdir(), 'concord-eval-code-'))
  readonly repo = join(this.root, 'repo')
  reworkTurns = 0
  baseMoveInterventions = 0
  tokens = 0
  private readonly heads: (string | null)[]
  private readonly merged: boolean[]
  private readonly reports: Report[] = []

  constructor(
    readonly name: Exclude<CodeArmName, 'concord'>,
    private readonly s: CodeScenario,
  ) {
    this.heads = s.tasks.map(() => null)
    this.merged = s.tasks.map(() => false)
  }

  private tree(task: number): string {
    return join(this.root, 'trees', `T-${task + 1}`)
  }

  async setup(): Promise<void> {
    initRepo(this.repo, this.s.files)
  }

  async deliver(task: number): Promise<void> {
    const t = at(this.s.tasks, task)
    git(this.repo, 'worktree', 'add', '-q', '-b', `task-${task + 1}`, this.tree(task), 'main')
    this.heads[task] = commitChange(this.tree(task), task, t.title, t.files)
  }

  /** One check per kind of every delivered head not checked yet; returns how many were made. */
  private checkAll(): number {
    let n = 0
    this.heads.forEach((head, task) => {
      if (!head || this.merged[task]) return
      for (const kind of ['test', 'review'] as const) {
        if (this.reports.some((r) => r.task === task && r.kind === kind && r.commit === head)) continue
        // The scripted tester and reviewer: the change does what its task asks, so both pass.
        this.reports.push({ task, kind, commit: head })
        n++
      }
    })
    return n
  }

  async check(): Promise<void> {
    this.checkAll()
  }

  async accept(): Promise<void> {}

  async merge(task: number): Promise<boolean> {
    // What was accepted lands: a fast-forward, or a merge commit whose tree no report checked.
    git(this.repo, 'merge', '-q', '--no-edit', at(this.heads, task)!)
    this.merged[task] = true
    const t = at(this.s.tasks, task)
    const text = `T-${task + 1} "${t.title}" was merged into main; it changed ${t.files.join(', ')}.`
    const members = this.s.implementers + 2
    // broadcast: one message to every member; chat: a thread line every member reads at its next step.
    this.tokens += tokens(text) * members
    if (this.name !== 'careful') return true
    // The careful human types the broadcast and asks everyone to re-check all of its delivered work.
    this.baseMoveInterventions++
    this.heads.forEach((head, u) => {
      if (!head || this.merged[u]) return
      git(this.tree(u), 'merge', '-q', '--no-edit', 'main')
      this.heads[u] = git(this.tree(u), 'rev-parse', 'HEAD')
      this.reworkTurns++
    })
    this.reworkTurns += this.checkAll()
    // Each re-checked task is accepted again.
    this.baseMoveInterventions += this.heads.filter((h, u) => h && !this.merged[u]).length
    return true
  }

  mainTree(): string {
    return treeOf(this.repo, 'main')
  }

  async testedCommits(): Promise<string[]> {
    return this.reports.filter((r) => r.kind === 'test').map((r) => r.commit)
  }

  async close(): Promise<void> {
    rmSync(this.root, { recursive: true, force: true })
  }
}
