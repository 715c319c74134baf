/**
 * Zod schemas for every value that crosses a transport. Param objects are strict: an unknown
 * field is refused, so a typo (`expectedVerison`) is an error, not a silent no-op.
 */
export * from './schemas/decisions'
export * from './schemas/diffs'
export * from './schemas/inputs'
export * from './schemas/members'
export * from './schemas/money'
export * from './schemas/reports'
export * from './schemas/sessions'
export * from './schemas/tasks'
export * from './schemas/workspace'
export { SEARCH_MARK_END, SEARCH_MARK_START } from './search-marks'
