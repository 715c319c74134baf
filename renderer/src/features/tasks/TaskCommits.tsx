import type { Task } from '../../../../shared/schemas'
import './task-commits.css'

/** A commit on a task's card, named for what it is ("delivered 1a2b3c4d"), never a bare hash. */
function CommitLabel({ label, value, title, testId }: { label: string; value: string; title: string; testId: string }) {
  return (
    <span className="commit-label small" data-testid={testId} title={title}>
      <span className="commit-label-word">{label}</span> <code>{value}</code>
    </span>
  )
}

/** The artifact the task was delivered on: a commit (its evidence must have checked it) or a content digest. */
export function DeliveredCommit({ artifact }: { artifact: Task['artifact'] }) {
  if (!artifact?.commit && !artifact?.digest) return null
  return artifact.commit ? (
    <CommitLabel
      label="delivered"
      value={artifact.commit.slice(0, 8)}
      title={`Delivered commit ${artifact.commit}: what its reports check and what is accepted`}
      testId="task-delivered"
    />
  ) : (
    <CommitLabel
      label="delivered"
      value={artifact.digest!}
      title={`Delivered content digest ${artifact.digest}`}
      testId="task-delivered"
    />
  )
}

/** The branch's newest commit as last seen: ahead of the delivered one when work went on after delivery. */
export function BranchHead({ head }: { head: string | null }) {
  if (!head) return null
  return (
    <CommitLabel
      label="head"
      value={head.slice(0, 8)}
      title={`The branch's head ${head}, as Concord last saw it in the task's tree`}
      testId="task-head"
    />
  )
}
