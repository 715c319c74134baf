/** A member's session: its steps, turns undone, mentions, and the turns Concord started itself. */
import type { StepKindValue, StepStatusValue } from '../enums'
import type { SessionErrorCode } from '../session-errors'
import type { TurnChange } from './diffs'
import type { MemberState } from './inputs'
import type { Task } from './tasks'
import type { z } from 'zod'

export type StepKind = StepKindValue

export type StepStatus = StepStatusValue

export interface StepToolCall {
  id: string
  name: string
  argumentsText: string
}

/**
 * One structured step of a member's session. `user`: the human's message; `message`: a message from
 * another member (fromMemberId); `model`: one model reply (text + toolCalls + usage); `tool`: one tool
 * call's execution and observation; `notice`: a decision-change notice injected into the context;
 * `error` / `interrupted`: how a turn ended abnormally; `plan`: a planning step.
 */
export interface Step {
  id: string
  seq: number
  memberId: string
  turnId: string
  kind: StepKind
  status: StepStatus
  text: string
  toolCalls: StepToolCall[]
  /** callId: this step's id, used for approvals; toolCallId: the model's own id for the call (matches model.toolCalls[].id). */
  tool: { callId: string; toolCallId: string; name: string; argumentsText: string; isError: boolean } | null
  fromMemberId: string | null
  taskId: string | null
  usage: { input: number; output: number } | null
  /** On the last step of a turn: the files the turn changed in its tree. */
  changes: TurnChange[] | null
  /** 'concord': a turn Concord started itself (a flag or stale evidence), no one typed it. */
  origin?: 'concord' | null
  /** What its text mentioned, pinned when the text was stored; empty on steps from before pins existed. */
  refs: StepRef[]
  /**
   * On a turn's first step, for a turn that ran in its task's tree: the commit the tree was at before it (what
   * sessions.undoTurn puts back), and once undone, when and where what was there then is kept.
   */
  checkpoint?: { commit: string; undone: StepUndone | null } | null
  /** How many images the message carries (sessions.image reads each); absent when none. */
  images?: number
  startedAt: string
  endedAt: string | null
}

/** A turn undone: the tree is back at `commit`; what it held at the undo is the commit `keptCommit` at `keptRef` in the task's tree. */
export interface StepUndone {
  at: string
  commit: string
  keptRef: string
  keptCommit: string
}

/** sessions.undoTurn's answer. */
export interface UndoneTurn {
  turnId: string
  taskId: string
  /** The commit the tree is back at, and the one it was at before the undo. */
  commit: string
  from: string
  /** What the tree held at the undo, committed on `from`, in the task's tree (`tree`) under this ref. */
  keptRef: string
  keptCommit: string
  tree: string
  /** The tree is byte for byte what it was before the turn (files git ignores are left as they are). */
  exact: boolean
  /** The commits the undo took off the task's branch. */
  commitsUndone: string[]
  task: Task
}

/** A mention pinned with its step: the record's key and id, and for a decision the version it had then. */
export interface StepRef {
  key: string
  kind: 'decision' | 'task' | 'report'
  id: string
  version?: number
}

export interface SessionInfo {
  memberId: string
  state: z.infer<typeof MemberState>
  error: string | null
  /** The stable code of `error` (null when there is none). */
  errorCode: SessionErrorCode | null
  queued: number
  /**
   * Calls waiting for the human. `why`: why this one asks under the member's policy; `suggestion`: the rule
   * "Always allow" would make (a command prefix, else the tool), or `noRule`: why it offers none (a command Concord
   * cannot take apart with confidence, a shell, `env`, an interpreter with code).
   */
  pendingApprovals: {
    callId: string
    name: string
    argumentsText: string
    why?: string
    suggestion?: { tool: string; commandPrefix?: string; noRule?: string }
    /** A write_file's target file as it is now, to show the change against it; null: the write creates it. */
    current?: string | null
  }[]
  pendingNotices: number
  /** The member asked the human this (ask_human) and no message from the human has followed yet. */
  question: { stepId: string; text: string } | null
}

export interface SessionPage extends SessionInfo {
  steps: Step[]
  /** True when older steps exist before the first one returned (page with `before`). */
  hasMore: boolean
}

/** What made Concord start a turn: a flagged task after a decision changed, or a report a delivery left stale. */
export type AutoTurnCause = 'task_flagged' | 'evidence_stale' | 'other'

/** A turn Concord started itself instead of a person relaying the change. */
export interface AutoTurn {
  memberId: string
  taskId: string | null
  taskKey: string | null
  cause: AutoTurnCause
  /** The trigger in words (e.g. "T-2 was flagged when D-1 changed to v3"). */
  trigger: string
  createdAt: string
  /** The step that started the turn; turns that joined one still queued share it. */
  stepId: string
}

/** One page of autoTurns.list, newest first. `total`: every turn Concord started (the figure). */
export interface AutoTurnPage {
  items: AutoTurn[]
  nextCursor: string | null
  total: number
}
