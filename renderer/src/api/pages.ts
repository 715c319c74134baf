/**
 * The paged and by-id reads the renderer uses instead of whole lists (issue 12): tasks.page, reports.page,
 * tasks.getMany; the filters the list views name.
 */
import type { Params } from '../../../shared/contract'
import type { Impact, ReportPage, Task, TaskPage } from '../../../shared/schemas'
import type { ClientApi } from './bridge-client'

export type TaskFilter = Omit<Params<'tasks.page'>, 'workspaceId' | 'cursor' | 'limit'>
export type ReportFilter = Omit<Params<'reports.page'>, 'workspaceId' | 'cursor' | 'limit'>
export type { ReportPage }
/** The impact an edit's answer and its decision.changed event carry (counts plus the first items). */
export type CompactImpact = Impact

/** The most ids one getMany call takes. */
export const MANY_LIMIT = 500

const rest = (cursor: string | null, limit?: number) => ({ ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) })

export function pageTasks(
  api: ClientApi,
  workspaceId: string,
  filter: TaskFilter,
  cursor: string | null,
  limit?: number,
): Promise<TaskPage> {
  return api.call('tasks.page', { workspaceId, ...filter, ...rest(cursor, limit) })
}

export function pageReports(
  api: ClientApi,
  workspaceId: string,
  filter: ReportFilter,
  cursor: string | null,
  limit?: number,
): Promise<ReportPage> {
  return api.call('reports.page', { workspaceId, ...filter, ...rest(cursor, limit) })
}

/** Rows by id, in calls of at most MANY_LIMIT ids (one call for any edit the UI has on screen). */
export async function getTasks(api: ClientApi, ids: string[]): Promise<Task[]> {
  const out: Task[] = []
  for (let i = 0; i < ids.length; i += MANY_LIMIT)
    out.push(...(await api.call('tasks.getMany', { ids: ids.slice(i, i + MANY_LIMIT) })))
  return out
}
