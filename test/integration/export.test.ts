import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Core } from '../../electron/main/core'
import { createCore } from '../../electron/main/core'
import { TransferRepo } from '../../electron/main/store/transfer-repo'
import { startBridge } from '../../electron/main/transport/bridge'
import type { Decision, Member, Task, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { deliverTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

const SHA = 'c'.repeat(40)
const API_KEY = 'sk-live-TOPSECRET-key-0001'
const URL_PASSWORD = 'pw-TOPSECRET-0002'
const BRIDGE_TOKEN = 'tok-TOPSECRET-bridge-0003'

let t: OpenWorkspace
let core: Core
let ws: Workspace
let lead: Member, impl: Member, tester: Member
let auth: Decision, storage: Decision, tokens: Decision, cache: Decision
let login: Task

/**
 * A workspace with every kind of history: D-1 superseded by D-3, D-2 revised normatively and then
 * fixed editorially, D-4 proposed by a proposer and accepted through a proposal, a pending proposal
 * on D-3, a delivered task flagged for re-verification and a report with a stale claim.
 */
beforeEach(async () => {
  t = await openWorkspace({ name: 'Shop' })
  ;({ core, ws } = t)
  lead = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Lead',
    role: 'lead',
    authority: 'decider',
    provider: {
      kind: 'openai',
      model: 'gpt-x',
      apiKey: API_KEY,
      baseURL: `https://alice:${URL_PASSWORD}@llm.example.com/v1`,
    },
  })
  impl = await core.invoke('members.create', { workspaceId: ws.id, name: 'Impl', role: 'implementer' })
  tester = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })

  auth = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Session auth',
    statement: 'Use server sessions with cookies.',
    rationale: 'One server, simple.',
    actorId: lead.id,
  })
  storage = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Storage',
    statement: 'Store orders in SQLite.',
  })
  login = await core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Login form',
    assigneeId: impl.id,
    decisionIds: [auth.id, storage.id],
  })
  await deliverTask(core, login, SHA)
  await core.invoke('reports.submit', {
    taskId: login.id,
    authorId: tester.id,
    kind: 'test',
    verdict: 'pass',
    artifact: { commit: SHA },
    claims: [
      { text: 'login works', decisionIds: [auth.id] },
      { text: 'orders persist | survive restart', decisionIds: [storage.id] },
    ],
  })
  storage = (
    await core.invoke('decisions.update', {
      decisionId: storage.id,
      expectedVersion: 1,
      statement: 'Store orders in SQLite in WAL mode.',
      reason: 'concurrent readers',
      actorId: lead.id,
    })
  ).decision
  storage = (
    await core.invoke('decisions.update', {
      decisionId: storage.id,
      expectedVersion: 2,
      statement: 'Store orders in SQLite, in WAL mode.',
      reason: 'typo',
      editorial: true,
    })
  ).decision
  tokens = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Token auth (JWT)',
    statement: 'Use JWT bearer tokens.',
    rationale: 'Mobile clients.\n\nNo sticky sessions.',
    supersedes: auth.id,
    actorId: lead.id,
  })
  await core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Issue tokens',
    assigneeId: impl.id,
    decisionIds: [tokens.id],
    blockedBy: [login.id],
  })
  cache = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Cache',
    statement: 'Cache product pages for 60 s.',
    actorId: impl.id,
  })
  const p1 = await core.invoke('proposals.create', {
    decisionId: cache.id,
    status: 'accepted',
    reason: 'agreed in standup',
    actorId: impl.id,
  })
  await core.invoke('proposals.accept', { proposalId: p1.id, actorId: lead.id })
  await core.invoke('proposals.create', {
    decisionId: tokens.id,
    statement: 'Use JWT bearer tokens signed with ES256.',
    reason: 'smaller keys',
    actorId: impl.id,
  })
  ;[auth, storage, tokens, cache] = (await Promise.all(
    [auth, storage, tokens, cache].map((d) => core.invoke('decisions.get', { decisionId: d.id })),
  )) as [Decision, Decision, Decision, Decision]
})
afterEach(() => t.cleanup())

const exportAs = (format: 'madr' | 'markdown' | 'json', outDir?: string) =>
  core.invoke('export.decisionLog', { workspaceId: ws.id, format, ...(outDir ? { outDir } : {}) })

