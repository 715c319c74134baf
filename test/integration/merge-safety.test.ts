/**
 * tasks.merge in the user's real checkout: it runs no program the repository's config names (gpg for
 * merge.verifySignatures), never overwrites a file git does not track (an ignored build output, an untracked .env),
 * and a merge (or a tree's creation) that a crash cut short — Concord and git killed — is found and reported by the
 * next start and the next call, never "nothing was changed" when something was; a retried creation adds no branch.
 * Real git, a real core, and a real second process that is killed mid-operation.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { createCore } from '../../electron/main/core'
import type { Member, Task, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { startedTask } from '../fixtures/harness'
import { openWorkspace, type OpenWorkspace } from '../fixtures/workspace'

let t: OpenWorkspace
let ws: Workspace
let ivy: Member
let closed = false

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: dir, encoding: 'utf8' }).trim()
const treeOf = (task: Task) => join(t.dataDir, 'worktrees', ws.id, task.key)
const checkout = () => ({
  head: git(t.repoDir, 'rev-parse', 'HEAD'),
  status: git(t.repoDir, 'status', '--porcelain', '--ignored'),
})

beforeEach(async () => {
  closed = false
  t = await openWorkspace({ git: true })
  ws = t.ws
  ivy = await t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Ivy',
    role: 'implementer',
    approval: 'auto',
  })
})
afterEach(async () => {
  if (!closed) await t.cleanup()
})

async function acceptedTask(title: string, files: Record<string, string>, commitConfig: string[] = []): Promise<Task> {
  const task = await startedTask(t.core, { workspaceId: ws.id, title, assigneeId: ivy.id, requiredReports: [] })
  const dir = treeOf(task)
  for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content)
  git(dir, 'add', '-A', '-f')
  git(dir, '-c', 'user.name=T', '-c', 'user.email=t@x', ...commitConfig, 'commit', '-qm', title)
  await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered' })
  return t.core.invoke('tasks.accept', { taskId: task.id })
}

describe('a merge runs no program of the repository', () => {
  it('merge.verifySignatures with a planted gpg.program: the program never runs', async () => {
    // A signed commit (a stand-in signer), so that verifying it would run gpg.program.
    const signer = join(t.repoDir, '..', 'signer.sh')
    // It reads the payload first: one that exits before git has written it fails the commit (EPIPE), now and then.
    writeFileSync(
      signer,
      '#!/bin/sh\ncat >/dev/null\necho "[GNUPG:] SIG_CREATED D 1 8 00 0 X" >&2\nprintf -- "-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n"\n',
    )
    chmodSync(signer, 0o755)
    const task = await acceptedTask('Signed', { 'feature.txt': 'f\n' }, [
      '-c',
      `gpg.program=${signer}`,
      '-c',
      'user.signingKey=X',
      '-c',
      'commit.gpgSign=true',
    ])
    const marker = join(t.repoDir, '..', 'gpg-ran')
    const gpg = join(t.repoDir, '..', 'gpg.sh')
    writeFileSync(gpg, `#!/bin/sh\ntouch ${marker}\nexit 0\n`)
    chmodSync(gpg, 0o755)
    git(t.repoDir, 'config', 'merge.verifySignatures', 'true')
    git(t.repoDir, 'config', 'gpg.program', gpg)
    expect(git(t.repoDir, 'cat-file', 'commit', task.artifact!.commit!)).toContain('gpgsig')
    const merged = await t.core.invoke('tasks.merge', { taskId: task.id }).catch((e: unknown) => e)
    expect(existsSync(marker)).toBe(false)
    expect((merged as Task).merged?.commit).toBe(git(t.repoDir, 'rev-parse', 'HEAD'))
  })
})

describe('a merge never overwrites a file git does not track', () => {
  it('an ignored build output and an untracked .env: merge_blocked naming them, nothing changed', async () => {
    writeFileSync(join(t.repoDir, '.gitignore'), '*.out\n')
    git(t.repoDir, 'add', '.gitignore')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'ignore outputs')
    const task = await acceptedTask('Outputs', {
      'build.out': 'from the task\n',
      '.env': 'TOKEN=task\n',
      'ok.txt': 'fine\n',
    })
    writeFileSync(join(t.repoDir, 'build.out'), 'mine, ignored\n')
    writeFileSync(join(t.repoDir, '.env'), 'TOKEN=mine\n')
    const before = checkout()
    for (const strategy of ['merge', 'squash', 'ff-only'] as const) {
      const err = await rejectsWith(t.core.invoke('tasks.merge', { taskId: task.id, strategy }), 'merge_blocked')
      expect(err.details).toMatchObject({ reason: 'untracked_overwritten', paths: ['.env', 'build.out'] })
      expect(err.message).toContain('build.out')
      expect(readFileSync(join(t.repoDir, 'build.out'), 'utf8')).toBe('mine, ignored\n')
      expect(readFileSync(join(t.repoDir, '.env'), 'utf8')).toBe('TOKEN=mine\n')
      expect(checkout()).toEqual(before)
    }
  })
})

describe('a merge of yours under way in the checkout', () => {
  it('is refused (merge_in_progress), and your merge is left as it was', async () => {
    const task = await acceptedTask('Feature', { 'feature.txt': 'f\n' })
    // Your own merge stopped at a conflict: MERGE_HEAD and a conflicted file in your checkout.
    writeFileSync(join(t.repoDir, 'mine.txt'), 'base\n')
    git(t.repoDir, 'add', 'mine.txt')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'base of mine')
    git(t.repoDir, 'checkout', '-qb', 'side')
    writeFileSync(join(t.repoDir, 'mine.txt'), 'side\n')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qam', 'side')
    git(t.repoDir, 'checkout', '-q', 'main')
    writeFileSync(join(t.repoDir, 'mine.txt'), 'main\n')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qam', 'main')
    expect(() => git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'merge', '-q', 'side')).toThrow()
    const mergeHead = git(t.repoDir, 'rev-parse', 'MERGE_HEAD')
    const err = await rejectsWith(t.core.invoke('tasks.merge', { taskId: task.id }), 'merge_blocked')
    expect(err.details).toMatchObject({ reason: 'merge_in_progress' })
    expect(git(t.repoDir, 'rev-parse', 'MERGE_HEAD')).toBe(mergeHead)
  })
})

describe('a merge that lands another tree than the accepted commit’s', () => {
  it('checks your untracked files against the tree it lands: a file the base deleted and you have is not refused', async () => {
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, merges: 'as-accepted' })
    writeFileSync(join(t.repoDir, 'old.txt'), 'tracked\n')
    git(t.repoDir, 'add', 'old.txt')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'old file')
    const task = await acceptedTask('Feature', { 'feature.txt': 'f\n' })
    // After the task parted: the base deletes old.txt, and you keep a file of that name git does not track. The merged
    // tree has no old.txt (only the accepted commit's own tree has it): merging writes nothing there.
    git(t.repoDir, 'rm', '-q', 'old.txt')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'drop old file')
    writeFileSync(join(t.repoDir, 'old.txt'), 'mine, untracked\n')
    const merged = await t.core.invoke('tasks.merge', { taskId: task.id })
    expect(merged.merged?.commit).toBe(git(t.repoDir, 'rev-parse', 'HEAD'))
    expect(readFileSync(join(t.repoDir, 'old.txt'), 'utf8')).toBe('mine, untracked\n')
    expect(readFileSync(join(t.repoDir, 'feature.txt'), 'utf8')).toBe('f\n')
  })
})

// ---------------------------------------------------------------------------------------------------------------------
// crashes

/**
 * A smudge filter of the user's own git config (trusted, so Concord's git runs it) that lets the first file through,
 * then notes git's process group and hangs: the moment to kill Concord and git, with a file half-way written.
 */
