import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'concord.js')

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs `concord …` the way `npx concord` does (bin/concord.js, the built command line), in `cwd`. */
function concord(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { ...process.env, CONCORD_DATA_DIR: '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0
        done({ code, stdout, stderr })
      },
    )
  })
}

let root: string
let dataDir: string
let repo: string

/** A workspace built through the API, as a user's app would have left it; the core is closed before the CLI runs. */
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'concord-cli-'))
  dataDir = join(root, 'data')
  repo = join(root, 'shop')
  mkdirSync(repo)
  const core = createCore({ dataDir })
  const ws = await core.invoke('workspaces.open', { repoPath: repo })
  const lead = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Lead',
    role: 'lead',
    authority: 'decider',
    provider: { kind: 'anthropic', model: 'claude-x', apiKey: 'sk-ant-CLI-SECRET' },
  })
  const d1 = await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Use REST',
    statement: 'Expose a REST API.',
    rationale: 'Clients are browsers.',
    actorId: lead.id,
  })
  await core.invoke('decisions.update', {
    decisionId: d1.id,
    expectedVersion: 1,
    statement: 'Expose a JSON REST API.',
    reason: 'format',
    actorId: lead.id,
  })
  await core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Use GraphQL',
    statement: 'Expose GraphQL.',
    supersedes: d1.id,
  })
  await core.invoke('tasks.create', { workspaceId: ws.id, title: 'API server', decisionIds: [d1.id] })
  await core.close()
  // The export names the human as git does in the repository (made one only now: the workspace stays shared).
  execFileSync('git', ['init', '-q'], { cwd: repo })
  execFileSync('git', ['config', 'user.name', 'Shop Owner'], { cwd: repo })
}, 60_000)
afterAll(() => rmSync(root, { recursive: true, force: true }))

