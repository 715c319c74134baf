/**
 * Keys and files: a member and its key are saved together or not at all, the cipher says truthfully
 * whether keys are encrypted, the data folder and every file in it are the owner's only, `serve`
 * refuses a guessable token, and errors never quote a file or disclose the data folder's path.
 */
import { spawn } from 'node:child_process'
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createCore, type Core, type CoreOptions } from '../../electron/main/core'
import { secretRef } from '../../electron/main/harness/members/members'
import type { SecretCipher } from '../../electron/main/platform/secrets/secret-store'
import type { Member, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'

let root: string
let dataDir: string
let repoDir: string
let cores: Core[]

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'concord-secrets-'))
  dataDir = join(root, 'data')
  repoDir = join(root, 'repo')
  mkdirSync(repoDir)
  cores = []
})
afterEach(async () => {
  vi.restoreAllMocks()
  for (const c of cores) await c.close()
  rmSync(root, { recursive: true, force: true })
})

/** A core on the shared data folder; calling it again after close() is a restart. */
function start(options: Partial<CoreOptions> = {}): Core {
  const core = createCore({ dataDir, ...options })
  cores.push(core)
  return core
}

async function restart(core: Core, options: Partial<CoreOptions> = {}): Promise<Core> {
  await core.close()
  cores = cores.filter((c) => c !== core)
  return start(options)
}

const openai = (apiKey?: string, model = 'gpt-old') => ({
  kind: 'openai' as const,
  model,
  ...(apiKey ? { apiKey } : {}),
})

/** A workspace on the repository folder and its lead, with the model gpt-old and this key. */
async function leadWithKey(core: Core, apiKey: string): Promise<{ ws: Workspace; lead: Member }> {
  const ws = await core.invoke('workspaces.open', { repoPath: repoDir })
  const lead = await core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Lead',
    role: 'lead',
    provider: openai(apiKey),
  })
  return { ws, lead }
}

/** Lead alone, with its old model and key; and no key waiting under the row id of the member that failed (m2). */
async function expectLeadAlone(c: Core, ws: Workspace, lead: Member): Promise<void> {
  const members = await c.invoke('members.list', { workspaceId: ws.id })
  expect(members.map((m) => [m.name, m.provider?.model, m.provider?.hasKey])).toEqual([['Lead', 'gpt-old', true]])
  expect(c.harness.secrets.get(secretRef(lead.id))).toBe('sk-old')
  // Its row id was rolled back: no key may wait there for the next member.
  expect(c.harness.secrets.has(secretRef(`${ws.id}-m2`))).toBe(false)
}

/**
 * Makes the next commit that inserted or updated a member fail at COMMIT (a deferred foreign key
 * that cannot be satisfied), after every statement of the transaction, the key write included, succeeded.
 */
function failNextMemberCommit(core: Core, workspaceId: string): void {
  core.harness.ctx(workspaceId).store.db.exec(`
    CREATE TEMP TABLE commit_gate (id INTEGER PRIMARY KEY);
    CREATE TEMP TABLE commit_blocker (gate INTEGER REFERENCES commit_gate(id) DEFERRABLE INITIALLY DEFERRED);
    CREATE TEMP TRIGGER fail_member_insert AFTER INSERT ON main.members BEGIN INSERT INTO commit_blocker VALUES (1); END;
    CREATE TEMP TRIGGER fail_member_update AFTER UPDATE ON main.members BEGIN INSERT INTO commit_blocker VALUES (1); END;
  `)
}

