import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SEARCH_MARK_END, SEARCH_MARK_START, type Member, type Workspace } from '../../shared/schemas'
import { openDatabase } from '../../electron/main/store/connection'
import { migrations } from '../../electron/main/store/migrations'
import { ftsQuery } from '../../electron/main/store/search-repo'
import { sessionState } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'
import { type ModelServer } from '../fixtures/model-server'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({ core: { provider: { maxRetries: 0 } } })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

const member = (name: string): Promise<Member> => t.member(name)

async function say(m: Member, text: string, reply: string) {
  server.enqueue({ text: reply })
  const done = sessionState(t.core, m.id, 'idle')
  await t.core.invoke('sessions.send', { memberId: m.id, text })
  await done
}

const search = (query: string, limit?: number) =>
  t.core.invoke('sessions.search', { workspaceId: ws.id, query, ...(limit ? { limit } : {}) })
const marked = (s: string) => s.replaceAll(SEARCH_MARK_START, '[').replaceAll(SEARCH_MARK_END, ']')

describe('sessions.search', () => {
  it("finds messages and replies across every member's session, newest first, with the match marked", async () => {
    const impl = await member('Impl')
    const tester = await member('Tester')
    await say(impl, 'Please add the retry timeout to the fetcher', 'Added a timeout of 5 seconds to the fetcher.')
    await say(tester, 'Check the timeout handling in the search page', 'The timeout handling works.')
    const hits = await search('timeout')
    expect(hits.map((h) => h.memberId)).toEqual([tester.id, tester.id, impl.id, impl.id])
    expect(hits.map((h) => h.kind)).toEqual(['model', 'user', 'model', 'user'])
    // Newest first: step ids descend.
    const seqs = hits.map((h) => Number(/s(\d+)$/.exec(h.stepId)![1]))
    expect([...seqs].sort((a, b) => b - a)).toEqual(seqs)
    expect(marked(hits[0]!.snippet)).toBe('The [timeout] handling works.')
    // Words all match, the last as a prefix (results while typing).
    expect((await search('fetcher time')).map((h) => h.memberId)).toEqual([impl.id, impl.id])
    expect(marked((await search('seco'))[0]!.snippet)).toContain('[seconds]')
    expect(await search('nothing-like-this')).toEqual([])
    expect(await search('timeout', 1)).toHaveLength(1)
    // The step a hit names is the one sessions.get returns (the jump target).
    const page = await t.core.invoke('sessions.get', { memberId: impl.id })
    expect(page.steps.find((s) => s.id === hits[2]!.stepId)?.text).toBe('Added a timeout of 5 seconds to the fetcher.')
  })

  it('treats hostile queries as plain text: quotes, operators, stars, colons and brackets never raise an SQL error', async () => {
    const m = await member('Impl')
    await say(m, 'NOT a "quoted" value: AND/OR text* (with) col:umn ^start', 'ok')
    const hostile = [
      '"',
      '""',
      '"unbalanced',
      'AND',
      'OR',
      'NOT',
      'a AND',
      'NEAR(a b)',
      '*',
      'text*',
      ':',
      'col:umn',
      'text:value',
      '^start',
      '(',
      ')',
      '-',
      '+',
      '{a b}',
      "'; DROP TABLE steps; --",
      '\\',
      '  ',
      '',
      'NOT "quoted"',
    ]
    for (const q of hostile) {
      await expect(search(q), q).resolves.toBeInstanceOf(Array)
    }
    // Operators are words here, not syntax.
    expect((await search('AND')).length).toBe(1)
    expect((await search('NOT "quoted"')).length).toBe(1)
    expect((await search('col:umn')).length).toBe(1)
    expect(ftsQuery('a "b" c')).toBe('"a" """b""" "c"*')
    expect(ftsQuery(' * : " ')).toBeNull()
  })

  it('makes a streamed reply searchable once it is final, not while it streams', async () => {
    const m = await member('Impl')
    // The reply streams in small pieces; it is searchable when the step is done.
    server.enqueue({ text: 'Streaming answer about the zeppelin rollout plan', chunkSize: 3 })
    const done = sessionState(t.core, m.id, 'idle')
    await t.core.invoke('sessions.send', { memberId: m.id, text: 'status?' })
    await done
    const hits = await search('zeppelin')
    expect(hits).toHaveLength(1)
    expect(hits[0]!.kind).toBe('model')
    const store = t.core.harness.ctx(ws.id).store
    const stepRow = Number(/s(\d+)$/.exec(hits[0]!.stepId)![1])
    // A step going back to streaming leaves the index; its final text comes back in.
    store.db.prepare("UPDATE steps SET status = 'streaming', text = 'zeppelin partial' WHERE id = ?").run(stepRow)
    expect(await search('zeppelin')).toEqual([])
    store.db.prepare("UPDATE steps SET status = 'done', text = 'final airship text' WHERE id = ?").run(stepRow)
    expect(await search('zeppelin')).toEqual([])
    expect((await search('airship')).map((h) => h.stepId)).toEqual([hits[0]!.stepId])
    // The index matches its content table exactly (an external-content index that drifted fails this).
    expect(() =>
      store.db.prepare("INSERT INTO steps_fts (steps_fts, rank) VALUES ('integrity-check', 1)").run(),
    ).not.toThrow()
  })

  it('leaves out archived members and earlier conversations (neither can be opened)', async () => {
    const a = await member('Alpha')
    const b = await member('Beta')
    await say(a, 'walrus one', 'fine')
    await say(b, 'walrus two', 'fine')
    expect(await search('walrus')).toHaveLength(2)
    await t.core.invoke('members.archive', { memberId: b.id })
    expect((await search('walrus')).map((h) => h.memberId)).toEqual([a.id])
    await t.core.invoke('members.restore', { memberId: b.id })
    await t.core.invoke('sessions.reset', { memberId: a.id })
    expect((await search('walrus')).map((h) => h.memberId)).toEqual([b.id])
  })
})