// Each run starts Node and the core (~1 s, more on a busy machine).
describe('concord export / import from the command line', { timeout: 120_000 }, () => {
  it('lists export and import in its usage', async () => {
    const r = await concord(['help'], root)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      'export  --repo PATH --format madr|markdown|json [--out DIR] [--dry-run] [--data-dir DIR]',
    )
    expect(r.stdout).toContain('import  FILE --repo PATH')
  })

  it('exports MADR files, the Markdown log and JSON for the repository', async () => {
    const madr = await concord(['export', '--repo', repo, '--format', 'madr', '--data-dir', dataDir], repo)
    expect(madr).toMatchObject({ code: 0, stderr: '' })
    expect(madr.stdout).toContain(`as MADR: 2 files in ${join('docs', 'decisions')}`)
    expect(madr.stdout).toContain(join('docs', 'decisions', '0001-use-rest.md'))
    expect(readdirSync(join(repo, 'docs', 'decisions'))).toEqual(['0001-use-rest.md', '0002-use-graphql.md'])
    const d1 = readFileSync(join(repo, 'docs', 'decisions', '0001-use-rest.md'), 'utf8')
    expect(d1).toMatch(
      /^---\nstatus: superseded by ADR-0002\ndate: \d{4}-\d\d-\d\d\ndecision-makers:\n {2}- "Lead \(lead\)"\n {2}- "Shop Owner"\nconsulted: \[\]\ninformed: \[\]\nid: D-1\nversion: 3\n/,
    )
    expect(d1).toContain('\n---\n# Use REST\n')

    // --flavour lays the files out for adr-tools (or log4brains); an unknown one is a usage error.
    const tools = await concord(
      [
        'export',
        '--repo',
        repo,
        '--format',
        'madr',
        '--flavour',
        'adr-tools',
        '--out',
        join(root, 'adr'),
        '--data-dir',
        dataDir,
      ],
      repo,
    )
    expect(tools).toMatchObject({ code: 0, stderr: '' })
    expect(readFileSync(join(root, 'adr', '0001-use-rest.md'), 'utf8')).toMatch(
      /^# 1\. Use REST\n\nDate: \d{4}-\d\d-\d\d\n\n## Status\n\nSuperseded by \[2\. Use GraphQL\]\(0002-use-graphql\.md\)\n/,
    )
    const nope = await concord(
      ['export', '--repo', repo, '--format', 'madr', '--flavour', 'nope', '--data-dir', dataDir],
      repo,
    )
    expect(nope.code).toBe(2)
    expect(nope.stderr).toContain("--flavour must be one of madr, adr-tools, log4brains (not 'nope')")

    // The data folder from the environment; --repo defaults to the current folder.
    const md = await concord(['export', '--format', 'markdown'], repo, { CONCORD_DATA_DIR: dataDir })
    expect(md).toMatchObject({ code: 0, stderr: '' })
    expect(md.stdout).toContain('as markdown: DECISIONS.md')
    expect(readFileSync(join(repo, 'DECISIONS.md'), 'utf8')).toContain('## D-1: Use REST')

    // --out relative to where the command runs.
    const json = await concord(
      ['export', '--repo', 'shop', '--format', 'json', '--out', 'backup', '--data-dir', dataDir],
      root,
    )
    expect(json).toMatchObject({ code: 0, stderr: '' })
    const doc = JSON.parse(readFileSync(join(root, 'backup', 'concord-export.json'), 'utf8'))
    expect(doc.schemaVersion).toBe(1)
    expect(doc.$schema).toBe('./concord-export.schema.json')
    expect(existsSync(join(root, 'backup', 'concord-export.schema.json'))).toBe(true)
    expect(doc.decisions.map((d: { id: string }) => d.id)).toEqual(['D-1', 'D-2'])
    for (const f of [
      join(root, 'backup', 'concord-export.json'),
      join(repo, 'DECISIONS.md'),
      join(repo, 'docs', 'decisions', '0001-use-rest.md'),
    ]) {
      expect(readFileSync(f, 'utf8')).not.toContain('CLI-SECRET')
    }
  })

  it('refuses to overwrite an ADR file changed since it was written, naming it, until --overwrite-edited (issue 35)', async () => {
    const out = join(root, 'edited')
    const args = ['export', '--repo', repo, '--format', 'madr', '--out', out, '--data-dir', dataDir]
    expect((await concord(args, repo)).code).toBe(0)
    const file = join(out, '0002-use-graphql.md')
    const edited = readFileSync(file, 'utf8').replace('\nstatus: accepted\n', '\nstatus: deprecated\n')
    writeFileSync(file, edited)
    const refused = await concord(args, repo)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(
      `concord: file_edited: A file was changed since Concord wrote it: ${file} (its status is now "deprecated", where this export would write "accepted"). Make the change in Concord (or undo it in the file) and export again, or export overwriting edited files.\n`,
    )
    expect(readFileSync(file, 'utf8')).toBe(edited)
    expect(await concord([...args, '--overwrite-edited'], repo)).toMatchObject({ code: 0, stderr: '' })
    expect(readFileSync(file, 'utf8')).toContain('\nstatus: accepted\n')
  })

  it('--dry-run lists what the export would write and writes nothing', async () => {
    const out = join(root, 'dry')
    const args = ['export', '--repo', repo, '--format', 'madr', '--out', out, '--data-dir', dataDir]
    const first = await concord([...args, '--dry-run'], repo)
    expect(first).toMatchObject({ code: 0, stderr: '' })
    expect(first.stdout).toContain(
      `Dry run, nothing written: the decision log of "shop" as MADR would be 2 files in ${out}, 2 new or changed, 0 removed`,
    )
    expect(first.stdout).toContain(`write   ${join(out, '0001-use-rest.md')}`)
    expect(existsSync(out)).toBe(false)

    expect((await concord(args, repo)).code).toBe(0)
    const again = await concord([...args, '--dry-run'], repo)
    expect(again.stdout).toContain(`2 files in ${out}, 0 new or changed, 0 removed`)
    expect(again.stdout).toContain(`same    ${join(out, '0002-use-graphql.md')}`)

    const valued = await concord([...args, '--dry-run=yes'], repo)
    expect(valued.code).toBe(2)
    expect(valued.stderr).toContain('--dry-run takes no value')
  })

  it('imports a JSON export as a new workspace; exporting it again gives the same JSON', async () => {
    await concord(['export', '--repo', repo, '--format', 'json', '--data-dir', dataDir], repo)
    const file = join(repo, 'concord-export.json')
    const clone = join(root, 'clone')
    mkdirSync(clone)
    const otherData = join(root, 'data-other')
    const imp = await concord(['import', file, '--repo', clone, '--data-dir', otherData], root)
    expect(imp).toMatchObject({ code: 0, stderr: '' })
    expect(imp.stdout).toContain(`Imported "shop" for ${clone}: 2 decisions, 1 tasks`)
    const exp = await concord(['export', '--repo', clone, '--format', 'json', '--data-dir', otherData], clone)
    expect(exp.code).toBe(0)
    const strip = (text: string) => text.replace(/"exportedAt": "[^"]*"/, '')
    expect(strip(readFileSync(join(clone, 'concord-export.json'), 'utf8'))).toBe(strip(readFileSync(file, 'utf8')))

    const again = await concord(['import', '--file', file, '--repo', clone, '--data-dir', otherData], root)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already has a Concord workspace')

    const newer = join(root, 'newer.json')
    writeFileSync(newer, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), schemaVersion: 2 }))
    const fresh = join(root, 'fresh')
    mkdirSync(fresh)
    const refused = await concord(['import', newer, '--repo', fresh, '--data-dir', otherData], root)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('concord: schema_too_new:')
  })

  it('explains what is wrong: format, repository, data folder, unwritable folder', async () => {
    const format = await concord(['export', '--repo', repo, '--format', 'yaml', '--data-dir', dataDir], root)
    expect(format).toMatchObject({
      code: 2,
      stderr: "concord: usage: --format must be one of madr, markdown, json (not 'yaml')\n",
    })

    const stranger = join(root, 'stranger')
    mkdirSync(stranger)
    const noWs = await concord(['export', '--repo', stranger, '--format', 'json', '--data-dir', dataDir], root)
    expect(noWs.code).toBe(2)
    expect(noWs.stderr).toContain(`${stranger} has no Concord workspace in ${dataDir}; workspaces there:\n  ${repo}`)

    const missingData = join(root, 'no-data-here')
    const noData = await concord(['export', '--repo', repo, '--format', 'json', '--data-dir', missingData], root)
    expect(noData.code).toBe(2)
    expect(noData.stderr).toContain(`no Concord data in ${missingData}`)
    expect(existsSync(missingData)).toBe(false)

    writeFileSync(join(root, 'plain-file'), 'x')
    const io = await concord(
      ['export', '--repo', repo, '--format', 'json', '--out', join(root, 'plain-file', 'out'), '--data-dir', dataDir],
      root,
    )
    expect(io.code).toBe(1)
    expect(io.stderr).toContain('concord: io_error: outDir: cannot create or use the folder')

    // Under /proc, Node's recursive mkdir never returns; the export must fail instead of hanging.
    if (existsSync('/proc/self')) {
      const proc = await concord(
        ['export', '--repo', repo, '--format', 'madr', '--out', '/proc/concord-nope/out', '--data-dir', dataDir],
        root,
      )
      expect(proc.code).toBe(1)
      expect(proc.stderr).toContain('concord: io_error: outDir: cannot create or use the folder /proc/concord-nope/out')
    }
  })

  it('leaves a running app alone: its turn in progress and the relay its agents report to', async () => {
    // The app, with a member's turn in progress (as a crash would leave it too: only the process can tell).
    const app = createCore({ dataDir })
    try {
      const ws = (await app.invoke('workspaces.list', {})).find((w) => w.repoPath === repo)!
      const lead = (await app.invoke('members.list', { workspaceId: ws.id }))[0]
      const { store } = app.harness.ctx(ws.id)
      const running = store.steps.insert({
        member_id: Number(lead!.id.split('-m')[1]),
        kind: 'model',
        status: 'streaming',
        text: 'half a reply',
        started_at: new Date().toISOString(),
      })
      // The relay file is written once its socket listens.
      await expect.poll(() => existsSync(join(dataDir, 'run', 'relay.json'))).toBe(true)
      const relay = readFileSync(join(dataDir, 'run', 'relay.json'), 'utf8')
      const out = join(root, 'while-running')
      const r = await concord(['export', '--repo', repo, '--format', 'json', '--out', out, '--data-dir', dataDir], root)
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      // Not taken for a crash's leftover: still streaming; and `concord mcp` still finds the app.
      expect(store.steps.get(running)?.status).toBe('streaming')
      expect(readFileSync(join(dataDir, 'run', 'relay.json'), 'utf8')).toBe(relay)
    } finally {
      await app.close()
    }
  })
})
