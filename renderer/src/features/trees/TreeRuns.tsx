/**
 * A task tree's commands on its card: the setup (files copied, the setup command's result and output, set up again)
 * and the workspace's run command (Run, its live output, Stop), one at a time per task.
 */
import { useEffect, useState } from 'react'
import type { Task, TreeRun } from '../../../../shared/schemas'
import { Badge, ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { useTreeRuns } from '../../stores/tree-runs'
import './trees.css'

const stateWords: Record<TreeRun['state'], string> = {
  running: 'running…',
  passed: 'done',
  failed: 'failed',
  stopped: 'stopped',
  interrupted: 'interrupted: runs again before the next turn',
}
const tone = { running: 'info', passed: 'good', failed: 'bad', stopped: 'warn', interrupted: 'warn' } as const

/** Loads a task's tree runs into their store while it has a tree; events keep them current after. */
function useLoadTreeRuns(taskId: string, hasTree: boolean) {
  const api = useApp((s) => s.api)
  const applyAll = useTreeRuns((s) => s.applyAll)
  useEffect(() => {
    if (!hasTree) return
    let alive = true
    api.call('tasks.treeRuns', { taskId }).then(
      (list) => alive && applyAll(taskId, list),
      () => undefined,
    )
    return () => {
      alive = false
    }
  }, [api, applyAll, hasTree, taskId])
}

export function TreeRuns({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const settings = useApp((s) => s.workspaceSettings)
  const runs = useTreeRuns((s) => s.byTask[task.id])
  const apply = useTreeRuns((s) => s.apply)
  const hasTree = Boolean(task.branch && !task.merged && task.status !== 'cancelled')
  useLoadTreeRuns(task.id, hasTree)
  const act = useAction(async (what: 'tasks.run' | 'tasks.stopRun' | 'tasks.setupAgain') =>
    apply(await api.call(what, { taskId: task.id })),
  )
  if (!hasTree || !settings) return null
  const setup = runs?.setup
  const run = runs?.run
  const canRun = Boolean(settings.runCommand)
  if (!setup && !run && !canRun) return null
  return (
    <div className="tree-runs small" data-testid="tree-runs">
      {setup && (
        <RunLine
          label="Setup"
          run={setup}
          testId="tree-setup"
          action={
            setup.state !== 'running' && (
              <button
                className="link-btn small"
                disabled={act.pending}
                onClick={() => void act.run('tasks.setupAgain')}
                data-testid="setup-again"
              >
                Set up again
              </button>
            )
          }
        />
      )}
      {run && (
        <RunLine
          label="Run"
          run={run}
          testId="tree-run"
          openWhileRunning
          action={
            run.state === 'running' && (
              <button
                className="btn small"
                disabled={act.pending}
                onClick={() => void act.run('tasks.stopRun')}
                data-testid="stop-run"
              >
                Stop
              </button>
            )
          }
        />
      )}
      {canRun && run?.state !== 'running' && (
        <button
          className="btn small"
          disabled={act.pending || setup?.state === 'running'}
          onClick={() => void act.run('tasks.run')}
          data-testid="start-run"
          title={`Runs in ${task.key}'s tree, in the sandbox: ${settings.runCommand}`}
        >
          ▶ Run <code>{settings.runCommand}</code>
        </button>
      )}
      <ErrorText error={act.error?.message} />
    </div>
  )
}

function RunLine({
  label,
  run,
  testId,
  action,
  openWhileRunning,
}: {
  label: string
  run: TreeRun
  testId: string
  action?: React.ReactNode
  openWhileRunning?: boolean
}) {
  // A failure opens its output; a run shows what it prints while it runs.
  const [open, setOpen] = useState<boolean | null>(null)
  const shown = open ?? (run.state === 'failed' || (openWhileRunning === true && run.state === 'running'))
  const what = run.command ?? (run.copied.length ? `copied ${run.copied.length} file(s)` : 'files')
  return (
    <div className="tree-run" data-testid={testId} data-state={run.state}>
      <div className="tree-run-head">
        <span>{label}</span>
        <Badge tone={tone[run.state]}>
          {stateWords[run.state]}
          {run.state === 'failed' && run.exitCode !== null ? ` (exit ${run.exitCode})` : ''}
        </Badge>
        <code className="tree-run-cmd" title={what}>
          {what}
        </code>
        {action}
        <button className="link-btn small" onClick={() => setOpen(!shown)} aria-expanded={shown}>
          {shown ? 'Hide' : 'Output'}
        </button>
      </div>
      {run.memberChanged && run.memberChanged.length > 0 && (
        <div className="warn-inline small" data-testid={`${testId}-member-changed`}>
          {run.memberChanged.join(', ')} changed by a member since you last ran it
          {run.network === false
            ? `: it ran with the network off. ${label === 'Run' ? 'Run' : 'Set up'} again to give it the network.`
            : '.'}
        </div>
      )}
      {run.refused.length > 0 && (
        <div className="warn-inline small" data-testid={`${testId}-refused`}>
          Not copied: {run.refused.join('; ')}
        </div>
      )}
      {shown && (
        <pre className="tree-run-output" data-testid={`${testId}-output`}>
          {run.output || '(no output yet)'}
        </pre>
      )}
      {!run.sandboxed && <div className="muted small">Not sandboxed: no OS sandbox on this machine.</div>}
    </div>
  )
}