/** The front matter of a MADR file: scalars and `- item` lists (`[]` when empty), quoted strings decoded, comments skipped. */
function frontMatter(text: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text)
  if (!m) throw new Error('no front matter')
  const out: Record<string, unknown> = {}
  let last = ''
  const value = (v: string) => (v.startsWith('"') ? JSON.parse(v) : v === '[]' ? [] : /^\d+$/.test(v) ? Number(v) : v)
  for (const line of m[1]!.split('\n').filter((l) => !l.startsWith('#'))) {
    const item = /^ {2}- (.*)$/.exec(line)
    if (item) (out[last] as unknown[]).push(value(item[1]!))
    else {
      const kv = /^([\w-]+):(?: (.*))?$/.exec(line)!
      last = kv[1]!
      out[last] = kv[2] === undefined ? [] : value(kv[2])
    }
  }
  return out
}

/** The body lines of one `## heading` section up to the next heading of the same level. */
function section(text: string, heading: string): string {
  const level = heading.match(/^#+/)![0]
  const start = text.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`no section ${heading}`)
  const rest = text.slice(start + heading.length + 2)
  const end = rest.search(new RegExp(`\\n${level} `))
  return (end < 0 ? rest : rest.slice(0, end)).trim()
}

/** The rows of the first Markdown table in `text`, as arrays of trimmed cells. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n').filter((l) => l.startsWith('| '))
  return lines.slice(2).map((l) =>
    l
      .slice(2, -2)
      .split(/ (?<!\\)\| /)
      .map((c) => c.trim()),
  )
}

/** The files name the human as git does in the repository (made one after the set-up: the workspace stays shared). */
function nameTheHuman(name: string): void {
  execFileSync('git', ['init', '-q'], { cwd: t.repoDir })
  execFileSync('git', ['config', 'user.name', name], { cwd: t.repoDir })
}

function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? allFiles(join(dir, e.name)) : [join(dir, e.name)],
  )
}

