/**
 * The MADR export read by the real ADR tools (devDependencies, pinned): adr-log 2.2.0 (titles),
 * @meza/adr-tools 2.0.3 (list, toc, graph of supersession links, and `adr new -s` on our files),
 * @log4brains/core 1.1.0 (title, status, superseding ADR, deciders, date, links) and the templates
 * of madr 4.0.0. Each runs as its own process over a real export of a real core.
 */
import { execFile, execFileSync } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { Core } from '../../electron/main/core'
import type { Workspace } from '../../shared/schemas'
import { makeCore, rejectsWith, type TestCore } from '../fixtures/core'

const root = resolve(import.meta.dirname, '..', '..')
const modules = join(root, 'node_modules')
const ADR_LOG = join(modules, 'adr-log', 'cli.js')
const ADR_TOOLS = join(modules, '@meza', 'adr-tools', 'dist', 'index.js')
/** Where `CONCORD_ADR_OUTPUT=<file>` collects what the three tools printed (for people to read). */
const transcript: string[] = []

let t: TestCore
let core: Core
let ws: Workspace
let repo: string

function run(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      args,
      { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

async function tool(label: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await run(args, cwd, env)
  if (r.code !== 0) throw new Error(`${label} exited ${r.code}: ${r.stderr}`)
  transcript.push(`$ ${label}\n${r.stdout.trimEnd()}\n`)
  return r.stdout
}

/** log4brains 1.1 through its API (it has no CLI of its own in @log4brains/core), in a process of its own. */
async function log4brains(cwd: string): Promise<Record<string, any>[]> {
  const script = `
    const { Log4brains } = require(${JSON.stringify(join(modules, '@log4brains', 'core'))})
    Log4brains.create(process.cwd()).searchAdrs().then((adrs) => {
      console.log(JSON.stringify(adrs.map((a) => ({ slug: a.slug, title: a.title, status: a.status, supersededBy: a.supersededBy,
        deciders: a.deciders, publicationDate: a.publicationDate, body: a.body.enhancedMdx }))))
    }, (err) => { console.error(err); process.exit(1) })`
  const r = await run(['-e', script], cwd)
  if (r.code !== 0) throw new Error(`log4brains exited ${r.code}: ${r.stderr}`)
  const adrs = JSON.parse(r.stdout) as Record<string, any>[]
  const shown = adrs.map((a) =>
    JSON.stringify({
      slug: a.slug,
      title: a.title,
      status: a.status,
      supersededBy: a.supersededBy,
      deciders: a.deciders,
      publicationDate: a.publicationDate,
    }),
  )
  transcript.push(
    `$ log4brains: (await Log4brains.create(repo).searchAdrs()) without the bodies\n${shown.join('\n')}\n`,
  )
  return adrs
}

/**
 * D-1 superseded by D-3; D-2 whose statement was changed twice; D-4 rejected; D-5 withdrawn with no
 * successor (deprecated); D-6 proposed by a proposer and still open.
 */
beforeEach(async () => {
  t = makeCore()
  core = t.core
  repo = t.repoDir
  ws = await core.invoke('workspaces.open', { repoPath: repo, name: 'Shop' })
  const lead = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Lead',
    role: 'lead',
    authority: 'decider',
  })
  const impl = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Impl',
    role: 'implementer',
    authority: 'proposer',
  })
  const d1 = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Session auth',
    statement: 'Use server sessions with cookies.',
    rationale: 'One server.',
    actorId: lead.id,
  })
  const d2 = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Storage',
    statement: 'Store orders in SQLite.',
    actorId: lead.id,
  })
  await core.invoke('tasks.create', {
    workspaceId: ws.id,
    title: 'Orders API',
    assigneeId: impl.id,
    decisionIds: [d2.id],
  })
  await core.invoke('decisions.update', {
    decisionId: d2.id,
    expectedVersion: 1,
    statement: 'Store orders in SQLite in WAL mode.',
    reason: 'concurrent readers',
    actorId: lead.id,
  })
  await core.invoke('decisions.update', {
    decisionId: d2.id,
    expectedVersion: 2,
    statement: 'Store orders in PostgreSQL.',
    reason: 'several servers',
    actorId: lead.id,
  })
  await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Token auth (JWT)',
    statement: 'Use JWT bearer tokens.',
    supersedes: d1.id,
    actorId: lead.id,
  })
  const d4 = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Cache pages',
    statement: 'Cache product pages for 60 s.',
    actorId: lead.id,
  })
  await core.invoke('decisions.update', {
    decisionId: d4.id,
    expectedVersion: 1,
    status: 'rejected',
    reason: 'prices go stale',
    actorId: lead.id,
  })
  const d5 = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'XML feed',
    statement: 'Offer an XML product feed.',
    actorId: lead.id,
  })
  await core.invoke('decisions.update', {
    decisionId: d5.id,
    expectedVersion: 1,
    status: 'superseded',
    reason: 'nobody reads it',
    actorId: lead.id,
  })
  await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Payments',
    statement: 'Use Stripe.',
    actorId: impl.id,
  })
})
afterEach(() => t.cleanup())

