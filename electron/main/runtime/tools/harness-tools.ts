/**
 * Tools through which a member reads and changes the harness. Each goes through the same validated
 * API as the UI, acting as the member (its authority applies), so an agent can never do what the
 * contract refuses. The tools by subject: member-tools.ts, decision-tools.ts, task-tools.ts, report-tools.ts.
 */
import { addDecisionTools } from './decision-tools'
import type { HarnessToolContext, HTool } from './harness-tool-kit'
import { addBriefTool, addMemberTools } from './member-tools'
import { addReportReadTools, addSubmitTools } from './report-tools'
import { addTaskTools } from './task-tools'

export { resolveRef, type HarnessToolContext } from './harness-tool-kit'

/* eslint-disable @typescript-eslint/no-explicit-any -- tools with different argument types in one list; each `run` only ever gets what its own `args` parsed */
export function harnessTools(): HTool<any>[] {
  const list: HTool<any>[] = []
  const add = <A>(t: HTool<A>, run: (a: A, ctx: HarnessToolContext) => Promise<string>) => {
    list.push({ ...t, run } as HTool<any>)
  }
  /* eslint-enable @typescript-eslint/no-explicit-any */
  addBriefTool(add)
  addDecisionTools(add)
  addTaskTools(add)
  addSubmitTools(add)
  addReportReadTools(add)
  addMemberTools(add)
  return list
}

/** Which harness tools a member may see, by authority. */
export function toolAllowed(name: string, authority: HarnessToolContext['authority']): boolean {
  if (name === 'update_decision') return authority === 'decider'
  if (name === 'propose_decision_change') return authority !== 'observer'
  return true
}