describe('madr export', () => {
  it('writes one MADR 4 file per decision into docs/decisions, checked field by field', async () => {
    nameTheHuman('Concord Test')
    const result = await exportAs('madr')
    const dir = join(ws.repoPath, 'docs', 'decisions')
    const files = ['0001-session-auth.md', '0002-storage.md', '0003-token-auth-jwt.md', '0004-cache.md'].map((f) =>
      join(dir, f),
    )
    expect(result).toEqual({
      format: 'madr',
      outDir: dir,
      folder: 'docs/decisions',
      files,
      changed: files,
      removed: [],
      dryRun: false,
    })
    const [d1, d2, d3, d4] = result.files.map((f) => readFileSync(f, 'utf8'))

    // D-1: superseded by D-3 (ADR-0003). MADR 4's status, its three lists of people, then Concord's keys.
    expect(frontMatter(d1!)).toEqual({
      status: 'superseded by ADR-0003',
      date: auth.updatedAt.slice(0, 10),
      'decision-makers': ['Lead (lead)'],
      consulted: ['Tess (tester)'],
      informed: ['Impl (implementer)'],
      id: 'D-1',
      version: 2,
      fingerprint: auth.fingerprint,
      generator: 'Concord',
      provenance: expect.stringMatching(/^Generated by Concord from D-1 v2 as ADR-0001 \(sha256:[0-9a-f]{16}\)\. /),
    })
    // Where the file came from is a YAML key: no `# ` line before the title (madr-tools' index takes the first).
    expect(d1!.split('\n').find((l) => l.startsWith('# '))).toBe('# Session auth')
    expect(d1).toContain('\n---\n# Session auth\n')
    expect(section(d1!, '## Context and Problem Statement')).toBe('One server, simple.')
    // No other statement was ever proposed: no "Considered Options" that would only repeat the title.
    expect(d1).not.toContain('## Considered Options')
    expect(section(d1!, '## Decision Outcome')).toBe(
      'Superseded by ADR-0003: no longer in force.\n\nUse server sessions with cookies.\n\n### Consequences\n\n' +
        '* T-1 “Login form” depends on this decision: delivered, needs re-verification; assigned to Impl (implementer); built on v1, changed since.',
    )
    expect(section(d1!, '## More Information')).toMatch(
      /^Superseded by \[ADR-0003\]\(0003-token-auth-jwt\.md\) “Token auth \(JWT\)”\.\n\nRecorded in Concord as D-1 \(ADR-0001\), /,
    )
    expect(tableRows(section(d1!, '### Revision history'))).toEqual([
      [
        'v2',
        expect.stringMatching(/ UTC$/),
        'Lead (lead)',
        'normative',
        'status (accepted → superseded)',
        'superseded by D-3',
      ],
      ['v1', expect.any(String), 'Lead (lead)', 'created', 'initial version', 'created'],
    ])
    expect(d1).not.toContain('### Earlier statements')
    expect(tableRows(section(d1!, '### Linked reports'))).toEqual([
      ['R-1', 'T-1', 'test', 'passed', 'Tess (tester)', 'v1, changed since', '1 (1 stale)', 'stale'],
    ])

    // D-2: a normative revision, then an editorial fix by the human, named as git names them (user.name).
    const fm2 = frontMatter(d2!)
    expect(fm2).toEqual({
      status: 'accepted',
      date: storage.updatedAt.slice(0, 10),
      'decision-makers': ['Concord Test', 'Lead (lead)'],
      consulted: ['Tess (tester)'],
      informed: ['Impl (implementer)'],
      id: 'D-2',
      version: 3,
      fingerprint: storage.fingerprint,
      generator: 'Concord',
      provenance: expect.stringMatching(/^Generated by Concord from D-2 v3 as ADR-0002 \(sha256:[0-9a-f]{16}\)\. /),
    })
    expect(section(d2!, '## Context and Problem Statement')).toBe('_No rationale was recorded for this decision._')
    expect(section(d2!, '## Decision Outcome')).toMatch(
      /^Accepted\.\n\nStore orders in SQLite, in WAL mode\.\n\n### Consequences\n/,
    )
    expect(tableRows(section(d2!, '### Revision history')).map((r) => [r[0], r[2], r[3], r[4], r[5]])).toEqual([
      ['v3', 'Concord Test', 'editorial', 'statement', 'typo'],
      ['v2', 'Lead (lead)', 'normative', 'statement', 'concurrent readers'],
      ['v1', 'Concord Test', 'created', 'initial version', 'created'],
    ])
    // Each change of the statement keeps the statement it replaced.
    expect(section(d2!, '### Earlier statements')).toMatch(
      /^What the statement said before each change, newest change first\.\n\n#### Until v3 \(editorial, .* UTC, Concord Test: typo\)\n\n> Store orders in SQLite in WAL mode\.\n\n#### Until v2 \(normative, .* UTC, Lead \(lead\): concurrent readers\)\n\n> Store orders in SQLite\.$/,
    )
    expect(tableRows(section(d2!, '### Linked reports'))).toEqual([
      ['R-1', 'T-1', 'test', 'passed', 'Tess (tester)', 'v1, changed since', '1 (1 stale)', 'stale'],
    ])

    // D-3: supersedes D-1; a pending proposal; a todo task.
    expect(frontMatter(d3!)).toEqual({
      status: 'accepted',
      date: tokens.updatedAt.slice(0, 10),
      'decision-makers': ['Lead (lead)'],
      consulted: ['Impl (implementer)'],
      informed: [],
      id: 'D-3',
      version: 1,
      fingerprint: tokens.fingerprint,
      generator: 'Concord',
      provenance: expect.stringMatching(/^Generated by Concord from D-3 v1 as ADR-0003 \(sha256:[0-9a-f]{16}\)\. /),
    })
    expect(section(d3!, '## Context and Problem Statement')).toBe('Mobile clients.\n\nNo sticky sessions.')
    // A pending proposal with another statement is an option under consideration.
    expect(section(d3!, '## Considered Options')).toBe(
      '* “Use JWT bearer tokens.” (this decision)\n* “Use JWT bearer tokens signed with ES256.” (proposed by Impl (implementer), pending)',
    )
    expect(section(d3!, '## More Information')).toContain('Supersedes [ADR-0001](0001-session-auth.md) “Session auth”.')
    expect(section(d3!, '### Pending proposals')).toMatch(
      /^\* P-2 by Impl \(implementer\) against v1, .*: statement “Use JWT bearer tokens signed with ES256\.” — smaller keys$/,
    )
    expect(section(d3!, '## Decision Outcome')).toMatch(
      /\n### Consequences\n\n\* T-2 “Issue tokens” depends on this decision: to do; assigned to Impl \(implementer\); built on v1, the current version\.$/,
    )
    expect(section(d3!, '### Linked reports')).toBe('No report is based on this decision.')

    // D-4: proposed by a proposer, accepted through P-1 by the lead.
    // Impl only proposed it: the lead who accepted it decided, Impl was consulted.
    expect(frontMatter(d4!)).toMatchObject({
      status: 'accepted',
      'decision-makers': ['Lead (lead)'],
      consulted: ['Impl (implementer)'],
      id: 'D-4',
      version: 2,
    })
    expect(tableRows(section(d4!, '### Revision history')).map((r) => [r[0], r[3], r[4], r[5]])).toEqual([
      ['v2', 'editorial', 'status (proposed → accepted)', 'agreed in standup'],
      ['v1', 'created', 'initial version', 'created'],
    ])
    expect(d4).not.toContain('### Consequences')
  })

  it('re-exports in place: unchanged files untouched, numbers kept, a retitled decision renamed, other files never touched', async () => {
    const dir = join(ws.repoPath, 'docs', 'decisions')
    mkdirSync(dir, { recursive: true })
    const handwritten = join(dir, '0001-use-git.md')
    writeFileSync(handwritten, '# Use git\n\nWe use git.\n')
    writeFileSync(join(dir, 'README.md'), '# Decisions\n')

    const first = await exportAs('madr')
    expect(first.files.map((f) => f.slice(dir.length + 1))).toEqual([
      '0002-session-auth.md',
      '0003-storage.md',
      '0004-token-auth-jwt.md',
      '0005-cache.md',
    ])
    const mtimes = first.files.map((f) => statSync(f).mtimeMs)

    await new Promise((r) => setTimeout(r, 20))
    const again = await exportAs('madr')
    expect(again.files).toEqual(first.files)
    expect(again.files.map((f) => statSync(f).mtimeMs)).toEqual(mtimes)

    await core.invoke('decisions.update', {
      decisionId: storage.id,
      expectedVersion: storage.version,
      title: 'Order storage',
      reason: 'clearer title',
    })
    await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Payments', statement: 'Use Stripe.' })
    const third = await exportAs('madr')
    expect(third.files.map((f) => f.slice(dir.length + 1))).toEqual([
      '0002-session-auth.md',
      '0003-order-storage.md',
      '0004-token-auth-jwt.md',
      '0005-cache.md',
      '0006-payments.md',
    ])
    expect(existsSync(join(dir, '0003-storage.md'))).toBe(false)
    expect(frontMatter(readFileSync(join(dir, '0003-order-storage.md'), 'utf8'))).toMatchObject({
      id: 'D-2',
      version: 4,
    })
    // Only the retitled decision changed; the others keep their bytes and mtime.
    expect(statSync(join(dir, '0002-session-auth.md')).mtimeMs).toBe(mtimes[0])
    expect(readFileSync(handwritten, 'utf8')).toBe('# Use git\n\nWe use git.\n')
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# Decisions\n')
    expect(readdirSync(dir).sort()).toEqual([
      '0001-use-git.md',
      '0002-session-auth.md',
      '0003-order-storage.md',
      '0004-token-auth-jwt.md',
      '0005-cache.md',
      '0006-payments.md',
      'README.md',
    ])
  })

  it('refuses to overwrite a file it did not write and changes nothing', async () => {
    const dir = join(ws.repoPath, 'docs', 'decisions')
    const first = await exportAs('madr')
    const before = first.files.map((f) => readFileSync(f, 'utf8'))
    const squatter = join(dir, '0002-order-storage.md')
    writeFileSync(squatter, 'mine\n')
    const current = await core.invoke('decisions.get', { decisionId: storage.id })
    await core.invoke('decisions.update', {
      decisionId: storage.id,
      expectedVersion: current.version,
      title: 'Order storage',
    })
    const err = await rejectsWith(exportAs('madr'), 'invalid_params')
    expect(err.message).toContain(`${squatter} exists and was not written by Concord`)
    expect(readFileSync(squatter, 'utf8')).toBe('mine\n')
    expect(first.files.map((f) => readFileSync(f, 'utf8'))).toEqual(before)
  })

  it('writes straight into outDir when one is given; a relative outDir is taken from the repository', async () => {
    const out = join(t.repoDir, '..', 'adr-out')
    const abs = await exportAs('madr', out)
    expect(abs.outDir).toBe(out)
    expect(abs.files[0]).toBe(join(out, '0001-session-auth.md'))
    const rel = await exportAs('madr', 'docs/adr')
    expect(rel.outDir).toBe(join(ws.repoPath, 'docs', 'adr'))
    expect(readdirSync(rel.outDir)).toHaveLength(4)
  })
})

