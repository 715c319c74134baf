import { useEffect, useState } from 'react'
import type { MergePreview, Task } from '../../../../shared/schemas'
import { whileMounted } from '../../lib/while-mounted'
import { useApp } from '../../stores/app-store'
import './base-line.css'

const files = (list: string[]) =>
  list.length > 2 ? `${list.slice(0, 2).join(', ')} and ${list.length - 2} more` : list.join(', ')

/**
 * The task's commit against the base branch, plainly (issue 30): "behind main by 2 · overlaps T-1 in src/search.js ·
 * conflicts". From the core's last check (Task.base), made when the base moved; nothing when it is level with it.
 */
export function BaseLine({ task }: { task: Task }) {
  const base = task.base
  if (!base || task.merged || (base.behind === 0 && !base.conflicts)) return null
  const parts: { text: string; tone?: 'warn' | 'bad'; title?: string }[] = []
  parts.push({ text: `behind ${base.branch} by ${base.behind}` })
  for (const o of base.overlaps)
    parts.push({
      text: `overlaps ${o.key ?? `commits on ${base.branch}`} in ${files(o.files)}`,
      tone: 'warn',
      title: o.files.join('\n'),
    })
  if (base.conflicts)
    parts.push({ text: 'conflicts', tone: 'bad', title: `A trial merge conflicts in ${base.conflicts.join(', ')}` })
  else if (!base.mergeTreeKnown) parts.push({ text: 'merge not checked (git older than 2.38)' })
  return (
    <div
      className="tcard-base small"
      data-testid="task-base"
      title={`Checked against ${base.branch} at ${base.head.slice(0, 10)}`}
    >
      {parts.map((p, i) => (
        <span key={i} className={p.tone ? `base-${p.tone}` : undefined} title={p.title}>
          {i > 0 && <span className="base-sep"> · </span>}
          {p.text}
        </span>
      ))}
    </div>
  )
}

/**
 * What merging the task would do, read from the core (tasks.mergePreview) and shown beside Merge before it is
 * clicked: "Merging T-1 moves main: T-2 overlaps (src/search.js) …". Read again when the task or the base moves.
 */
export function MergePreviewLine({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const [preview, setPreview] = useState<MergePreview | null>(null)
  useEffect(
    () => whileMounted(api.call('tasks.mergePreview', { taskId: task.id }), setPreview, () => setPreview(null)),
    [api, task.id, task.updatedAt, task.base?.head],
  )
  if (!preview) return null
  return (
    <div
      className={`merge-preview small${preview.blocked && !preview.queued ? ' blocked' : ''}`}
      data-testid="merge-preview"
    >
      {preview.text}
    </div>
  )
}
