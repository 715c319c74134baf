/**
 * search.records (issue 31: "R-6 gives No message matches; Search timeout finds notices but not D-1, T-1 or a
 * report"): decisions, tasks and reports found by key and by text, with marked snippets, kept current through
 * edits by the indexes' triggers, and read through the indexes (never a scan of the records' tables).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SEARCH_MARK_END, SEARCH_MARK_START, type Decision, type Task } from '../../shared/schemas'
import { traceStatements } from '../../bench/sql-trace'
import { searchTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let d: Decision
let task: Task

const search = (query: string, limit?: number) =>
  t.core.invoke('search.records', { workspaceId: t.ws.id, query, ...(limit ? { limit } : {}) })
const marked = (s: string) => s.replaceAll(SEARCH_MARK_START, '[').replaceAll(SEARCH_MARK_END, ']')
/** The hits as `key field: snippet`, marks shown as brackets. */
const shown = async (query: string) =>
  (await search(query)).map((h) => `${h.key} ${h.field}${h.version ? ` v${h.version}` : ''}: ${marked(h.snippet)}`)

const report = (summary: string, claims: string[]) =>
  t.core.invoke('reports.submit', {
    taskId: task.id,
    kind: 'test',
    verdict: 'pass',
    summary,
    artifact: { commit: 'a'.repeat(40) },
    claims: claims.map((text) => ({ text, decisionIds: [d.id] })),
  })

beforeEach(async () => {
  t = await openWorkspace()
  const impl = await t.core.invoke('members.create', { workspaceId: t.ws.id, name: 'Impl', role: 'implementer' })
  // D-1 "Search timeout", T-1 "Web search tool" on it.
  ;({ d, task } = await searchTask(t.core, t.ws.id, impl, {
    spec: 'Call the provider and stop waiting when the limit passes.',
    acceptanceCriteria: 'A hung provider returns an empty result.',
  }))
})
afterEach(() => t.cleanup())

describe('search.records', () => {
  it('finds a decision, a task and a report by key, in any case, with the keyed record first', async () => {
    for (let i = 1; i <= 6; i++) await report(`Run ${i} of the suite`, [`claim ${i}`])
    const r6 = await search('R-6')
    expect(r6[0]).toMatchObject({
      kind: 'report',
      key: 'R-6',
      field: 'key',
      title: 'test of T-1',
      status: 'pass',
    })
    expect(r6[0]!.taskId).toBe(task.id)
    expect((await search('d-1'))[0]).toMatchObject({
      kind: 'decision',
      id: d.id,
      field: 'key',
      title: 'Search timeout',
    })
    expect((await search('T-1'))[0]).toMatchObject({
      kind: 'task',
      id: task.id,
      field: 'key',
      title: 'Web search tool',
    })
    // A key that names nothing finds nothing by key.
    expect((await search('R-60')).filter((h) => h.field === 'key')).toEqual([])
  })

  it('finds every kind by its text: titles, statements, specs, acceptance criteria, summaries and claims', async () => {
    await report('The timeout holds on a slow network', ['Gives up after 5 s'])
    await report('Nothing about it', ['A hung search returns nothing after the timeout'])
    expect(await shown('Search timeout')).toEqual([
      'D-1 title: [Search] [timeout]',
      'R-2 claim: A hung [search] returns nothing after the [timeout]',
    ])
    expect(await shown('timeout')).toEqual([
      'D-1 title: Search [timeout]',
      'R-2 claim: A hung search returns nothing after the [timeout]',
      'R-1 summary: The [timeout] holds on a slow network',
    ])
    expect(await shown('gives up')).toEqual([
      'D-1 statement: Web search [gives] [up] after 5 s',
      'R-1 claim: [Gives] [up] after 5 s',
    ])
    expect(await shown('waiting')).toEqual(['T-1 spec: Call the provider and stop [waiting] when the limit passes.'])
    expect(await shown('hung prov')).toEqual(['T-1 acceptance: A [hung] [provider] returns an empty result.'])
    // The last word matches as a prefix (results while typing); every word must match.
    expect(await shown('web sea')).toEqual([
      'D-1 statement: [Web] [search] gives up after 5 s',
      'T-1 title: [Web] [search] tool',
    ])
    expect(await shown('web nothing-like-this')).toEqual([])
    // Query syntax is text.
    for (const q of ['"', 'NOT', 'title:x', 'NEAR(a b)', '*', '(']) expect(await search(q)).toBeInstanceOf(Array)
    expect((await search('timeout', 1)).map((h) => h.key)).toEqual(['D-1', 'R-2'])
  })

  it("an edited decision is found by its new text, and by its old text in its history; an edited task's old text is gone", async () => {
    const edited = await t.core.invoke('decisions.update', {
      decisionId: d.id,
      expectedVersion: 1,
      statement: 'Web search returns partial results after 10 s',
      reason: 'slow providers',
    })
    expect(edited.decision.version).toBe(2)
    expect(await shown('partial')).toEqual(['D-1 statement: Web search returns [partial] results after 10 s'])
    expect(await shown('gives up')).toEqual([
      'D-1 history v1: Search timeout — Web search [gives] [up] after 5 s — created',
    ])
    expect(await shown('slow provid')).toEqual([
      'D-1 history v2: Search timeout — Web search returns partial results after 10 s — [slow] [providers]',
    ])
    await t.core.invoke('tasks.update', { taskId: task.id, title: 'Fetch tool', spec: 'Fetch pages' })
    expect(await shown('waiting')).toEqual([])
    expect(await shown('fetch')).toEqual(['T-1 title: [Fetch] tool'])
    // The indexes hold exactly the records' text after the edits (FTS5's own check against the tables).
    const { db } = t.core.harness.ctx(t.ws.id).store
    for (const x of ['decisions_fts', 'tasks_fts', 'reports_fts', 'claims_fts', 'revisions_fts'])
      db.prepare(`INSERT INTO ${x} (${x}) VALUES ('integrity-check')`).run()
    // An archived task leaves the results, as it leaves the lists.
    await t.core.invoke('tasks.archive', { taskId: task.id })
    expect(await shown('fetch')).toEqual([])
    expect(await search('T-1')).toEqual([])
  })

  it('reads through the indexes: no statement scans the decisions, tasks, reports or claims', async () => {
    for (let i = 0; i < 30; i++) await report(`Run ${i}: the timeout holds`, [`timeout claim ${i}`, 'other'])
    const { db } = t.core.harness.ctx(t.ws.id).store
    const { calls } = await traceStatements(db, () => search('timeout'))
    expect(calls.length).toBeGreaterThan(0)
    for (const c of calls) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${c.sql}`)
        .all(...(c.args as never[]))
        .map((r) => (r as { detail: string }).detail)
      // A virtual table's "SCAN x_fts VIRTUAL TABLE INDEX …" is the full-text index answering the MATCH.
      expect(plan.filter((p) => /^SCAN (?!\w+_fts VIRTUAL TABLE)/.test(p))).toEqual([])
    }
  })
})