function slowFilterHome(): { home: string; ready: string } {
  const home = join(t.repoDir, '..', 'home')
  const marks = join(t.repoDir, '..', 'marks')
  mkdirSync(home)
  mkdirSync(marks)
  const script = join(home, 'slow.sh')
  writeFileSync(
    script,
    `#!/bin/sh\nif [ ! -e ${marks}/first ]; then touch ${marks}/first; exec cat; fi\ncat\nps -o pgid= $$ | tr -d ' ' > ${marks}/pgid.tmp && mv ${marks}/pgid.tmp ${marks}/pgid\nexec sleep 600\n`,
  )
  chmodSync(script, 0o755)
  writeFileSync(
    join(home, '.gitconfig'),
    `[filter "slow"]\n\tsmudge = ${script}\n\tclean = cat\n[user]\n\tname = T\n\temail = t@x\n`,
  )
  return { home, ready: join(marks, 'pgid') }
}

function waitForFile(file: string): Promise<void> {
  return new Promise((resolve) => {
    const dir = join(file, '..')
    const w = watch(dir, () => {
      if (existsSync(file)) {
        w.close()
        resolve()
      }
    })
    if (existsSync(file)) {
      w.close()
      resolve()
    }
  })
}

/** Runs one API call in a second core process with the slow filter, and kills it and its git once the filter hangs. */
async function killedMidCall(
  method: string,
  params: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<void> {
  const { home, ready } = slowFilterHome()
  await t.core.close()
  closed = true
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/fixtures/core-call-worker.ts', JSON.stringify({ dataDir: t.dataDir, method, params })],
    {
      cwd: process.cwd(),
      env: { ...process.env, HOME: home, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  await Promise.race([
    waitForFile(ready),
    exited.then(() => Promise.reject(new Error(`the call finished before it could be killed: ${out}`))),
  ])
  process.kill(-Number(readFileSync(ready, 'utf8').trim()), 'SIGKILL') // git and the filter
  child.kill('SIGKILL') // Concord
  await exited
}

describe('a crash during a merge', () => {
  it('leaves index.lock and half-written files: the next start and the next merge report it, never "nothing was changed"', async () => {
    writeFileSync(join(t.repoDir, '.gitattributes'), '*.slow filter=slow\n')
    git(t.repoDir, 'add', '.gitattributes')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'attributes')
    const task = await acceptedTask('Slow', { 'a.slow': 'a\n', 'b.slow': 'b\n', 'c.slow': 'c\n' })
    const head = git(t.repoDir, 'rev-parse', 'HEAD')
    await killedMidCall('tasks.merge', { taskId: task.id })
    expect(existsSync(join(t.repoDir, '.git', 'index.lock'))).toBe(true)

    const core = createCore({ dataDir: t.dataDir })
    try {
      const reopened = await core.invoke('workspaces.open', { repoPath: t.repoDir })
      expect(reopened.notes.join('\n')).toMatch(/merge of T-1 .* did not finish.*index\.lock/s)
      const err = await rejectsWith(core.invoke('tasks.merge', { taskId: task.id }), 'merge_blocked')
      expect(err.details).toMatchObject({ reason: 'interrupted' })
      expect(err.message).toContain('index.lock')
      expect(err.message).not.toContain('nothing was changed')
      expect(git(t.repoDir, 'rev-parse', 'HEAD')).toBe(head)
      // Once the user has put the checkout back, the merge goes through.
      execFileSync('rm', ['-f', join(t.repoDir, '.git', 'index.lock')])
      git(t.repoDir, 'reset', '-q', '--hard')
      git(t.repoDir, 'clean', '-fdq')
      const merged = await core.invoke('tasks.merge', { taskId: task.id })
      expect(merged.merged?.commit).toBe(git(t.repoDir, 'rev-parse', 'HEAD'))
    } finally {
      await core.close()
    }
  })
})

describe('a merge that landed before Concord could record it', () => {
  it('is recorded as merged at the next start, with a note; nothing is blocked', async () => {
    const task = await acceptedTask('Landed', { 'landed.txt': 'l\n' })
    const head = git(t.repoDir, 'rev-parse', 'HEAD')
    await t.core.close()
    closed = true
    // What a crash right after git's merge leaves: the merge in the checkout, the record of it still running.
    git(
      t.repoDir,
      '-c',
      'user.name=T',
      '-c',
      'user.email=t@x',
      'merge',
      '-q',
      '--no-ff',
      '-m',
      'merged',
      task.artifact!.commit!,
    )
    const db = new Database(join(t.dataDir, 'workspaces', `${ws.id}.sqlite`))
    db.prepare('UPDATE task_branches SET merging = ?').run(
      JSON.stringify({ head, commit: task.artifact!.commit, at: new Date().toISOString() }),
    )
    db.close()
    const core = createCore({ dataDir: t.dataDir })
    try {
      const reopened = await core.invoke('workspaces.open', { repoPath: t.repoDir })
      expect(reopened.notes.join('\n')).toContain('had landed')
      expect((await core.invoke('tasks.get', { taskId: task.id })).merged?.commit).toBe(
        git(t.repoDir, 'rev-parse', 'HEAD'),
      )
    } finally {
      await core.close()
    }
  })
})

describe('a squash merge that landed before Concord could record it', () => {
  it('is recorded as merged at the next start, and merging again is refused rather than squashed a second time', async () => {
    const task = await acceptedTask('Squashed', { 'squashed.txt': 's\n' })
    const head = git(t.repoDir, 'rev-parse', 'HEAD')
    await t.core.close()
    closed = true
    // What a crash right after git's squash commit leaves: the commit in the checkout, the record of it still running.
    git(t.repoDir, 'merge', '-q', '--squash', task.artifact!.commit!)
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'squashed')
    const squashed = git(t.repoDir, 'rev-parse', 'HEAD')
    const db = new Database(join(t.dataDir, 'workspaces', `${ws.id}.sqlite`))
    db.prepare('UPDATE task_branches SET merging = ?').run(
      JSON.stringify({ head, commit: task.artifact!.commit, at: new Date().toISOString() }),
    )
    db.close()
    const core = createCore({ dataDir: t.dataDir })
    try {
      const reopened = await core.invoke('workspaces.open', { repoPath: t.repoDir })
      expect(reopened.notes.join('\n')).toContain('had landed')
      expect((await core.invoke('tasks.get', { taskId: task.id })).merged?.commit).toBe(squashed)
      await rejectsWith(core.invoke('tasks.merge', { taskId: task.id, strategy: 'squash' }), 'invalid_transition')
      expect(git(t.repoDir, 'rev-parse', 'HEAD')).toBe(squashed)
    } finally {
      await core.close()
    }
  })
})

describe('a crash while a tree is made', () => {
  it('is finished at the next start: the task gets its branch and tree, and no second branch is made', async () => {
    writeFileSync(join(t.repoDir, '.gitattributes'), '*.slow filter=slow\n')
    for (const f of ['a', 'b', 'c']) writeFileSync(join(t.repoDir, `${f}.slow`), `${f}\n`)
    git(t.repoDir, 'add', '-A')
    git(t.repoDir, '-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'slow files')
    const task = await t.core.invoke('tasks.create', { workspaceId: ws.id, title: 'Made twice', assigneeId: ivy.id })
    // No sandbox in the worker: the filter lives in a home the sandbox would hide.
    await killedMidCall('tasks.setStatus', { taskId: task.id, status: 'in_progress' }, { CONCORD_SANDBOX: 'off' })

    const core = createCore({ dataDir: t.dataDir })
    try {
      await core.invoke('workspaces.open', { repoPath: t.repoDir })
      const again = await core.invoke('tasks.get', { taskId: task.id })
      expect(again).toMatchObject({ status: 'in_progress', branch: 'concord/T-1-made-twice' })
      expect(git(t.repoDir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/concord/')).toBe(
        'concord/T-1-made-twice',
      )
      const tree = treeOf(task)
      expect(git(tree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('concord/T-1-made-twice')
      expect(readFileSync(join(tree, 'c.slow'), 'utf8')).toBe('c\n')
      expect(git(tree, 'status', '--porcelain')).toBe('')
      // A retry is idempotent.
      await core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' }).catch(() => undefined)
      expect(git(t.repoDir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/concord/')).toBe(
        'concord/T-1-made-twice',
      )
    } finally {
      await core.close()
    }
  })
})
