/** The contract's methods for members' sessions: messages, turns, approvals, undo. */
import { z } from 'zod'
import * as s from '../schemas'
import { method, noNul, r, ws } from './method'
import { base64Length, maxImageBytes, maxImagesPerMessage, type ImageMediaType } from '../images'

export const sessionMethods = {
  /**
   * `images`: screenshots with the message (PNG, JPEG, GIF, WebP; base64), kept with its step. One that is not of
   * those types or whose bytes are not of the type it names is refused with image_unsupported; too many or too large
   * (shared/images.ts) with payload_too_large. Nothing is stored then. `text` may be empty when images go.
   */
  'sessions.send': method(
    z
      .strictObject({
        memberId: s.Id,
        text: z.string().trim().max(100_000),
        taskId: s.Id.optional(),
        images: z
          .array(
            z.strictObject({ mediaType: z.string().max(100), data: z.string().max(2 * base64Length(maxImageBytes)) }),
          )
          .max(4 * maxImagesPerMessage)
          .optional(),
      })
      // A screenshot alone is a message; without images the text is the message.
      .refine((p) => p.text.length > 0 || !!p.images?.length, { path: ['text'], message: 'must not be empty' }),
    r<{ stepId: string; queued: number }>(),
  ),
  /** One image a step carries (index from 0, in the order sent), its bytes in base64. */
  'sessions.image': method(
    z.strictObject({ stepId: s.Id, index: z.number().int().min(0).max(100) }),
    r<{ mediaType: ImageMediaType; data: string }>(),
  ),
  /** `taskId`: only the turns on that task (all of them: earlier conversations too), e.g. the turns of T-2. */
  'sessions.get': method(
    z.strictObject({
      memberId: s.Id,
      taskId: s.Id.optional(),
      before: z.number().int().min(1).optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
    r<s.SessionPage>(),
  ),
  'sessions.list': method(z.strictObject({ ...ws }), r<s.SessionInfo[]>()),
  'sessions.interrupt': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
  /** A new conversation for the member (a poisoned history keeps failing); old steps stay in the store and the export. */
  'sessions.reset': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
  /** Restarts a member after an error: its agent process (ACP members) is stopped, the error cleared, the queue resumed. */
  'sessions.restart': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
  'sessions.changes': method(z.strictObject({ stepId: s.Id }), r<s.TaskDiff>()),
  /**
   * Undoes a turn that ran in its task's tree (stepId: the turn's first step): the tree goes back to where it was before
   * it, what is there now is kept aside in the tree (keptRef), the turn is marked undone and its member told at its
   * next turn. Only the latest turn in force in that tree; not while the member is in a turn (busy).
   */
  'sessions.undoTurn': method(z.strictObject({ stepId: s.Id }), r<s.UndoneTurn>()),
  'sessions.approve': method(
    z.strictObject({
      memberId: s.Id,
      callId: z.string().min(1).max(200),
      allow: z.boolean(),
      reason: z.string().max(2_000).optional(),
    }),
    r<s.SessionInfo>(),
  ),
  /**
   * Answers a waiting call with Allow and adds the rule it suggests (or `rule`) for the member or the team, so
   * the same kind of call runs without asking from now on. A call that suggests no rule (`suggestion.noRule`) is
   * refused with invalid_params unless `rule` is given; it still waits.
   */
  'sessions.allowAlways': method(
    z.strictObject({
      memberId: s.Id,
      callId: z.string().min(1).max(200),
      scope: z.enum(['member', 'team']),
      rule: s.ApprovalRuleInput.optional(),
    }),
    r<{ session: s.SessionInfo; rule: s.ApprovalRule }>(),
  ),
  /** Full-text search over every member's session, newest first; the query is plain text (no query syntax). */
  'sessions.search': method(
    z.strictObject({ ...ws, query: noNul(z.string().max(500)), limit: z.number().int().min(1).max(200).optional() }),
    r<s.SearchHit[]>(),
  ),
  /** Runs a failed turn again: the message that started it is queued anew (first in line) and the member resumes. */
  'sessions.retry': method(z.strictObject({ memberId: s.Id }), r<s.SessionInfo>()),
} as const