describe('markdown export', () => {
  it('writes DECISIONS.md: an index table and every revision, newest change first', async () => {
    nameTheHuman('Concord Test')
    const result = await exportAs('markdown')
    expect(result).toEqual({
      format: 'markdown',
      outDir: ws.repoPath,
      folder: '',
      files: [join(ws.repoPath, 'DECISIONS.md')],
      changed: [join(ws.repoPath, 'DECISIONS.md')],
      removed: [],
      dryRun: false,
    })
    const text = readFileSync(result.files[0]!, 'utf8')
    expect(text.startsWith('<!-- Generated by Concord')).toBe(true)
    expect(text).toContain('\n# Decision log: Shop\n')
    const index = tableRows(text.slice(0, text.indexOf('\n---\n')))
    expect(index.map((r) => r.slice(0, 4))).toEqual([
      ['[D-1](#d-1)', 'Session auth', 'superseded', 'v2'],
      ['[D-2](#d-2)', 'Storage', 'accepted', 'v3'],
      ['[D-3](#d-3)', 'Token auth (JWT)', 'accepted', 'v1'],
      ['[D-4](#d-4)', 'Cache', 'accepted', 'v2'],
    ])
    expect(index[1]![4]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC · editorial · Concord Test$/)
    const d2 = section(text, '## D-2: Storage')
    const headings = d2.split('\n').filter((l) => l.startsWith('#### '))
    expect(headings.map((h) => h.replace(/ · \d{4}-.* UTC/, ''))).toEqual([
      '#### v3 · Concord Test · editorial',
      '#### v2 · Lead (lead) · normative',
      '#### v1 · Concord Test · created',
    ])
    expect(section(d2, '#### v2 · ' + headings[1]!.slice('#### v2 · '.length))).toBe(
      'Reason: concurrent readers\n\nChanged: statement.\n\nStatement:\n\n> Store orders in SQLite in WAL mode.',
    )
    expect(section(text, '## D-1: Session auth')).toContain('**Status:** superseded by [D-3](#d-3)')
    expect(section(text, '## D-3: Token auth (JWT)')).toContain('**Supersedes:** [D-1](#d-1)')
  })

  it('rewrites its own DECISIONS.md but refuses one it did not write', async () => {
    const first = await exportAs('markdown')
    await core.invoke('decisions.create', { workspaceId: ws.id, title: 'Payments', statement: 'Use Stripe.' })
    await exportAs('markdown')
    expect(readFileSync(first.files[0]!, 'utf8')).toContain('## D-5: Payments')

    const other = join(t.repoDir, '..', 'other')
    mkdirSync(other)
    writeFileSync(join(other, 'DECISIONS.md'), '# Our decisions\n')
    const err = await rejectsWith(exportAs('markdown', other), 'invalid_params')
    expect(err.message).toContain('was not written by Concord')
    expect(readFileSync(join(other, 'DECISIONS.md'), 'utf8')).toBe('# Our decisions\n')
  })
})

