/**
 * Under the message box: the tree the next turn will run in (issue 22, "Turns that know their task"). With one task
 * in progress it is that task's; with several, the one the draft names (exactly one), else none (a read-only
 * checkout of the base branch) — or the task whose turns the session shows —, and the user can choose. The choice goes with the message as sessions.send taskId.
 */
import { useEffect, useMemo, useState } from 'react'
import type { Task } from '../../../../shared/schemas'
import { mentionedKeys } from '../../../../shared/keys'
import { useApp } from '../../stores/app-store'
import './tree-picker.css'

export interface TurnTree {
  /** The member's tasks in progress, by key. */
  tasks: Task[]
  /** The task the next turn works on; null: none (read-only). */
  task: Task | null
  /** 'auto' follows the draft; a task id or 'none' is the user's choice. */
  choice: string
  choose(choice: string): void
}

/** The task a draft names among `tasks`, when it names exactly one (the core binds the same way: runtime/turn-task.ts). */
export function namedTask(text: string, tasks: Task[]): Task | null {
  const keys = new Set(mentionedKeys(text, 'T'))
  const named = tasks.filter((t) => keys.has(t.key))
  const [only, ...others] = named
  return only && !others.length ? only : null
}

export function useTurnTree(memberId: string, workspaceId: string, text: string): TurnTree {
  const api = useApp((s) => s.api)
  const cached = useApp((s) => s.tasks)
  const [fetched, setFetched] = useState<Task[]>([])
  const [choice, setChoice] = useState<{ memberId: string; value: string }>({ memberId, value: 'auto' })
  useEffect(() => {
    let live = true
    if (!workspaceId) return
    // A page of its tasks in progress, never a whole list (a member may have thousands of tasks).
    api
      .call('tasks.page', { workspaceId, assigneeId: memberId, status: ['in_progress'], limit: 100 })
      .then((page) => live && setFetched(page.items))
      .catch(() => live && setFetched([]))
    return () => {
      live = false
    }
  }, [api, memberId, workspaceId])
  const tasks = useMemo(() => {
    // The store's copy is the newest (task.changed events); tasks started since the fetch are in it too.
    const byId = new Map<string, Task>()
    for (const t of fetched) byId.set(t.id, cached[t.id] ?? t)
    for (const t of Object.values(cached)) if (t.assigneeId === memberId) byId.set(t.id, t)
    return [...byId.values()]
      .filter((t) => t.status === 'in_progress' && t.workspaceId === workspaceId)
      .sort((a, b) => a.key.localeCompare(b.key, undefined, { numeric: true }))
  }, [fetched, cached, memberId, workspaceId])
  // The session read per task (TaskTurns.tsx): a message written there goes to that task unless it names another.
  const viewedId = useApp((s) => s.sessionTask[memberId])
  const value = choice.memberId === memberId ? choice.value : 'auto'
  const chosen = value === 'none' ? null : value === 'auto' ? null : (tasks.find((t) => t.id === value) ?? null)
  const task =
    value === 'auto' || (value !== 'none' && !chosen)
      ? tasks.length === 1
        ? tasks[0]!
        : (namedTask(text, tasks) ?? tasks.find((t) => t.id === viewedId) ?? null)
      : chosen
  return { tasks, task, choice: value, choose: (v) => setChoice({ memberId, value: v }) }
}

const label = (t: Task) => (t.branch ? `${t.key} · ${t.branch}` : `${t.key} · ${t.title}`)

/** Shown when the member has a task in progress: where the next turn runs, and a choice among its tasks. */
export function TreePicker({ tree }: { tree: TurnTree }) {
  if (!tree.tasks.length) return null
  const value = tree.choice === 'auto' ? (tree.task?.id ?? 'none') : tree.choice
  const auto = tree.choice === 'auto'
  return (
    <div className="tree-picker small" data-testid="tree-picker">
      <span className="muted">Next turn in</span>
      <select
        value={value}
        onChange={(e) => tree.choose(e.target.value)}
        aria-label="Tree the next turn runs in"
        title={
          auto
            ? 'Follows the message: the task it names, or your only task in progress. Choose to fix it.'
            : 'Chosen by you'
        }
        data-testid="tree-picker-select"
      >
        {tree.tasks.map((t) => (
          <option key={t.id} value={t.id} title={t.title}>
            {label(t)}
          </option>
        ))}
        <option value="none">No task · read-only base branch</option>
      </select>
      {!auto && (
        <button
          className="link-btn"
          onClick={() => tree.choose('auto')}
          data-testid="tree-picker-auto"
          title="Follow the task the message names again"
        >
          auto
        </button>
      )}
      {tree.task === null && tree.tasks[0] && tree.tasks.length > 1 && (
        <span className="muted">name a task (e.g. {tree.tasks[0].key}) or choose one, to edit its tree</span>
      )}
    </div>
  )
}
