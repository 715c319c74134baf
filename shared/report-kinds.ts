/**
 * The kinds of report a task can require and a member can submit, in this order: the one list, validated by
 * schemas.ts's ReportKind and offered by the task form (kept free of zod so the renderer can import it).
 */
export const reportKinds = ['implementation', 'test', 'review'] as const