describe('a member and its key are saved together or not at all', () => {
  it('a key that cannot be written saves no member and keeps the previous key, before and after a restart', async () => {
    let core = start()
    const { ws, lead } = await leadWithKey(core, 'sk-old')
    expect(lead.provider?.hasKey).toBe(true)

    // A folder where the secrets file's temp file goes: every key write fails.
    mkdirSync(join(dataDir, 'secrets.json.tmp'))
    const created = await rejectsWith(
      core.invoke('members.create', {
        workspaceId: ws.id,
        name: 'Ivy',
        role: 'implementer',
        provider: openai('sk-ivy'),
      }),
      'io_error',
    )
    expect(created.message).toMatch(/API key.*secrets\.json/)
    expect(created.message).not.toContain(dataDir)
    const updated = await rejectsWith(
      core.invoke('members.update', { memberId: lead.id, provider: openai('sk-new', 'gpt-new') }),
      'io_error',
    )
    expect(updated.message).not.toContain(dataDir)

    const check = (c: Core) => expectLeadAlone(c, ws, lead)
    await check(core)
    // The store itself: a failed write changes nothing in memory either (hasKey is what a restart finds).
    expect(() => core.harness.secrets.set(secretRef(lead.id), 'sk-direct')).toThrow(
      expect.objectContaining({ code: 'io_error' }),
    )
    expect(() => core.harness.secrets.set(secretRef(`${ws.id}-m9`), 'sk-direct')).toThrow(
      expect.objectContaining({ code: 'io_error' }),
    )
    await check(core)
    expect(core.harness.secrets.has(secretRef(`${ws.id}-m9`))).toBe(false)
    rmSync(join(dataDir, 'secrets.json.tmp'), { recursive: true })
    core = await restart(core)
    await check(core)
    // The store works again once the obstacle is gone.
    const ivy = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      provider: openai('sk-ivy'),
    })
    expect(ivy.provider?.hasKey).toBe(true)
  })

  it('a member commit that fails after the key was written takes the key back (create) or restores the previous one (update)', async () => {
    let core = start()
    const { ws, lead } = await leadWithKey(core, 'sk-old')
    vi.spyOn(console, 'error').mockImplementation(() => {})
    failNextMemberCommit(core, ws.id)

    await expect(
      core.invoke('members.create', {
        workspaceId: ws.id,
        name: 'Ivy',
        role: 'implementer',
        provider: openai('sk-ivy'),
      }),
    ).rejects.toThrow()
    await expect(
      core.invoke('members.update', { memberId: lead.id, provider: openai('sk-new', 'gpt-new') }),
    ).rejects.toThrow()

    const check = (c: Core) => expectLeadAlone(c, ws, lead)
    await check(core)
    core = await restart(core)
    await check(core)
    const next = await core.invoke('members.create', { workspaceId: ws.id, name: 'Tess', role: 'tester' })
    expect([next.id, next.provider]).toEqual([`${ws.id}-m2`, null])
    expect(core.harness.secrets.has(secretRef(next.id))).toBe(false)
  })

  it('a new member never inherits a key left behind under its row id', async () => {
    let core = start()
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir })
    await core.close()
    cores = []
    writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ [secretRef(`${ws.id}-m1`)]: 'sk-orphan' }), {
      mode: 0o600,
    })
    core = start()
    const m = await core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Ivy',
      role: 'implementer',
      provider: openai(),
    })
    expect(m.provider?.hasKey).toBe(false)
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).not.toContain('sk-orphan')
  })
})

/** A real cipher (AES-256-GCM) standing in for Electron's safeStorage. */
function aesCipher(key: Buffer): SecretCipher {
  return {
    encrypted: true,
    description: 'encrypted with the test keychain',
    encrypt(plain) {
      const iv = randomBytes(12)
      const c = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()])
      return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64')
    },
    decrypt(stored) {
      const raw = Buffer.from(stored, 'base64')
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
      d.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8')
    },
  }
}

describe('system.info says where keys live', () => {
  it('plain Node: a 0600 file in the data folder, not encrypted, and no path', async () => {
    const core = start()
    const info = await core.invoke('system.info', {})
    // Other fields (the sandbox) are someone else's to check.
    expect(info.secrets).toEqual({
      encrypted: false,
      description: expect.stringMatching(/0600 file in the data folder, not encrypted/),
    })
    expect(JSON.stringify(info)).not.toContain(root)
    await rejectsWith(core.call('system.info', { path: '/' }), 'invalid_params')
  })

  it('with a cipher: encrypted, and the file holds no key in plain text', async () => {
    const key = randomBytes(32)
    let core = start({ cipher: aesCipher(key) })
    expect((await core.invoke('system.info', {})).secrets).toEqual({
      encrypted: true,
      description: 'encrypted with the test keychain',
    })
    const { lead: m } = await leadWithKey(core, 'sk-very-secret')
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).not.toContain('sk-very-secret')
    core = await restart(core, { cipher: aesCipher(key) })
    expect(core.harness.secrets.get(secretRef(m.id))).toBe('sk-very-secret')
  })
})

