/**
 * The store's rows as the floors above the harness see them (the runtime, the faces): they reach the store only
 * through the harness, its ctx and these types, never by importing it (the layer rule runtime-not-store).
 */
export type { BaseCheckRow, BaseOverlap } from '../store/base-repo'
export type { DecisionRow } from '../store/decisions-repo'
export type { NoticeRow } from '../store/log-repo'
export type { MemberRow } from '../store/members-repo'
export type { NewStep, StepRow, StepsRepo } from '../store/steps-repo'
export type { StepImageRow } from '../store/step-images-repo'
export type { TaskRow } from '../store/tasks-repo'
export { parseCheckpoint, parseUndone } from '../store/turn-undo-repo'
export type { WorkspaceStore } from '../store/workspace-store'
