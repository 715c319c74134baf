import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react'
import type { Task } from '../../../../shared/schemas'
import { canMove } from '../../../../shared/task-rules'
import { asClientError, refusalReasons, type RefusalReason } from '../../api/errors'
import { useApp } from '../../stores/app-store'

/** A move the core refused, shown on the card (which stays where it was). */
export interface MoveRefusal {
  to: Task['status']
  /** The core's error code (no_commit: the card offers the first commit). */
  code: string
  message: string
  reasons: RefusalReason[]
}

interface BoardMoves {
  /** Ask for a move: a delivery first asks for its artifact; everything else goes to the core, which decides. */
  request(task: Task, to: Task['status']): void
  /** Send the move now (a delivery with the artifact typed, or empty for the branch head). */
  perform(task: Task, to: Task['status'], artifact?: string): Promise<void>
  refusals: Record<string, MoveRefusal | undefined>
  dismiss(taskId: string): void
  delivering: string | null
  setDelivering(taskId: string | null): void
  pending: string | null
  /** The card being dragged, so columns can show whether they take it. */
  dragging: Task | null
  setDragging(task: Task | null): void
  /** A card moved from the keyboard keeps the focus in its new column. */
  focusAfter: { taskId: string; status: Task['status'] } | null
  setFocusAfter(f: { taskId: string; status: Task['status'] } | null): void
}

const Ctx = createContext<BoardMoves | null>(null)

export function useBoardMoves(): BoardMoves {
  const moves = useContext(Ctx)
  if (!moves) throw new Error('useBoardMoves outside BoardMovesProvider')
  return moves
}

/** A commit, branch or tag is resolved by the core; anything with a colon (sha256:…) is a content digest. */
function artifactParam(text: string | undefined) {
  const a = text?.trim()
  return a ? (a.includes(':') ? { digest: a } : { commit: a }) : undefined
}

export function BoardMovesProvider({ children }: { children: ReactNode }) {
  const api = useApp((s) => s.api)
  const applyTask = useApp((s) => s.applyTask)
  const [refusals, setRefusals] = useState<Record<string, MoveRefusal | undefined>>({})
  const [delivering, setDelivering] = useState<string | null>(null)
  const [pending, setPending] = useState<string | null>(null)
  const [dragging, setDragging] = useState<Task | null>(null)
  const [focusAfter, setFocusAfter] = useState<{ taskId: string; status: Task['status'] } | null>(null)

  const dismiss = useCallback((taskId: string) => setRefusals((r) => ({ ...r, [taskId]: undefined })), [])

  const perform = useCallback(
    async (task: Task, to: Task['status'], artifact?: string) => {
      dismiss(task.id)
      setPending(task.id)
      try {
        // Acceptance checks the evidence, so a drop on "accepted" is tasks.accept once delivered.
        if (to === 'accepted' && task.status === 'delivered')
          applyTask(await api.call('tasks.accept', { taskId: task.id }))
        else {
          const art = to === 'delivered' ? artifactParam(artifact) : undefined
          applyTask(
            await api.call('tasks.setStatus', { taskId: task.id, status: to, ...(art ? { artifact: art } : {}) }),
          )
        }
        setDelivering((d) => (d === task.id ? null : d))
      } catch (err) {
        const e = asClientError(err)
        setRefusals((r) => ({ ...r, [task.id]: { to, code: e.code, message: e.message, reasons: refusalReasons(e) } }))
      } finally {
        setPending((p) => (p === task.id ? null : p))
      }
    },
    [api, applyTask, dismiss],
  )

  const request = useCallback(
    (task: Task, to: Task['status']) => {
      if (to === task.status) return
      // Only an allowed delivery asks for the artifact; a refused one goes straight to the core for its message.
      if (to === 'delivered' && canMove(task.status, to)) {
        dismiss(task.id)
        setDelivering(task.id)
        return
      }
      void perform(task, to)
    },
    [perform, dismiss],
  )

  const value = useMemo(
    () => ({
      request,
      perform,
      refusals,
      dismiss,
      delivering,
      setDelivering,
      pending,
      dragging,
      setDragging,
      focusAfter,
      setFocusAfter,
    }),
    [request, perform, refusals, dismiss, delivering, pending, dragging, focusAfter],
  )
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>
}
