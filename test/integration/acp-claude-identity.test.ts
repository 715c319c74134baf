/**
 * The real Claude Code (over ACP, offline against the scripted model server) commits by itself in its task's tree —
 * its own Bash `git commit`, not Concord's tool — in a repository whose identity is only in the checkout's own config,
 * with no global identity anywhere (this process's HOME and XDG_CONFIG_HOME are an empty folder). The tree is a clone,
 * which has none of the checkout's config: Concord carries the identity into it (issue 31), so the commit is made,
 * as the user, instead of failing with "Author identity unknown".
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Workspace } from '../../shared/schemas'
import { claudeProvider } from '../fixtures/agents'
import { makeCore, type TestCore } from '../fixtures/core'
import { startedTask } from '../fixtures/harness'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { takeTurn } from '../fixtures/sessions'

fileNeedsSandbox()

const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME }
let emptyHome: string
let t: TestCore
let server: ModelServer
let ws: Workspace

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim()

beforeAll(() => {
  emptyHome = mkdtempSync(join(tmpdir(), 'concord-empty-home-'))
  process.env.HOME = emptyHome
  process.env.XDG_CONFIG_HOME = emptyHome
})
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  rmSync(emptyHome, { recursive: true, force: true })
})
beforeEach(async () => {
  server = await startModelServer()
  // initRepo: user.name and user.email in the repository's own config only.
  t = makeCore({ git: true })
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir })
})
afterEach(async () => {
  await t.cleanup()
  await server.close()
})

describe('Claude Code committing by itself in its task tree', { timeout: 120_000 }, () => {
  it('commits as the identity of your checkout, which the tree (a clone) did not have', async () => {
    expect(() => git(t.repoDir, 'config', '--global', 'user.email')).toThrow()
    expect(git(t.repoDir, 'config', '--local', 'user.email')).toBe('test@concord.invalid')
    const m = await t.core.invoke('members.create', {
      workspaceId: ws.id,
      name: 'Claude',
      role: 'implementer',
      authority: 'proposer',
      approval: 'auto',
      provider: claudeProvider(server),
    })
    const task = await startedTask(t.core, { workspaceId: ws.id, title: 'Note', assigneeId: m.id })
    const tree = join(t.dataDir, 'worktrees', ws.id, task.key)
    const base = git(tree, 'rev-parse', 'HEAD')
    server.enqueue(
      {
        toolCalls: [
          {
            name: 'Bash',
            arguments: {
              command:
                'echo note > note.txt && git add note.txt && git commit -q -m "Add the note" && git log -1 --format=%an',
              description: 'commit the note',
            },
          },
        ],
      },
      { text: 'Committed.' },
    )
    const steps = await takeTurn(
      t.core,
      { memberId: m.id, text: 'Write the note and commit it' },
      { timeoutMs: 90_000 },
    )
    const bash = steps.find((s) => s.kind === 'tool')
    expect(bash?.text ?? '').not.toContain('Author identity unknown')
    expect(git(tree, 'rev-parse', 'HEAD^')).toBe(base)
    expect(git(tree, 'log', '-1', '--format=%s / %an <%ae> / %cn <%ce>')).toBe(
      'Add the note / Concord Test <test@concord.invalid> / Concord Test <test@concord.invalid>',
    )
  })
})