describe('migration 010 (search)', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'concord-fts-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('backfills the steps of a database created at schema 8; streaming steps and tool output stay out', () => {
    const file = join(dir, 'v8.sqlite')
    const v8 = openDatabase(file, { migrations: migrations.slice(0, 8) })
    v8.prepare(
      "INSERT INTO members (name, role, authority, created_at, updated_at) VALUES ('Ann', 'lead', 'decider', 'x', 'x')",
    ).run()
    const step = v8.prepare("INSERT INTO steps (member_id, kind, status, text, started_at) VALUES (1, ?, ?, ?, 'x')")
    step.run('user', 'done', 'backfilled pelican question')
    step.run('model', 'done', 'a pelican answer')
    step.run('model', 'streaming', 'pelican still streaming')
    step.run('tool', 'done', 'pelican in a file listing')
    v8.close()
    const db = openDatabase(file)
    const ids = db.prepare("SELECT rowid FROM steps_fts WHERE steps_fts MATCH 'pelican' ORDER BY rowid").pluck().all()
    expect(ids).toEqual([1, 2])
    // New steps are indexed by the triggers.
    db.prepare(
      "INSERT INTO steps (member_id, kind, status, text, started_at) VALUES (1, 'message', 'queued', 'pelican later', 'x')",
    ).run()
    expect(db.prepare("SELECT count(*) FROM steps_fts WHERE steps_fts MATCH 'pelican'").pluck().get()).toBe(3)
    db.prepare("INSERT INTO steps_fts (steps_fts, rank) VALUES ('integrity-check', 1)").run()
    db.close()
  })

  it('rebuilds the index of a file at schema 15 with prefix indexes (016): the same hits, by prefix too, kept by the triggers', () => {
    const file = join(dir, 'v15.sqlite')
    const v15 = openDatabase(file, { migrations: migrations.slice(0, 15) })
    v15
      .prepare(
        "INSERT INTO members (name, role, authority, created_at, updated_at) VALUES ('Ann', 'lead', 'decider', 'x', 'x')",
      )
      .run()
    const step = v15.prepare("INSERT INTO steps (member_id, kind, status, text, started_at) VALUES (1, ?, ?, ?, 'x')")
    step.run('user', 'done', 'the pelican module')
    step.run('model', 'done', 'Pélican modules answered')
    step.run('tool', 'done', 'pelican in a file listing')
    v15.close()
    const db = openDatabase(file)
    // Prefixes of 1 to 6 characters read a posting list of their own instead of merging every word's.
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'steps_fts'").pluck().get()).toContain(
      "prefix = '1 2 3 4 5 6'",
    )
    const hits = (q: string) =>
      db.prepare('SELECT rowid FROM steps_fts WHERE steps_fts MATCH ? ORDER BY rowid DESC').pluck().all(q)
    for (const q of ['"p"*', '"pe"*', '"pelic"*', '"pelica"*', '"pelican"*', '"pelican"', '"modul"*'])
      expect({ q, ids: hits(q) }).toEqual({ q, ids: [2, 1] })
    expect(hits('"module"')).toEqual([1])
    db.prepare("UPDATE steps SET text = 'no bird here' WHERE id = 1").run()
    db.prepare(
      "INSERT INTO steps (member_id, kind, status, text, started_at) VALUES (1, 'message', 'queued', 'pelicans later', 'x')",
    ).run()
    expect(hits('"peli"*')).toEqual([4, 2])
    db.prepare("INSERT INTO steps_fts (steps_fts, rank) VALUES ('integrity-check', 1)").run()
    db.close()
  })
})