describe('the data folder is the owner’s only', () => {
  const mode = (p: string) => statSync(p).mode & 0o777

  it('creates the folder 0700 and every SQLite and secrets file 0600 under umask 0, and tightens looser modes on open', async () => {
    const before = process.umask(0)
    try {
      let core = start()
      const ws = await core.invoke('workspaces.open', { repoPath: repoDir })
      await core.invoke('members.create', { workspaceId: ws.id, name: 'Lead', role: 'lead', provider: openai('sk-1') })
      const files = [
        join(dataDir, 'secrets.json'),
        ...['concord.sqlite', join('workspaces', `${ws.id}.sqlite`)].flatMap((f) =>
          ['', '-wal', '-shm'].map((s) => join(dataDir, f + s)),
        ),
      ]
      const expectModes = () => {
        expect([mode(dataDir), mode(join(dataDir, 'workspaces'))]).toEqual([0o700, 0o700])
        expect(files.map((f) => [f.slice(dataDir.length), mode(f)])).toEqual(
          files.map((f) => [f.slice(dataDir.length), 0o600]),
        )
      }
      expectModes()

      // A crash (here: a copy taken while another connection had unsaved WAL frames) left -wal and
      // -shm behind, and an older Concord or a copied folder left everything readable by all.
      await core.close()
      cores = []
      const sqlite = files.filter((f) => f.endsWith('.sqlite'))
      const leftovers = new Map<string, Buffer>()
      for (const f of sqlite) {
        const db = new Database(f)
        db.pragma('wal_autocheckpoint = 0')
        db.exec('CREATE TABLE crash_left_this (x)')
        for (const s of ['', '-wal', '-shm']) leftovers.set(f + s, readFileSync(f + s))
        db.close()
      }
      for (const [f, bytes] of leftovers) writeFileSync(f, bytes)
      for (const f of files) chmodSync(f, 0o666)
      chmodSync(dataDir, 0o777)
      chmodSync(join(dataDir, 'workspaces'), 0o777)
      // A save interrupted before its rename left a world-readable temp file that the next save reuses.
      writeFileSync(join(dataDir, 'secrets.json.tmp'), '{}', { mode: 0o666 })
      chmodSync(join(dataDir, 'secrets.json.tmp'), 0o666)

      core = start()
      const [lead] = await core.invoke('members.list', { workspaceId: ws.id })
      expectModes()
      await core.invoke('members.update', { memberId: lead!.id, provider: openai('sk-2') })
      expectModes()
    } finally {
      process.umask(before)
    }
  })
})

/** Runs `concord serve` until it prints its URL (then stops it) or exits on its own. */
function serve(args: string[]): Promise<{ code: number | null; out: string; url?: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'electron/cli/concord.ts', 'serve', '--port', '0', '--data-dir', dataDir, ...args],
    {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  return new Promise((resolve) => {
    let out = ''
    let url: string | undefined
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(out)
      if (m && !url) {
        url = m[0]
        child.kill('SIGTERM')
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => resolve({ code, out, url }))
  })
}

