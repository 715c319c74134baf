import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import { exportJsonSchema } from '../../electron/main/export/json-schema'
import type { Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { deliverTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

const root = resolve(import.meta.dirname, '..', '..')
const committed = () => readFileSync(join(root, 'concord-export.schema.json'), 'utf8')

let t: OpenWorkspace
let core: Core
let ws: Workspace

/** A workspace with a member key, a supersession, a normative edit, a task, a report and a pending proposal. */
beforeEach(async () => {
  t = await openWorkspace({ name: 'Shop' })
  ;({ core, ws } = t)
  const lead = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Lead',
    role: 'lead',
    authority: 'decider',
    provider: { kind: 'openai', model: 'gpt-x', apiKey: 'sk-live-SCHEMA-0001' },
  })
  const tester = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Tess',
    role: 'tester',
    authority: 'proposer',
  })
  const a = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Sessions',
    statement: 'Use server sessions.',
    actorId: lead.id,
  })
  const b = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Storage',
    statement: 'Store orders in SQLite.',
  })
  const task = await core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Orders',
    assigneeId: tester.id,
    decisionIds: [b.id],
  })
  await deliverTask(core, task, 'a'.repeat(40))
  await core.invoke('reports.submit', {
    taskId: task.id,
    authorId: tester.id,
    kind: 'test',
    verdict: 'pass',
    artifact: { commit: 'a'.repeat(40) },
    claims: [{ text: 'orders persist', decisionIds: [b.id] }],
  })
  await core.invoke('decisions.update', {
    decisionId: b.id,
    expectedVersion: 1,
    statement: 'Store orders in SQLite in WAL mode.',
    reason: 'readers',
  })
  await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Tokens',
    statement: 'Use JWT.',
    supersedes: a.id,
    actorId: lead.id,
  })
  await core.invoke('proposals.create', {
    decisionId: b.id,
    statement: 'Store orders in Postgres.',
    reason: 'scale',
    actorId: tester.id,
  })
})
afterEach(() => t.cleanup())

const exportJson = async (outDir?: string) => {
  const result = await core.invoke('export.decisionLog', {
    workspaceId: ws.id,
    format: 'json',
    ...(outDir ? { outDir } : {}),
  })
  return { result, doc: JSON.parse(readFileSync(result.files[0]!, 'utf8')) as Record<string, any> }
}

function validator(schemaText: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  return ajv.compile(JSON.parse(schemaText))
}

describe('the JSON Schema of the export', () => {
  it('is committed as generated from the zod schema now (npm run schema), and the generator says so', async () => {
    expect(committed()).toBe(exportJsonSchema())
    const check = await new Promise<{ code: number; out: string }>((done) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'scripts/export-schema.ts', '--check'],
        { cwd: root, timeout: 60_000 },
        (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      ),
    )
    expect(check).toEqual({ code: 0, out: 'concord-export.schema.json is current\n' })
  })

  it('a real export points at it, has it beside it, and validates against it with ajv (2020-12)', async () => {
    const { result, doc } = await exportJson()
    expect(result.files).toEqual([
      join(ws.repoPath, 'concord-export.json'),
      join(ws.repoPath, 'concord-export.schema.json'),
    ])
    expect(Object.keys(doc)[0]).toBe('$schema')
    expect(doc.$schema).toBe('./concord-export.schema.json')
    const beside = readFileSync(join(ws.repoPath, 'concord-export.schema.json'), 'utf8')
    expect(beside).toBe(committed())
    expect(JSON.parse(beside).$schema).toBe('https://json-schema.org/draft/2020-12/schema')

    const validate = validator(beside)
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)
    // An export written before there was a $schema is valid too.
    const { $schema: _, ...old } = doc
    expect(validate(old)).toBe(true)
  })

  it('rejects invalid exports, naming where', async () => {
    const { doc } = await exportJson()
    const validate = validator(committed())
    const broken = (fn: (d: any) => void) => {
      const d = structuredClone(doc)
      fn(d)
      expect(validate(d)).toBe(false)
      return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`)
    }
    expect(broken((d) => (d.decisions[1].status = 'maybe'))).toContain('/decisions/1/status enum')
    expect(broken((d) => (d.members[0].apiKey = 'sk-x'))).toContain('/members/0 additionalProperties')
    expect(broken((d) => (d.tasks[0].links[0].decisionId = 'D-0'))).toContain('/tasks/0/links/0/decisionId pattern')
    expect(broken((d) => (d.schemaVersion = 2))).toContain('/schemaVersion const')
    expect(broken((d) => delete d.decisions)).toContain(' required')
    expect(broken((d) => (d.decisions[0].version = 1.5))).toContain('/decisions/0/version type')
  })

  it('import accepts exports with the $schema, without it (older exports) and with another reference', async () => {
    const { doc } = await exportJson()
    const dir = join(t.repoDir, '..', 'imports')
    mkdirSync(dir)
    const variants: [string, Record<string, unknown>][] = [
      ['with.json', doc],
      ['old.json', (({ $schema: _, ...rest }) => rest)(doc)],
      ['url.json', { ...doc, $schema: 'https://example.com/concord-export.schema.json' }],
    ]
    for (const [name, content] of variants) {
      const file = join(dir, name)
      writeFileSync(file, JSON.stringify(content))
      const repo = join(t.repoDir, '..', `repo-${name}`)
      mkdirSync(repo)
      const w = await core.invoke('import.workspace', { path: file, repoPath: repo })
      expect((await core.invoke('decisions.list', { workspaceId: w.id })).map((d) => d.key)).toEqual([
        'D-1',
        'D-2',
        'D-3',
      ])
      // Restored and exported again: the same document, $schema and all.
      const again = await core.invoke('export.decisionLog', { workspaceId: w.id, format: 'json' })
      const redone = JSON.parse(readFileSync(again.files[0]!, 'utf8'))
      expect({ ...redone, exportedAt: 0 }).toEqual({ ...doc, exportedAt: 0 })
    }
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ ...doc, $schema: 42 }))
    expect(
      (
        await rejectsWith(
          core.invoke('import.workspace', { path: bad, repoPath: join(t.repoDir, '..', 'repo-with.json') }),
          'invalid_params',
        )
      ).message,
    ).toContain('$schema')
  })

  it('never replaces a concord-export.schema.json that Concord did not write', async () => {
    const out = join(t.repoDir, '..', 'backup')
    mkdirSync(out)
    writeFileSync(join(out, 'concord-export.schema.json'), '{"title": "Our own schema"}\n')
    const err = await rejectsWith(exportJson(out), 'invalid_params')
    expect(err.message).toContain('concord-export.schema.json exists and was not written by Concord')
    expect(readFileSync(join(out, 'concord-export.schema.json'), 'utf8')).toBe('{"title": "Our own schema"}\n')
  })
})
