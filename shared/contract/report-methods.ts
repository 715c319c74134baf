/** The contract's methods for reports, the notices members were sent, the figures and automatic turns. */
import { z } from 'zod'
import * as s from '../schemas'
import { method, r, ws, page } from './method'

export const reportMethods = {
  'reports.submit': method(
    z.strictObject({
      taskId: s.Id,
      authorId: s.Id.optional(),
      kind: s.ReportKind,
      verdict: s.Verdict,
      summary: z.string().max(50_000).optional(),
      artifact: s.Artifact,
      basis: z
        .array(z.strictObject({ decisionId: s.Id, version: z.number().int().min(1) }))
        .max(200)
        .optional(),
      claims: z
        .array(
          z.strictObject({
            text: z.string().trim().min(1).max(5_000),
            decisionIds: z.array(s.Id).max(50),
            /** Whether this behaviour held; omitted, the report's verdict. */
            verdict: s.Verdict.optional(),
          }),
        )
        .max(500),
    }),
    r<s.Report>(),
  ),
  'reports.get': method(z.strictObject({ reportId: s.Id }), r<s.Report>()),
  'reports.list': method(
    z
      .strictObject({ taskId: s.Id.optional(), workspaceId: s.Id.optional() })
      .refine((p) => p.taskId || p.workspaceId, 'needs taskId or workspaceId'),
    r<s.Report[]>(),
  ),

  /** Reports by id, in the order given; unknown ids are left out (ids of several workspaces: each must exist). */
  'reports.getMany': method(z.strictObject({ ids: z.array(s.Id).min(1).max(500) }), r<s.Report[]>()),
  /** Reports page by page, newest first, filtered here. `stale`: has a stale claim or a suspect basis. */
  'reports.page': method(
    z.strictObject({
      ...ws,
      taskId: s.Id.optional(),
      authorId: s.Id.optional(),
      kind: s.ReportKind.optional(),
      stale: z.boolean().optional(),
      ...page,
    }),
    r<s.ReportPage>(),
  ),

  'notices.list': method(z.strictObject({ memberId: s.Id, pending: z.boolean().optional() }), r<s.Notice[]>()),
  'metrics.get': method(z.strictObject({ ...ws }), r<s.Metrics>()),
  // The items behind the Figures tiles "notices sent" and "relays you did not have to make" (issue 13).
  /** Every notice of the workspace, newest first, with the step that delivered it. */
  'notices.sent': method(
    z.strictObject({
      ...ws,
      ...page,
    }),
    r<s.SentNoticePage>(),
  ),
  /** The turns Concord started itself, newest first: as many as the figure counts. */
  'autoTurns.list': method(
    z.strictObject({
      ...ws,
      ...page,
    }),
    r<s.AutoTurnPage>(),
  ),
  'events.list': method(
    z.strictObject({
      ...ws,
      after: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    r<s.HarnessEvent[]>(),
  ),
} as const