describe('concord serve --token', () => {
  it('refuses a token shorter than 16 characters, and by default makes a long random one once and keeps it (0600)', async () => {
    const short = await serve(['--token', 'short-token-15ch'.slice(0, 15)])
    expect(short.url).toBeUndefined()
    expect(short.code).not.toBe(0)
    expect(short.out).toContain('--token must be at least 16 characters')
    expect(short.out).not.toMatch(/\n\s+at /)

    const random = await serve([])
    const token = new URL(random.url!).searchParams.get('token')!
    expect(token.length).toBeGreaterThanOrEqual(16)
    // Kept in the data folder, the owner's only: the next start serves the same address.
    const kept = join(dataDir, 'serve-token')
    expect(readFileSync(kept, 'utf8').trim()).toBe(token)
    expect(statSync(kept).mode & 0o777).toBe(0o600)
    const tokenOf = (r: { url?: string }) => new URL(r.url!).searchParams.get('token')
    expect(tokenOf(await serve([]))).toBe(token)
    // --token is used as given and leaves the kept one alone.
    expect((await serve(['--token', 'exactly-16-chars'])).url).toContain('token=exactly-16-chars')
    expect(readFileSync(kept, 'utf8').trim()).toBe(token)
    // A kept file others may read is tightened; an unusable one (empty) is replaced by a new token.
    chmodSync(kept, 0o644)
    expect(tokenOf(await serve([]))).toBe(token)
    expect(statSync(kept).mode & 0o777).toBe(0o600)
    writeFileSync(kept, '')
    const fresh = tokenOf(await serve([]))!
    expect(fresh).not.toBe(token)
    expect(fresh.length).toBeGreaterThanOrEqual(16)
    expect(readFileSync(kept, 'utf8').trim()).toBe(fresh)
  }, 60_000)
})

describe('errors disclose neither files nor the data folder', () => {
  it('import.workspace on /etc/passwd is "not a Concord export" without a line of it', async () => {
    const core = start()
    const err = await rejectsWith(
      core.invoke('import.workspace', { path: '/etc/passwd', repoPath: repoDir }),
      'invalid_params',
    )
    expect(err.message).toContain('/etc/passwd is not a Concord export')
    const firstLine = readFileSync('/etc/passwd', 'utf8').split('\n')[0]
    for (const piece of [firstLine!.slice(0, 6), 'root:', 'x:0:0']) expect(err.message).not.toContain(piece)

    // A secret-looking JSON value is not echoed either.
    const file = join(root, 'not-an-export.json')
    writeFileSync(file, JSON.stringify({ schemaVersion: 'sk-hidden-value' }))
    const typed = await rejectsWith(
      core.invoke('import.workspace', { path: file, repoPath: repoDir }),
      'invalid_params',
    )
    expect(typed.message).not.toContain('sk-hidden-value')
    writeFileSync(file, '{"schemaVersion": 1,\n "apiKey": "sk-hidden-value" "x"}')
    const broken = await rejectsWith(
      core.invoke('import.workspace', { path: file, repoPath: repoDir }),
      'invalid_params',
    )
    expect(broken.message).toMatch(/not valid JSON \(line 2, column \d+\)/)
    expect(broken.message).not.toContain('sk-hidden')
  })

  it('import.workspace refuses relative paths: the API has no working directory', async () => {
    const core = start()
    const rel = await rejectsWith(
      core.invoke('import.workspace', { path: 'concord-export.json', repoPath: repoDir }),
      'invalid_params',
    )
    expect(rel.message).toContain('path: concord-export.json is not an absolute path')
    const relRepo = await rejectsWith(
      core.invoke('import.workspace', { path: join(root, 'x.json'), repoPath: 'repo' }),
      'invalid_params',
    )
    expect(relRepo.message).toContain('repoPath: repo is not an absolute path')
  })

  it('a workspace file from a newer Concord is named by its workspace, not its path', async () => {
    let core = start()
    const ws = await core.invoke('workspaces.open', { repoPath: repoDir, name: 'Demo' })
    await core.close()
    cores = []
    const raw = new Database(join(dataDir, 'workspaces', `${ws.id}.sqlite`))
    raw.pragma('user_version = 999')
    raw.close()
    core = start()
    const err = await rejectsWith(core.invoke('decisions.list', { workspaceId: ws.id }), 'schema_too_new')
    expect(err.message).toContain(`workspace "Demo" (${ws.id}) has schema version 999`)
    expect(err.message).not.toContain(dataDir)
  })
})