const exportMadr = (flavour?: 'madr' | 'adr-tools' | 'log4brains', outDir?: string) =>
  core.invoke('export.decisionLog', {
    workspaceId: ws.id,
    format: 'madr',
    ...(flavour ? { flavour } : {}),
    ...(outDir ? { outDir } : {}),
  })

/** The YAML front matter of a file, read by a real YAML parser. */
const frontMatterOf = (text: string) => parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!) as Record<string, unknown>

describe('madr flavour (default): MADR 4, read by adr-log', () => {
  it('puts the title straight after the front matter, so adr-log lists every title', async () => {
    const { outDir, files } = await exportMadr()
    expect(outDir).toBe(join(repo, 'docs', 'decisions'))
    const out = await tool('adr-log -d docs/decisions', [ADR_LOG, '-d', outDir], outDir)
    expect(out.split('\n').filter((l) => l.startsWith('* '))).toEqual([
      '* [ADR-0001](0001-session-auth.md) - Session auth',
      '* [ADR-0002](0002-storage.md) - Storage',
      '* [ADR-0003](0003-token-auth-jwt.md) - Token auth (JWT)',
      '* [ADR-0004](0004-cache-pages.md) - Cache pages',
      '* [ADR-0005](0005-xml-feed.md) - XML feed',
      '* [ADR-0006](0006-payments.md) - Payments',
    ])
    for (const f of files) expect(readFileSync(f, 'utf8')).toMatch(/\n---\n# [^\n]+\n/)
  })

  it("gives each file's first `# ` line to its title (madr-tools' index reads it) and keeps provenance in a YAML key (issue 35)", async () => {
    const { files } = await exportMadr()
    // What `madr index` does: the first line starting with `# `, front matter or not.
    const firstHeading = (f: string) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('# '))
    expect(files.map(firstHeading)).toEqual([
      '# Session auth',
      '# Storage',
      '# Token auth (JWT)',
      '# Cache pages',
      '# XML feed',
      '# Payments',
    ])
    expect(frontMatterOf(readFileSync(files[0]!, 'utf8'))).toMatchObject({
      id: 'D-1',
      generator: 'Concord',
      provenance: expect.stringMatching(/^Generated by Concord from D-1 v2 as ADR-0001 \(sha256:[0-9a-f]{16}\)\. /),
    })

    // A file written before (provenance as a YAML comment `# Generated by …`) is still Concord's: rewritten in place.
    const old = readFileSync(files[2]!, 'utf8')
      .replace(/\nprovenance: "[^\n]*"\n/, '\n')
      .replace(
        /^---\n/,
        '---\n# Generated by Concord from D-3 v1 as ADR-0003. Change the decision in Concord and export again: edits made to this file are overwritten.\n',
      )
    expect(old.split('\n')[1]).toMatch(/^# Generated by Concord/)
    writeFileSync(files[2]!, old)
    const again = await exportMadr()
    expect(again.files).toEqual(files)
    expect(readdirSync(again.outDir).sort()).toEqual(files.map((f) => f.slice(again.outDir.length + 1)))
    expect(firstHeading(files[2]!)).toBe('# Token auth (JWT)')
  })

  it('writes MADR 4 statuses (superseded by ADR-NNNN, rejected, deprecated, proposed) and keeps D-n ↔ NNNN in the front matter', async () => {
    const { files } = await exportMadr()
    const fm = files.map((f) => frontMatterOf(readFileSync(f, 'utf8')))
    expect(fm.map((f) => [f.id, f.status])).toEqual([
      ['D-1', 'superseded by ADR-0003'],
      ['D-2', 'accepted'],
      ['D-3', 'accepted'],
      ['D-4', 'rejected'],
      ['D-5', 'deprecated'],
      ['D-6', 'proposed'],
    ])
    expect(fm[1]).toMatchObject({
      'decision-makers': ['Lead (lead)'],
      consulted: [],
      informed: ['Impl (implementer)'],
      version: 3,
      generator: 'Concord',
    })
    const d1 = readFileSync(files[0]!, 'utf8')
    const d3 = readFileSync(files[2]!, 'utf8')
    expect(d1).toContain('Superseded by [ADR-0003](0003-token-auth-jwt.md) “Token auth (JWT)”.')
    expect(d3).toContain('Supersedes [ADR-0001](0001-session-auth.md) “Session auth”.')
    // Links between decisions use ADR numbers and file names: no D-n link anywhere.
    for (const f of files) expect(readFileSync(f, 'utf8')).not.toMatch(/\[D-\d+/)
    // The outcome in words for its status (no option list to choose from: nobody proposed another statement).
    expect(readFileSync(files[3]!, 'utf8')).toContain(
      '\n## Decision Outcome\n\nRejected: this decision is not in force.\n',
    )
    expect(readFileSync(files[5]!, 'utf8')).toContain('\n## Decision Outcome\n\nProposed, not accepted yet.\n')
  })

  it('follows the madr 4.0.0 template: its front matter keys, its sections in its order, "Chosen option:"', async () => {
    const template = readFileSync(join(modules, 'madr', 'template', 'adr-template.md'), 'utf8')
    const templateKeys = [...template.split('\n---\n')[0]!.matchAll(/^([a-z-]+):/gm)].map((m) => m[1])
    const templateSections = template.split('\n').filter((l) => /^##+ /.test(l) && !l.includes('{'))
    expect(templateKeys).toEqual(['status', 'date', 'decision-makers', 'consulted', 'informed'])

    const { files } = await exportMadr()
    const d2 = readFileSync(files[1]!, 'utf8')
    expect(Object.keys(frontMatterOf(d2)).slice(0, 5)).toEqual(templateKeys)
    const ours = d2.split('\n').filter((l) => /^##+ /.test(l))
    const known = ours.filter((h) => templateSections.includes(h))
    // Every template section we write comes in the template's order, starting with the required ones.
    expect(known).toEqual(templateSections.filter((h) => known.includes(h)))
    // "Considered Options" only where another statement was proposed: a list of one would repeat the title.
    expect(known.slice(0, 3)).toEqual(['## Context and Problem Statement', '## Decision Outcome', '### Consequences'])
    expect(d2).toMatch(/\n## Decision Outcome\n\nAccepted\.\n\nStore orders in PostgreSQL\.\n/)
    expect(d2).toContain(
      '\n### Consequences\n\n* T-1 “Orders API” depends on this decision: to do, requirements updated; assigned to Impl (implementer); built on v1, changed since.\n',
    )
  })

  it('keeps every earlier statement of a twice-edited decision, per revision', async () => {
    const { files } = await exportMadr()
    const d2 = readFileSync(files[1]!, 'utf8')
    const earlier = d2.slice(d2.indexOf('### Earlier statements'), d2.indexOf('### Linked reports'))
    expect(earlier).toMatch(
      /#### Until v3 \(normative, .* UTC, Lead \(lead\): several servers\)\n\n> Store orders in SQLite in WAL mode\.\n/,
    )
    expect(earlier).toMatch(
      /#### Until v2 \(normative, .* UTC, Lead \(lead\): concurrent readers\)\n\n> Store orders in SQLite\.\n/,
    )
    expect(earlier.indexOf('Until v3')).toBeLessThan(earlier.indexOf('Until v2'))
  })
})

describe('adr-tools flavour, read by @meza/adr-tools', () => {
  it('writes where .adr-dir says after the ADRs there, and adr-tools lists, indexes, graphs and supersedes them', async () => {
    await tool('adr init doc/architecture', [ADR_TOOLS, 'init', 'doc/architecture'], repo, { ADR_DATE: '2024-01-01' })
    const dir = join(repo, 'doc', 'architecture')
    expect(readFileSync(join(repo, '.adr-dir'), 'utf8')).toBe('doc/architecture')

    const result = await exportMadr('adr-tools')
    expect(result.outDir).toBe(dir)
    expect(result.files.map((f) => f.slice(dir.length + 1))).toEqual([
      '0002-session-auth.md',
      '0003-storage.md',
      '0004-token-auth-jwt.md',
      '0005-cache-pages.md',
      '0006-xml-feed.md',
      '0007-payments.md',
    ])
    expect(readFileSync(join(dir, '0001-record-architecture-decisions.md'), 'utf8')).toContain(
      '# 1. Record architecture decisions',
    )
    // adr-tools numbers its next ADR from its lock: moved past Concord's numbers.
    expect(readFileSync(join(dir, '.adr-sequence.lock'), 'utf8')).toBe('7')

    const list = await tool('adr list', [ADR_TOOLS, 'list'], repo)
    expect(list.trim().split('\n')).toEqual(
      ['0001-record-architecture-decisions.md', ...result.files.map((f) => f.slice(dir.length + 1))].map((f) =>
        join('doc', 'architecture', f),
      ),
    )

    await tool('adr generate toc', [ADR_TOOLS, 'generate', 'toc'], repo)
    const toc = readFileSync(join(dir, 'decisions.md'), 'utf8')
    transcript.push(`$ cat doc/architecture/decisions.md\n${toc}\n`)
    expect(toc.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- [1. Record architecture decisions](0001-record-architecture-decisions.md)',
      '- [2. Session auth](0002-session-auth.md)',
      '- [3. Storage](0003-storage.md)',
      '- [4. Token auth (JWT)](0004-token-auth-jwt.md)',
      '- [5. Cache pages](0005-cache-pages.md)',
      '- [6. XML feed](0006-xml-feed.md)',
      '- [7. Payments](0007-payments.md)',
    ])

    // The graph's edges are the links adr-tools found in the Status sections ("… by" links are drawn from the other side).
    const graph = await tool('adr generate graph', [ADR_TOOLS, 'generate', 'graph'], repo)
    expect(graph.split('\n').filter((l) => /label="[A-Z][a-z]+"/.test(l))).toEqual([
      '  _4 -> _2 [label="Supersedes", weight=0]',
    ])
    expect(graph).toContain('_2 [label="2. Session auth"; URL="0002-session-auth.html"]')

    // Statuses as adr-tools keeps them: the first paragraph of the Status section.
    const status = (f: string) => /\n## Status\n\n([^\n]+)\n/.exec(readFileSync(join(dir, f), 'utf8'))![1]
    const statuses = () =>
      transcript.push(
        `(first paragraph of each Status section)\n${readdirSync(dir)
          .filter((f) => /^\d{4}-/.test(f))
          .sort()
          .map((f) => `${f}: ${status(f)}`)
          .join('\n')}\n`,
      )
    statuses()
    expect(result.files.map((f) => status(f.slice(dir.length + 1)))).toEqual([
      'Superseded by [4. Token auth (JWT)](0004-token-auth-jwt.md)',
      'Accepted',
      'Accepted',
      'Rejected',
      'Deprecated',
      'Proposed',
    ])

    // adr-tools can work on Concord's files: supersede one with a new ADR of its own, numbered after them.
    await tool(
      'adr new -q -s 4 Use PASETO tokens',
      [ADR_TOOLS, 'new', '-q', '-s', '4', 'Use', 'PASETO', 'tokens'],
      repo,
      { ADR_DATE: '2024-02-01' },
    )
    expect(status('0004-token-auth-jwt.md')).toBe('Superseded by [8. Use PASETO tokens](0008-use-paseto-tokens.md)')
    expect(readFileSync(join(dir, '0008-use-paseto-tokens.md'), 'utf8')).toContain(
      'Supersedes [4. Token auth (JWT)](0004-token-auth-jwt.md)',
    )
    statuses()

    // Concord exports again: adr-tools' edit of its file is not silently dropped. The export (and its dry run) is
    // refused, naming the file and the change, and writes nothing (issue 35).
    await core.invoke('decisions.create', {
      workspaceId: ws.id,
      title: 'Rate limits',
      statement: '100 requests a minute.',
    })
    const edited = join(dir, '0004-token-auth-jwt.md')
    const before = readFileSync(edited, 'utf8')
    for (const dryRun of [true, false]) {
      const refused = await rejectsWith(
        core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr', flavour: 'adr-tools', dryRun }),
        'file_edited',
      )
      expect(refused.message).toContain(
        `${edited} (its status is now "Superseded by [8. Use PASETO tokens](0008-use-paseto-tokens.md); Supersedes [2. Session auth](0002-session-auth.md)", where this export would write "Accepted; Supersedes [2. Session auth](0002-session-auth.md)")`,
      )
      expect(refused.details).toEqual({ files: [{ path: edited, change: expect.stringContaining('Superseded by') }] })
    }
    expect(readFileSync(edited, 'utf8')).toBe(before)
    expect(existsSync(join(dir, '0009-rate-limits.md'))).toBe(false)
    expect(readFileSync(join(dir, '.adr-sequence.lock'), 'utf8')).toBe('8')

    // Asked to, it overwrites: its own file is its own again, the tool's ADR is untouched, a new decision comes after it.
    const again = await core.invoke('export.decisionLog', {
      workspaceId: ws.id,
      format: 'madr',
      flavour: 'adr-tools',
      overwriteEdited: true,
    })
    expect(again.files.map((f) => f.slice(dir.length + 1)).slice(-1)).toEqual(['0009-rate-limits.md'])
    expect(status('0004-token-auth-jwt.md')).toBe('Accepted')
    expect(readFileSync(join(dir, '0008-use-paseto-tokens.md'), 'utf8')).toContain('# 8. Use PASETO tokens')
    expect(readFileSync(join(dir, '.adr-sequence.lock'), 'utf8')).toBe('9')
    // Files as Concord wrote them export again without a word, line ends turned to CRLF by git or an editor included.
    writeFileSync(edited, readFileSync(edited, 'utf8').replace(/\n/g, '\r\n'))
    expect((await exportMadr('adr-tools')).files).toEqual(again.files)
  })

  it('refuses to overwrite a hand edit of a MADR file, in any flavour, naming the file and its change (issue 35)', async () => {
    const { files, outDir } = await exportMadr()
    writeFileSync(files[1]!, readFileSync(files[1]!, 'utf8').replace('\nstatus: accepted\n', '\nstatus: deprecated\n'))
    writeFileSync(
      files[4]!,
      readFileSync(files[4]!, 'utf8').replace('Offer an XML product feed.', 'Offer a JSON feed.'),
    )
    const refused = await rejectsWith(exportMadr(), 'file_edited')
    expect(refused.message).toMatch(/^2 files were changed since Concord wrote them: /)
    expect(refused.details).toEqual({
      files: [
        {
          path: files[1],
          change: 'its status is now "deprecated", where this export would write "accepted"',
        },
        { path: files[4], change: 'its text was edited (its status is as Concord wrote it)' },
      ],
    })
    // In another flavour too: the file is Concord's, edited, whatever layout it is rewritten in.
    await rejectsWith(exportMadr('log4brains', outDir), 'file_edited')
  })

  it('tells a status changed in a file written before digests while its decision is still at that version (issue 35)', async () => {
    const { files } = await exportMadr()
    // As a Concord before digests wrote them: the provenance names the decision's version, with no digest.
    const unsealed = () => {
      for (const f of files) writeFileSync(f, readFileSync(f, 'utf8').replace(/ \(sha256:[0-9a-f]{16}\)/, ''))
    }
    unsealed()
    expect(readFileSync(files[1]!, 'utf8')).not.toContain('sha256:')
    // Left as they were, they export again without a word.
    await exportMadr()
    unsealed()
    const idOf = (f: string) => String(frontMatterOf(readFileSync(f, 'utf8')).id)
    writeFileSync(files[1]!, readFileSync(files[1]!, 'utf8').replace('\nstatus: accepted\n', '\nstatus: deprecated\n'))
    writeFileSync(files[2]!, readFileSync(files[2]!, 'utf8').replace('\nstatus: accepted\n', '\nstatus: deprecated\n'))
    // A text edit cannot be told without a digest.
    writeFileSync(
      files[4]!,
      readFileSync(files[4]!, 'utf8').replace('Offer an XML product feed.', 'Offer a JSON feed.'),
    )
    // The second file's decision moved on in Concord since: its status in the file may be Concord's own, not refused.
    const decisions = await core.invoke('decisions.list', { workspaceId: ws.id })
    const moved = decisions.find((d) => d.key === idOf(files[2]!))!
    await core.invoke('decisions.update', {
      decisionId: moved.id,
      expectedVersion: moved.version,
      statement: `${moved.statement} (revised)`,
      reason: 'revised',
    })
    const refused = await rejectsWith(exportMadr(), 'file_edited')
    expect(refused.details).toEqual({
      files: [{ path: files[1], change: 'its status is now "deprecated", where this export would write "accepted"' }],
    })
  })

  it('numbers after adr-tools’ sequence lock when it is ahead of the files (numbers handed out elsewhere)', async () => {
    const dir = join(repo, 'doc', 'adr')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, '.adr-sequence.lock'), '12')
    const { outDir, files } = await exportMadr('adr-tools')
    expect(outDir).toBe(dir)
    expect(files[0]!.slice(dir.length + 1)).toBe('0013-session-auth.md')
    expect(readFileSync(join(dir, '.adr-sequence.lock'), 'utf8')).toBe('18')
    await tool('adr new Rate limits', [ADR_TOOLS, 'new', 'Rate', 'limits'], repo, { ADR_DATE: '2024-03-01' })
    expect(existsSync(join(dir, '0019-rate-limits.md'))).toBe(true)
  })

  it('re-exports a folder of MADR files in the adr-tools layout, same numbers, same files', async () => {
    writeFileSync(join(repo, '.adr-dir'), 'docs/decisions\n')
    const first = await exportMadr('madr')
    const second = await exportMadr('adr-tools')
    expect(second.files).toEqual(first.files)
    expect(readdirSync(second.outDir).sort()).toEqual(first.files.map((f) => f.slice(second.outDir.length + 1)).sort())
    expect(readFileSync(second.files[0]!, 'utf8')).toMatch(/^# 1\. Session auth\n/)
    expect(readFileSync(second.files[0]!, 'utf8').trimEnd().split('\n').pop()).toMatch(
      /^<!-- Generated by Concord from D-1 v2 as ADR-0001 \(sha256:[0-9a-f]{16}\)\. Change the decision in Concord and export again: an export does not overwrite edits made to this file\. -->$/,
    )
  })
})

describe('log4brains flavour, read by @log4brains/core', () => {
  it('writes into .log4brains.yml adrFolder beside log4brains’ own ADRs; log4brains reads titles, statuses, superseders, deciders and links', async () => {
    writeFileSync(
      join(repo, '.log4brains.yml'),
      'project:\n  name: Shop\n  tz: UTC\n  adrFolder: ./docs/architecture\n',
    )
    const dir = join(repo, 'docs', 'architecture')
    mkdirSync(dir, { recursive: true })
    // log4brains names its own ADRs by date: that prefix is not an ADR number.
    writeFileSync(
      join(dir, '20240101-use-log4brains.md'),
      '# Use Log4brains\n\n- Status: accepted\n- Date: 2024-01-01\n\n## Context and Problem Statement\n\nWe need a log.\n',
    )

    const result = await exportMadr('log4brains')
    expect(result.outDir).toBe(dir)
    expect(result.files.map((f) => f.slice(dir.length + 1))).toEqual([
      '0001-session-auth.md',
      '0002-storage.md',
      '0003-token-auth-jwt.md',
      '0004-cache-pages.md',
      '0005-xml-feed.md',
      '0006-payments.md',
    ])
    const adrs = await log4brains(repo)
    const bySlug = Object.fromEntries(adrs.map((a) => [a.slug, a]))
    expect(adrs.map((a) => [a.slug, a.title, a.status, a.supersededBy]).sort()).toEqual([
      ['0001-session-auth', 'Session auth', 'superseded', '0003-token-auth-jwt'],
      ['0002-storage', 'Storage', 'accepted', null],
      ['0003-token-auth-jwt', 'Token auth (JWT)', 'accepted', null],
      ['0004-cache-pages', 'Cache pages', 'rejected', null],
      ['0005-xml-feed', 'XML feed', 'deprecated', null],
      ['0006-payments', 'Payments', 'proposed', null],
      ['20240101-use-log4brains', 'Use Log4brains', 'accepted', null],
    ])
    expect(bySlug['0006-payments'].deciders).toEqual(['Impl (implementer)'])
    expect(bySlug['0002-storage'].deciders).toEqual(['Lead (lead)'])
    expect(bySlug['0002-storage'].publicationDate).toMatch(/^\d{4}-\d\d-\d\dT23:59:59/)
    // log4brains resolved the Supersedes link to the ADR it names.
    expect(bySlug['0003-token-auth-jwt'].body).toContain(
      'Supersedes <AdrLink slug="0001-session-auth" status="superseded" title="Session auth" />',
    )
    // The earlier statements survive in the body log4brains shows.
    expect(bySlug['0002-storage'].body).toContain('> Store orders in SQLite in WAL mode.')
  })
})

describe('the repository’s convention files are untrusted', () => {
  const refused = async (expected: string) => {
    const err = await rejectsWith(exportMadr(), 'invalid_params')
    expect(err.message).toContain(expected)
    return err
  }

  it('refuses an ADR folder outside the repository, by .., absolute path or symbolic link, and writes nothing', async () => {
    const outside = join(repo, '..', 'outside')
    mkdirSync(outside)
    writeFileSync(join(repo, '.adr-dir'), '../outside\n')
    await refused('.adr-dir names "../outside", which is outside the repository')
    writeFileSync(join(repo, '.adr-dir'), `${outside}\n`)
    await refused('which is outside the repository')
    symlinkSync(outside, join(repo, 'docs'))
    writeFileSync(join(repo, '.adr-dir'), 'docs/adr\n')
    await refused('.adr-dir names "docs/adr", which is outside the repository')
    expect(readdirSync(outside)).toEqual([])

    writeFileSync(join(repo, '.adr-dir'), '')
    await refused('.adr-dir does not name a folder')
    writeFileSync(join(repo, '.log4brains.yml'), 'project:\n  adrFolder: ../outside\n')
    const l4b = await rejectsWith(exportMadr('log4brains'), 'invalid_params')
    expect(l4b.message).toContain(
      '.log4brains.yml (project.adrFolder) names "../outside", which is outside the repository',
    )
    writeFileSync(join(repo, '.log4brains.yml'), 'project: [unclosed\n')
    expect((await rejectsWith(exportMadr('log4brains'), 'invalid_params')).message).toContain(
      '.log4brains.yml is not valid YAML',
    )
    expect(readdirSync(outside)).toEqual([])
    // An explicit outDir is the caller's choice and wins over the files.
    const out = await exportMadr('log4brains', join(repo, 'adr'))
    expect(out.files).toHaveLength(6)
  })

  it('refuses a convention file that is a folder or too large, and never reads a FIFO', async () => {
    mkdirSync(join(repo, '.adr-dir'))
    await refused('.adr-dir is not a regular file')
    rmSync(join(repo, '.adr-dir'), { recursive: true })
    // Opening a FIFO for reading would block until someone writes to it: it is refused unopened.
    execFileSync('mkfifo', [join(repo, '.adr-dir')])
    await refused('.adr-dir is not a regular file')
    const big = join(repo, '..', 'big')
    mkdirSync(big)
    writeFileSync(join(big, '.log4brains.yml'), 'x'.repeat(70 * 1024))
    const r2 = join(repo, '..', 'big')
    const w2 = await core.invoke('workspaces.open', { repoPath: r2 })
    const err = await rejectsWith(
      core.invoke('export.decisionLog', { workspaceId: w2.id, format: 'madr', flavour: 'log4brains' }),
      'invalid_params',
    )
    expect(err.message).toContain('.log4brains.yml is larger than 64 KiB')
    expect(existsSync(join(big, 'docs'))).toBe(false)
  })
})

afterEach(() => {
  const file = process.env.CONCORD_ADR_OUTPUT
  if (file && transcript.length) appendFileSync(file, transcript.splice(0).join('\n') + '\n')
})