describe('json export and import', () => {
  const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>
  const withoutTime = (doc: Record<string, unknown>) => ({ ...doc, exportedAt: '(time)' })

  it('is versioned, complete, and free of workspace ids', async () => {
    const result = await exportAs('json')
    expect(result.files).toEqual([
      join(ws.repoPath, 'concord-export.json'),
      join(ws.repoPath, 'concord-export.schema.json'),
    ])
    const text = readFileSync(result.files[0]!, 'utf8')
    expect(text).not.toContain(ws.id)
    const doc = readJson(result.files[0]!)
    expect(Object.keys(doc)).toEqual([
      '$schema',
      'schemaVersion',
      'generator',
      'exportedAt',
      'workspace',
      'members',
      'decisions',
      'proposals',
      'tasks',
      'reports',
      'notices',
      'approvalRules',
      'counters',
    ])
    expect(doc.schemaVersion).toBe(1)
    expect(doc.workspace).toEqual({ name: 'Shop', createdAt: ws.createdAt })
    expect(doc.members.map((m: any) => m.id)).toEqual(['M-1', 'M-2', 'M-3'])
    expect(doc.members[0].provider).toEqual({ kind: 'openai', model: 'gpt-x', baseURL: 'https://llm.example.com/v1' })
    expect(doc.decisions.map((d: any) => [d.id, d.status, d.version, d.revisions.length])).toEqual([
      ['D-1', 'superseded', 2, 2],
      ['D-2', 'accepted', 3, 3],
      ['D-3', 'accepted', 1, 1],
      ['D-4', 'accepted', 2, 2],
    ])
    expect(doc.decisions[1].revisions[2]).toMatchObject({ version: 3, editorial: true, reason: 'typo', actorId: null })
    expect(doc.decisions[0]).toMatchObject({ supersededBy: 'D-3', createdBy: 'M-1' })
    expect(doc.tasks[0]).toMatchObject({
      id: 'T-1',
      status: 'delivered',
      flag: 'needs_reverification',
      artifact: { commit: SHA, digest: null },
    })
    expect(doc.tasks[0].links.map((l: any) => [l.decisionId, l.pinnedVersion, l.state])).toEqual([
      ['D-1', 1, 'suspect'],
      ['D-2', 1, 'suspect'],
    ])
    expect(doc.tasks[1]).toMatchObject({ id: 'T-2', blockedBy: ['T-1'] })
    expect(doc.reports[0]).toMatchObject({ id: 'R-1', taskId: 'T-1', authorId: 'M-3', validity: 'stale' })
    expect(doc.reports[0].claims.map((c: any) => [c.id, c.state, c.decisions.map((x: any) => x.decisionId)])).toEqual([
      ['C-1', 'stale', ['D-1']],
      ['C-2', 'stale', ['D-2']],
    ])
    expect(doc.proposals.map((p: any) => [p.id, p.decisionId, p.state, p.authorId, p.decidedBy])).toEqual([
      ['P-1', 'D-4', 'accepted', 'M-2', 'M-1'],
      ['P-2', 'D-3', 'pending', 'M-2', null],
    ])
    expect(doc.notices.length).toBeGreaterThan(0)
    expect(doc.notices[0]).toMatchObject({
      memberId: expect.stringMatching(/^M-\d+$/),
      decisionId: expect.stringMatching(/^D-\d+$/),
    })
    expect(doc.counters['decision_edits.editorial']).toBe(2)
  })

  it('round trip: export → import → export gives identical JSON, and the restored workspace works', async () => {
    const original = readJson((await exportAs('json')).files[0]!)
    const repo2 = join(t.repoDir, '..', 'repo2')
    mkdirSync(repo2)
    const events = t.events.length
    const imported = await core.invoke('import.workspace', {
      path: join(ws.repoPath, 'concord-export.json'),
      repoPath: repo2,
    })
    expect(imported).toMatchObject({ name: 'Shop', repoPath: repo2, createdAt: ws.createdAt })
    expect(imported.id).not.toBe(ws.id)
    expect(t.events.slice(events).map((e) => e.event)).toEqual(['workspace.opened'])
    const again = await core.invoke('export.decisionLog', { workspaceId: imported.id, format: 'json' })
    expect(withoutTime(readJson(again.files[0]!))).toEqual(withoutTime(original))
    expect(readFileSync(again.files[0]!, 'utf8').replace(/"exportedAt": ".*"/, '')).toBe(
      readFileSync(join(ws.repoPath, 'concord-export.json'), 'utf8').replace(/"exportedAt": ".*"/, ''),
    )

    // The restored workspace is a working harness: same keys, same states, same figures; numbering continues.
    const list = (id: string) => core.invoke('decisions.list', { workspaceId: id })
    expect((await list(imported.id)).map((d) => [d.key, d.version, d.fingerprint])).toEqual(
      (await list(ws.id)).map((d) => [d.key, d.version, d.fingerprint]),
    )
    const metrics = async (id: string) => ({
      ...(await core.invoke('metrics.get', { workspaceId: id })),
      workspaceId: '',
    })
    expect(await metrics(imported.id)).toEqual(await metrics(ws.id))
    const members = await core.invoke('members.list', { workspaceId: imported.id })
    expect(members.map((m) => [m.name, m.provider?.hasKey ?? null])).toEqual([
      ['Lead', false],
      ['Impl', null],
      ['Tess', null],
    ])
    const next = await core.invoke('decisions.create', {
      workspaceId: imported.id,
      title: 'Payments',
      statement: 'Use Stripe.',
    })
    expect(next.key).toBe('D-5')
    const d3 = (await list(imported.id))[2]
    const { impact } = await core.invoke('decisions.update', {
      decisionId: d3!.id,
      expectedVersion: 1,
      statement: 'Use opaque tokens.',
    })
    expect(impact.tasks.map((x) => [x.key, x.flag])).toEqual([['T-2', 'requirements_updated']])
  })

  it('restores into another data folder (another machine) identically', async () => {
    const file = (await exportAs('json')).files[0]!
    const otherData = join(t.repoDir, '..', 'data2')
    const other = createCore({ dataDir: otherData })
    try {
      const repo = join(t.repoDir, '..', 'checkout')
      mkdirSync(repo)
      const w = await other.invoke('import.workspace', { path: file, repoPath: repo, name: 'Shop (restored)' })
      expect(w.name).toBe('Shop (restored)')
      const out = await other.invoke('export.decisionLog', {
        workspaceId: w.id,
        format: 'json',
        outDir: join(repo, 'backup'),
      })
      const a = readJson(file)
      const b = readJson(out.files[0]!)
      expect({ ...withoutTime(b), workspace: { ...b.workspace, name: 'Shop' } }).toEqual(withoutTime(a))
    } finally {
      await other.close()
    }
  })

  it('refuses bad files with a clear error and touches no existing data', async () => {
    const good = readJson((await exportAs('json')).files[0]!)
    const dir = join(t.repoDir, '..', 'imports')
    const target = join(t.repoDir, '..', 'target')
    mkdirSync(dir)
    mkdirSync(target)
    const registryBefore = await core.invoke('workspaces.list', {})
    const filesBefore = readdirSync(join(t.dataDir, 'workspaces')).sort()
    const exportBefore = readFileSync(join(ws.repoPath, 'concord-export.json'), 'utf8')
    const write = (name: string, content: unknown) => {
      const p = join(dir, name)
      writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content))
      return p
    }
    const attempt = (path: string, repoPath = target) => core.invoke('import.workspace', { path, repoPath })
    /** The good export changed by `fn`, written as `name`: the import's refusal (invalid_params). */
    const refused = (name: string, fn: (d: any) => void) => {
      const d = structuredClone(good)
      fn(d)
      return rejectsWith(attempt(write(name, d)), 'invalid_params')
    }

    expect(
      (await rejectsWith(attempt(write('broken.json', '{"schemaVersion": 1, "members": [')), 'invalid_params')).message,
    ).toContain('is not valid JSON')
    expect((await rejectsWith(attempt(write('array.json', [])), 'invalid_params')).message).toContain(
      'expected a JSON object',
    )
    expect((await rejectsWith(attempt(write('nover.json', { hello: 1 })), 'invalid_params')).message).toContain(
      'has no schemaVersion',
    )
    const newer = await rejectsWith(
      attempt(write('newer.json', { ...good, schemaVersion: 2, somethingNew: [] })),
      'schema_too_new',
    )
    expect(newer.message).toContain('newer Concord (export schema version 2; this Concord reads version 1)')
    const shape = await refused('shape.json', (d) => {
      d.decisions[1].status = 'maybe'
      delete d.tasks[0].title
    })
    expect(shape.message).toContain('decisions[1].status')
    expect(shape.message).toContain('tasks[0].title')
    const dangling = await refused('dangling.json', (d) => {
      d.tasks[0].assigneeId = 'M-99'
    })
    expect(dangling.message).toContain('tasks[0].assigneeId: member M-99 is not in the export')
    const tampered = await refused('tampered.json', (d) => {
      d.decisions[1].revisions[0].statement = 'Store orders in Postgres.'
    })
    expect(tampered.message).toContain(
      'decisions[1].revisions[0]: the statement or status does not match its contentHash',
    )
    const unknownField = await refused('extra.json', (d) => {
      d.members[0].apiKey = 'x'
    })
    expect(unknownField.message).toContain('members[0]: unknown field apiKey')
    expect((await rejectsWith(attempt(join(dir, 'missing.json')), 'invalid_params')).message).toContain(
      'does not exist',
    )
    const taken = await rejectsWith(attempt(write('good.json', good), t.repoDir), 'invalid_params')
    expect(taken.message).toContain('already has a Concord workspace')
    expect(
      (await rejectsWith(attempt(join(dir, 'good.json'), join(target, 'nope')), 'invalid_params')).message,
    ).toContain('is not an existing folder')

    // A failure in the middle of the restore transaction: the new file is removed, the registry untouched.
    const spy = vi.spyOn(TransferRepo.prototype, 'insertNotice').mockImplementation(() => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })
    })
    try {
      await rejectsWith(attempt(join(dir, 'good.json')), 'io_error')
    } finally {
      spy.mockRestore()
    }

    expect(await core.invoke('workspaces.list', {})).toEqual(registryBefore)
    expect(readdirSync(join(t.dataDir, 'workspaces')).sort()).toEqual(filesBefore)
    expect(readFileSync(join(ws.repoPath, 'concord-export.json'), 'utf8')).toBe(exportBefore)
    expect((await core.invoke('decisions.list', { workspaceId: ws.id })).map((d) => d.version)).toEqual([2, 3, 1, 2])
    // And the good file still imports afterwards (a folder holding concord-export.json works too).
    const w = await core.invoke('import.workspace', { path: ws.repoPath, repoPath: target })
    expect((await core.invoke('decisions.list', { workspaceId: w.id })).length).toBe(4)
  })
})

