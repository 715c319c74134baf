/**
 * The paged and by-id reads the renderer uses instead of whole lists (issue 12): tasks.page, reports.page,
 * tasks.getMany, reports.getMany, decisions.impact. Typed here so the stores read one shape.
 */
import type { Impact, ImpactReport, ImpactTask, Report, Task } from '../../../shared/schemas'
import type { ClientApi } from './bridge-client'

export interface TaskFilter {
  status?: Task['status'][]
  assigneeId?: string
  flagged?: boolean
  decisionId?: string
}

export interface ReportFilter {
  taskId?: string
  authorId?: string
  kind?: Report['kind']
  stale?: boolean
}

export interface Page<T> {
  items: T[]
  nextCursor: string | null
  total: number
}
export type ReportPage = Page<Report> & { staleTotal: number }

/** The compact impact of issue 12 (counts plus the first ~200 ids); older cores send the bare Impact. */
export type CompactImpact = Impact & {
  version?: number
  truncated?: boolean
  counts?: { tasks: number; needsAdjustment: number; needsReverification: number; acceptanceRevoked: number; reports: number; staleClaims: number; restoredClaims: number }
  reports: (ImpactReport & { restoredClaimIds?: string[] })[]
}
export interface ImpactPage {
  tasks: ImpactTask[]
  reports: (ImpactReport & { restoredClaimIds?: string[] })[]
  nextCursor: string | null
}

/** The most ids one getMany call takes. */
export const MANY_LIMIT = 500

// The paged methods are called by name through the one `call`; their shapes are the ones above.
type Loose = (method: string, params: unknown) => Promise<unknown>
const loose = (api: ClientApi): Loose => api.call as unknown as Loose

export function pageTasks(api: ClientApi, workspaceId: string, filter: TaskFilter, cursor: string | null, limit?: number): Promise<Page<Task>> {
  return loose(api)('tasks.page', { workspaceId, ...filter, ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) }) as Promise<Page<Task>>
}

export function pageReports(api: ClientApi, workspaceId: string, filter: ReportFilter, cursor: string | null, limit?: number): Promise<ReportPage> {
  return loose(api)('reports.page', { workspaceId, ...filter, ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) }) as Promise<ReportPage>
}

/** Rows by id, in calls of at most MANY_LIMIT ids (one call for any edit the UI has on screen). */
async function many<T>(api: ClientApi, method: 'tasks.getMany' | 'reports.getMany', ids: string[]): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < ids.length; i += MANY_LIMIT) out.push(...((await loose(api)(method, { ids: ids.slice(i, i + MANY_LIMIT) })) as T[]))
  return out
}
export const getTasks = (api: ClientApi, ids: string[]) => many<Task>(api, 'tasks.getMany', ids)
export const getReports = (api: ClientApi, ids: string[]) => many<Report>(api, 'reports.getMany', ids)

export function impactPage(api: ClientApi, decisionId: string, version: number, cursor: string | null): Promise<ImpactPage> {
  return loose(api)('decisions.impact', { decisionId, version, ...(cursor ? { cursor } : {}) }) as Promise<ImpactPage>
}