describe('secrets and bad input', () => {
  it('never writes an API key, a credential in a base URL or the bridge token into any export', async () => {
    expect(lead.provider?.hasKey).toBe(true)
    expect(readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')).toContain(API_KEY)
    const bridge = await startBridge({ core, port: 0, token: BRIDGE_TOKEN })
    try {
      const outputs: string[] = []
      for (const format of ['madr', 'markdown', 'json'] as const) {
        const res = await fetch(`http://127.0.0.1:${bridge.port}/api/export.decisionLog`, {
          method: 'POST',
          headers: { authorization: `Bearer ${BRIDGE_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ workspaceId: ws.id, format }),
        })
        const body = (await res.json()) as { ok: boolean; value: { files: string[] } }
        expect(body.ok).toBe(true)
        outputs.push(JSON.stringify(body))
      }
      const files = allFiles(ws.repoPath)
      // 4 MADR files, DECISIONS.md, the JSON export and its schema.
      expect(files.length).toBe(7)
      outputs.push(...files.map((f) => readFileSync(f, 'utf8')))
      for (const text of outputs) {
        for (const secret of [API_KEY, URL_PASSWORD, BRIDGE_TOKEN, 'TOPSECRET']) expect(text).not.toContain(secret)
      }
    } finally {
      await bridge.close()
    }
  })

  it('refuses an unknown format, an unwritable folder and an unknown workspace, writing nothing', async () => {
    const bad = await rejectsWith(
      core.call('export.decisionLog', { workspaceId: ws.id, format: 'yaml' }),
      'invalid_params',
    )
    expect(bad.message).toContain('format')
    const file = join(t.repoDir, 'a-file')
    writeFileSync(file, 'x')
    const io = await rejectsWith(exportAs('json', join(file, 'out')), 'io_error')
    expect(io.message).toContain(`cannot create or use the folder ${join(file, 'out')}`)
    await rejectsWith(core.invoke('export.decisionLog', { workspaceId: 'w00000000', format: 'json' }), 'not_found')

    // A target that cannot be read or replaced (a folder in the way): the batch fails before writing any file.
    const out = join(t.repoDir, '..', 'blocked')
    mkdirSync(join(out, '0002-storage.md'), { recursive: true })
    await rejectsWith(exportAs('madr', out), 'io_error')
    expect(readdirSync(out)).toEqual(['0002-storage.md'])
    expect(allFiles(ws.repoPath).filter((f) => f.includes('.concord-tmp-') || f.includes('.concord-probe-'))).toEqual(
      [],
    )
  })
})

describe('format details', () => {
  it('slugs keep any script, drop accents and punctuation, and stay short', async () => {
    const { slugify } = await import('../../electron/main/export/slug')
    expect(slugify('Ünïcödé — Title: v2!')).toBe('unicode-title-v2')
    expect(slugify('使用 JWT 认证')).toBe('使用-jwt-认证')
    expect(slugify('***')).toBe('decision')
    const long = slugify('word '.repeat(40))
    expect(long.length).toBeLessThanOrEqual(60)
    expect(long.endsWith('-')).toBe(false)
  })

  it('quotes names in front matter so YAML reads them back exactly', async () => {
    await core.invoke('members.update', { memberId: lead.id, name: 'Bob: "the" #1' })
    const [file] = (await exportAs('madr')).files
    const fm = frontMatter(readFileSync(file!, 'utf8'))
    expect(fm['decision-makers']).toEqual(['Bob: "the" #1 (lead)'])
  })
})
